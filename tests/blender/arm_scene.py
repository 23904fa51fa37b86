"""arm_scene.py — what the add-on's Blender tests share: their checks and
tally, the mesh's coordinates (stored, as Blender draws them, in world
space), and the scene they pose — an arm of two bones under a cylinder
weighted along them, its forearm keyed from rest (frame 1) to a pose
(frame 10). Imported by the scripts beside it, which put their folder on sys.path."""
import math
import os
import sys

import numpy

numpy.bool = bool  # Blender 3.4's bundled code still names numpy.bool

import bpy  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    return bool(ok)


def finish(suite):
    """Prints "SUITE: N passed, N failed" and exits Blender with the verdict."""
    failed = results.count(False)
    print(f"{suite}: {len(results) - failed} passed, {failed} failed")
    if not bpy.app.background:  # a Blender with a window would go on to its event loop
        sys.stdout.flush()
        os._exit(1 if failed else 0)
    sys.exit(1 if failed else 0)


def install_addon():
    """Installs and enables the zip named after "--" on Blender's command line; returns its path."""
    zip_path = sys.argv[sys.argv.index("--") + 1]
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    bpy.ops.preferences.addon_enable(module="skn_blender")
    return zip_path


def coords(obj):
    """The mesh's stored vertex coordinates, (n, 3) float32, object space."""
    co = numpy.empty(len(obj.data.vertices) * 3, numpy.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def evaluated(obj):
    """The mesh as Blender draws it (modifiers and Armature Deform applied), object space."""
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = ev.to_mesh()
    co = numpy.empty(len(mesh.vertices) * 3, numpy.float32)
    mesh.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    return co.reshape(-1, 3)


def world(obj, co):
    m = numpy.array(obj.matrix_world)
    return co @ m[:3, :3].T + m[:3, 3]


def arm_rig(name, pose):
    """An armature "NAMERig" of two bones along +X, upper (0..1) and fore (1..2);
    the forearm keyed from rest at frame 1 to the quaternion `pose` at frame 10."""
    data = bpy.data.armatures.new(name + "Rig")
    arm = bpy.data.objects.new(name + "Rig", data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    up = data.edit_bones.new("upper")
    up.head, up.tail = (0, 0, 0), (1, 0, 0)
    fore = data.edit_bones.new("fore")
    fore.head, fore.tail, fore.parent = (1, 0, 0), (2, 0, 0), up
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = arm.pose.bones["fore"]
    pb.rotation_mode = "QUATERNION"
    pb.keyframe_insert("rotation_quaternion", frame=1)
    pb.rotation_quaternion = pose
    pb.keyframe_insert("rotation_quaternion", frame=10)
    return arm


def armature(name, bones, matrix=None, connect=False, rotation_mode="QUATERNION"):
    """bones: [(name, head, tail, parent)]; an armature object in the scene at `matrix` (a
    mathutils Matrix; identity by default), each bone connected to its parent where `connect` and
    its head is the parent's tail, its pose bone rotated in `rotation_mode`."""
    data = bpy.data.armatures.new(name)
    arm = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(arm)
    if matrix is not None:
        arm.matrix_world = matrix
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    for bone, head, tail, parent in bones:
        eb = data.edit_bones.new(bone)
        eb.head, eb.tail = head, tail
        if parent:
            eb.parent = data.edit_bones[parent]
            eb.use_connect = connect and tuple(data.edit_bones[parent].tail) == tuple(head)
    bpy.ops.object.mode_set(mode="OBJECT")
    for pb in arm.pose.bones:
        pb.rotation_mode = rotation_mode
    return arm


def metaball_body(meta, resolution):
    """A body for a Rigify metarig: metaball capsules along its trunk and limbs (radii by bone name),
    converted to a mesh object, which is returned (the active object)."""
    from mathutils import Vector
    balls = bpy.data.metaballs.new("Body")
    balls.resolution = balls.render_resolution = resolution
    shape = bpy.data.objects.new("Body", balls)
    bpy.context.scene.collection.objects.link(shape)
    radius = {"spine": 0.29, "thigh": 0.18, "shin": 0.13, "foot": 0.1, "toe": 0.08, "shoulder": 0.13,
              "upper_arm": 0.11, "forearm": 0.09, "hand": 0.08}
    for b in meta.data.bones:
        r = next((v for k, v in radius.items() if b.name.startswith(k)), None)
        if r is not None:
            e = balls.elements.new(type="CAPSULE")
            e.co, e.radius, e.size_x = (b.head_local + b.tail_local) / 2, r, b.length / 2
            e.rotation = Vector((1, 0, 0)).rotation_difference((b.tail_local - b.head_local).normalized())
    bpy.ops.object.select_all(action="DESELECT")
    shape.select_set(True)
    bpy.context.view_layer.objects.active = shape
    bpy.ops.object.convert(target="MESH")
    return bpy.context.object


RIGIFY_RESOLUTION = 0.0095  # rigify_human's metaball body: about 50,000 vertices


def rigify_human(resolution=RIGIFY_RESOLUTION, frames=20):
    """A Rigify human (the Human metarig generated: ~160 deform bones, 52 of them B-Bones of 8-10
    segments), its body of metaball capsules at `resolution` weighted With Automatic Weights, two
    shape keys (one keyed); the left arm raised and the chest twisted from frame 1 to `frames`
    (`make bench-blender`'s human)."""
    bpy.ops.preferences.addon_enable(module="rigify")
    bpy.ops.object.armature_human_metarig_add()
    meta = bpy.context.object
    body = metaball_body(meta, resolution)
    bpy.ops.object.select_all(action="DESELECT")
    meta.select_set(True)
    bpy.context.view_layer.objects.active = meta
    bpy.ops.pose.rigify_generate()
    rig = bpy.data.objects["rig"]
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.object.select_all(action="DESELECT")
    body.select_set(True)
    rig.select_set(True)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    meta.hide_set(True)
    body.shape_key_add(name="Basis")
    for name, lift, keyed in (("Belly", 0.03, True), ("Shrug", 0.02, False)):
        key = body.shape_key_add(name=name, from_mix=False)
        co = numpy.empty(len(body.data.vertices) * 3, numpy.float32)
        key.data.foreach_get("co", co)
        co = co.reshape(-1, 3)
        co[:, 2] += numpy.where(co[:, 2] > 1.0, lift, 0.0)
        key.data.foreach_set("co", co.ravel())
        key.value = 0.5
        if keyed:
            for frame, value in ((1, 0.0), (frames, 1.0)):
                key.value = value
                key.keyframe_insert("value", frame=frame)
    pose = rig.pose.bones
    pose["upper_arm_parent.L"]["IK_FK"] = 1.0
    for frame, amount in ((1, 0.0), (frames, 1.0)):
        for name, angles in (("upper_arm_fk.L", (0, 0, math.radians(-80))), ("chest", (0, math.radians(35), 0))):
            pose[name].rotation_mode = "XYZ"
            pose[name].rotation_euler = tuple(a * amount for a in angles)
            pose[name].keyframe_insert("rotation_euler", frame=frame)
    return rig, body


def chain_rig(name, bones, length):
    """An armature `name` of `bones` bones "b0", "b1", ... in a chain along +X, each `length` long."""
    data = bpy.data.armatures.new(name)
    arm = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    prev = None
    for i in range(bones):
        eb = data.edit_bones.new(f"b{i}")
        eb.head, eb.tail, eb.parent = (i * length, 0, 0), ((i + 1) * length, 0, 0), prev
        prev = eb
    bpy.ops.object.mode_set(mode="OBJECT")
    return arm


def arm_mesh(name, arm, rings, segs, attach="modifier", groups=("upper", "fore")):
    """A cylinder of radius 0.25 along the bones, weighted to the groups named
    `groups` (blended over the elbow, x in 0.7..1.3), attached to `arm` by an
    Armature modifier or by parenting with Armature Deform ("parent")."""
    verts = [(2 * i / (rings - 1), 0.25 * math.cos(2 * math.pi * j / segs), 0.25 * math.sin(2 * math.pi * j / segs))
             for i in range(rings) for j in range(segs)]
    faces = [(i * segs + j, i * segs + (j + 1) % segs, (i + 1) * segs + (j + 1) % segs, (i + 1) * segs + j)
             for i in range(rings - 1) for j in range(segs)]
    data = bpy.data.meshes.new(name)
    data.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    if attach == "modifier":
        obj.modifiers.new("Armature", "ARMATURE").object = arm
    else:
        obj.parent, obj.parent_type = arm, "ARMATURE"
    gu, gf = obj.vertex_groups.new(name=groups[0]), obj.vertex_groups.new(name=groups[1])
    for i, v in enumerate(verts):
        s = min(1, max(0, (v[0] - 0.7) / 0.6))
        gu.add([i], 1 - s, "REPLACE")
        gf.add([i], s, "REPLACE")
    return obj


def panel_labels(obj):
    """The texts of the "skn Skinning" panel's labels for obj, its draw run on a layout that
    records them (a headless Blender draws no panel)."""
    import skn_blender.ui as ui
    labels = []

    class Layout:
        def column(self, **_):
            return self
        row = column

        def label(self, text="", **_):
            labels.append(text)

        def prop(self, *_, **__):
            pass
        prop_search = operator = prop
    ui.SKN_PT_panel.draw(type("Panel", (), {"layout": Layout()})(), type("Context", (), {"object": obj})())
    return labels
