"""addon_ui.py — the add-on as a user meets it, in a clean factory-startup
Blender: the zip installs and enables; Bind, a frame change, Apply and
Unbind work through the operators; the live mesh equals the Armature
modifier's; Unbind, disabling the add-on and saving give back the rest mesh
exactly. Prints "blender-addon: N passed, N failed".

  blender -b --factory-startup --python-exit-code 1 --python addon_ui.py -- ADDON.zip
"""
import math
import os
import sys
import tempfile

import numpy

numpy.bool = bool

import bpy  # noqa: E402
from mathutils import Quaternion  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")


def coords(obj):
    co = numpy.empty(len(obj.data.vertices) * 3, numpy.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def modifier_coords(obj):
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = ev.to_mesh()
    co = numpy.empty(len(mesh.vertices) * 3, numpy.float32)
    mesh.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    return co.reshape(-1, 3)


def make_arm(name):
    """A cylinder over two bones; the forearm keyed from rest (frame 1) to a
    150° twist and a 60° bend (frame 10)."""
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
    rings, segs = 25, 16
    verts = [(2 * i / (rings - 1), 0.25 * math.cos(2 * math.pi * j / segs), 0.25 * math.sin(2 * math.pi * j / segs))
             for i in range(rings) for j in range(segs)]
    faces = [(i * segs + j, i * segs + (j + 1) % segs, (i + 1) * segs + (j + 1) % segs, (i + 1) * segs + j)
             for i in range(rings - 1) for j in range(segs)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.modifiers.new("Armature", "ARMATURE").object = arm
    gu, gf = obj.vertex_groups.new(name="upper"), obj.vertex_groups.new(name="fore")
    for i, v in enumerate(verts):
        s = min(1, max(0, (v[0] - 0.7) / 0.6))
        gu.add([i], 1 - s, "REPLACE")
        gf.add([i], s, "REPLACE")
    pb = arm.pose.bones["fore"]
    pb.rotation_mode = "QUATERNION"
    pb.keyframe_insert("rotation_quaternion", frame=1)
    pb.rotation_quaternion = Quaternion((0, 0, 1), math.radians(60)) @ Quaternion((0, 1, 0), math.radians(150))
    pb.keyframe_insert("rotation_quaternion", frame=10)
    return obj


def main():
    zip_path = sys.argv[sys.argv.index("--") + 1]
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    bpy.ops.preferences.addon_enable(module="skn_blender")
    check("the zip installs and enables", "skn_blender" in bpy.context.preferences.addons)
    scene = bpy.context.scene
    obj = make_arm("Arm")
    rest = coords(obj).copy()
    for method, preserve in (("LINEAR", False), ("DQS", True)):
        scene.frame_set(10)
        obj.modifiers["Armature"].use_deform_preserve_volume = preserve
        want = modifier_coords(obj)
        scene.frame_set(1)
        bpy.context.view_layer.objects.active = obj
        obj.skn.method = method
        check(f"{method}: Bind", bpy.ops.skn.bind() == {"FINISHED"} and obj.skn.bound)
        check(f"{method}: the Armature modifier is off while bound", not obj.modifiers["Armature"].show_viewport)
        scene.frame_set(10)
        live = coords(obj)
        worst = float(numpy.abs(live - want).max())
        check(f"{method}: a frame change deforms the mesh as the modifier does", worst < 1e-5, f"max {worst:.2e}")
        with tempfile.TemporaryDirectory() as d:  # the file keeps the rest mesh, not the deformed one
            path = os.path.join(d, "bound.blend")
            bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
            check(f"{method}: still deformed after saving", numpy.abs(coords(obj) - live).max() < 1e-6)
            with bpy.data.libraries.load(path) as (src, dst):
                dst.meshes = ["Arm"]
            saved = numpy.empty(len(rest) * 3, numpy.float32)
            dst.meshes[0].vertices.foreach_get("co", saved)
            check(f"{method}: the saved file holds the rest mesh", numpy.array_equal(saved.reshape(-1, 3), rest))
            bpy.data.meshes.remove(dst.meshes[0])
        check(f"{method}: Unbind", bpy.ops.skn.unbind() == {"FINISHED"} and not obj.skn.bound)
        check(f"{method}: Unbind restores the rest mesh exactly", numpy.array_equal(coords(obj), rest))
        check(f"{method}: Unbind gives the modifier back", obj.modifiers["Armature"].show_viewport)

    other = make_arm("Other")
    other_rest = coords(other).copy()
    bpy.context.view_layer.objects.active = other
    scene.frame_set(1)
    bpy.ops.skn.bind()
    scene.frame_set(10)
    check("disabling the add-on: deformed first", not numpy.array_equal(coords(other), other_rest))
    bpy.ops.preferences.addon_disable(module="skn_blender")
    check("disabling the add-on restores the rest mesh", numpy.array_equal(coords(other), other_rest))
    bpy.ops.preferences.addon_enable(module="skn_blender")

    bpy.context.view_layer.objects.active = obj
    obj.skn.method = "LINEAR"
    obj.modifiers["Armature"].use_deform_preserve_volume = False
    scene.frame_set(10)
    want = modifier_coords(obj)
    bpy.ops.skn.bind()
    check("Apply", bpy.ops.skn.apply() == {"FINISHED"} and not obj.skn.bound)
    check("Apply keeps the deformed shape", numpy.abs(coords(obj) - want).max() < 1e-5)
    check("Apply removes the Armature modifier", "Armature" not in obj.modifiers)
    check("Apply removes the saved rest", "skn_rest" not in obj.data.attributes)

    failed = results.count(False)
    print(f"blender-addon: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
