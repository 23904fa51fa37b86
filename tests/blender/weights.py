"""weights.py — the add-on's Object > Parent > With Automatic Weights (skn) against Blender's own
With Automatic Weights (parent_set ARMATURE_AUTO), in a clean factory-startup Blender.

Each scene is a mesh and an armature the test builds; the mesh is copied, one copy parented by
Blender's operator and one by skn's (bone heat), and then:
  - every vertex's weight in every deform bone's group must agree within 1e-4 (groups present in
    the same vertices, where both weights are above 1e-4);
  - the two copies, posed by the same Armature modifier at two poses, must agree within 1e-5 of
    the mesh's bounding-box diagonal.
Scenes: an arm (three bones in a subdivided tube), a branching tree (four bones in an
ellipsoid), a humanoid from primitives (a body in nine pieces: torso, head, arms, legs), a Rigify
metarig's deform bones in a body of metaball capsules, a chain of B-Bones bent at rest (their
segments the heat sources). Then the operator's contract: Closest Bone weights, a locked group
left alone, a mesh skn refuses (a vertex at NaN) changes nothing and reports the vertex, and the
operator is one undo step. Also prints each scene's time for both operators. Prints "blender-weights: N passed, N failed".

Then, through glTF: each of three scenes weighted by Blender, exported (glTF 2.0, GLB), and weighted
again by `skn weights`, whose bones are inferred from the joints: the mean over vertices of the
largest weight difference must be at most 0.02.

  blender -b --factory-startup --python-exit-code 1 --python weights.py -- ADDON.zip SKN
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arm_scene import armature as plain_armature, check, evaluated, finish, install_addon, metaball_body, numpy, world  # noqa: E402,E501

import bpy  # noqa: E402

WEIGHT_TOLERANCE = 1e-4
POSE_TOLERANCE = 1e-5


def clean():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    install_addon()


def select(meshes, arm):
    bpy.ops.object.select_all(action="DESELECT")
    for m in meshes:
        m.select_set(True)
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm


def armature(name, bones, segments=None):
    """bones: [(name, head, tail, parent name or None)]; segments: {name: (n, curve in x, curve in z)},
    B-Bones bent at rest (their rest spline is what Blender's heat follows)."""
    arm = plain_armature(name, bones)
    if segments:
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode="EDIT")
        for n, (count, x, z) in segments.items():
            b = arm.data.edit_bones[n]
            b.bbone_segments, b.bbone_curveinx, b.bbone_curveinz = count, x, z
            b.bbone_curveoutx, b.bbone_curveoutz = -x / 2, z / 2
        bpy.ops.object.mode_set(mode="OBJECT")
    return arm


def build_tube(a, b, radius, cuts=10, vertices=16):
    """A closed tube from a to b extended by its radius at each end: cuts + 2 rings of `vertices`,
    each end a fan around a centre vertex."""
    a, b = numpy.array(a, float), numpy.array(b, float)
    axis = (b - a) / numpy.linalg.norm(b - a)
    u = numpy.cross(axis, [0, 0, 1] if abs(axis[2]) < 0.9 else [1, 0, 0])
    u /= numpy.linalg.norm(u)
    v = numpy.cross(axis, u)
    start, end = a - radius * axis, b + radius * axis
    rings = cuts + 2
    verts, faces = [], []
    for k in range(rings):
        c = start + (end - start) * k / (rings - 1)
        for i in range(vertices):
            t = 2 * math.pi * i / vertices
            verts.append(tuple(c + radius * (math.cos(t) * u + math.sin(t) * v)))
    for k in range(rings - 1):
        for i in range(vertices):
            j = (i + 1) % vertices
            faces.append((k * vertices + i, k * vertices + j, (k + 1) * vertices + j, (k + 1) * vertices + i))
    c0, c1 = len(verts), len(verts) + 1
    verts += [tuple(start), tuple(end)]
    last = (rings - 1) * vertices
    for i in range(vertices):
        j = (i + 1) % vertices
        faces.append((c0, j, i))
        faces.append((c1, last + i, last + j))
    mesh = bpy.data.meshes.new("Tube")
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    obj = bpy.data.objects.new("Cylinder", mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def join(objs, name):
    bpy.ops.object.select_all(action="DESELECT")
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objs[0]
    if len(objs) > 1:
        bpy.ops.object.join()
    objs[0].name = name
    return objs[0]


# ---- the scenes ----

def arm_scene():
    arm = armature("Arm", [("upper", (0.1, 0, 0), (1, 0, 0), None), ("fore", (1, 0, 0), (2, 0, 0.1), "upper"),
                           ("hand", (2, 0, 0.1), (2.8, 0, 0), "fore")])
    body = build_tube((0.1, 0, 0), (2.8, 0, 0), 0.3, cuts=24)
    return body, arm, {"fore": (0, 50, 0), "hand": (30, 0, 20)}


def tree_scene():
    arm = armature("Tree", [("trunk", (0, 0, -0.9), (0, 0, 0), None), ("left", (0, 0, 0), (0.9, 0, 0.6), "trunk"),
                            ("right", (0, 0, 0), (-0.9, 0, 0.6), "trunk"), ("top", (0, 0, 0), (0, 0, 0.9), "trunk")])
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=4, radius=1.0)
    body = bpy.context.object
    body.scale = (1.5, 0.6, 1.0)
    bpy.ops.object.transform_apply(scale=True)
    return body, arm, {"left": (0, 40, 0), "top": (25, 0, 0)}


def humanoid_scene():
    bones = [("hips", (0, 0, 0.9), (0, 0, 1.1), None), ("chest", (0, 0, 1.1), (0, 0, 1.45), "hips"),
             ("head", (0, 0, 1.5), (0, 0, 1.75), "chest")]
    for s in (1, -1):
        side = ".L" if s > 0 else ".R"
        bones += [("upper_arm" + side, (0.22 * s, 0, 1.4), (0.5 * s, 0, 1.4), "chest"),
                  ("forearm" + side, (0.5 * s, 0, 1.4), (0.78 * s, 0, 1.4), "upper_arm" + side),
                  ("thigh" + side, (0.1 * s, 0, 0.88), (0.1 * s, 0, 0.48), "hips"),
                  ("shin" + side, (0.1 * s, 0, 0.48), (0.1 * s, 0, 0.1), "thigh" + side)]
    arm = armature("Humanoid", bones)
    parts = [build_tube((0, 0, 0.92), (0, 0, 1.42), 0.17, cuts=8)]
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.15, location=(0, 0, 1.62))
    parts.append(bpy.context.object)
    for s in (1, -1):
        parts.append(build_tube((0.2 * s, 0, 1.4), (0.78 * s, 0, 1.4), 0.06, cuts=12, vertices=12))
        parts.append(build_tube((0.1 * s, 0, 0.86), (0.1 * s, 0, 0.12), 0.08, cuts=12, vertices=12))
    # a belt joining the legs' tops to the torso: a ninth piece
    parts.append(build_tube((-0.16, 0, 0.88), (0.16, 0, 0.88), 0.09, cuts=4, vertices=12))
    body = join(parts, "Humanoid body")
    return body, arm, {"upper_arm.L": (0, 0, -60), "forearm.R": (0, 40, 0), "thigh.L": (45, 0, 0),
                       "chest": (0, 20, 10)}


def rigify_scene():
    bpy.ops.preferences.addon_enable(module="rigify")
    bpy.ops.object.armature_basic_human_metarig_add()
    meta = bpy.context.object
    body = metaball_body(meta, 0.05)
    return body, meta, {"upper_arm.L": (0, 0, -70), "spine.003": (0, 25, 0), "thigh.R": (40, 0, 0)}


def bbone_scene():
    arm = armature("BBones", [("a", (0, 0, 0), (1, 0, 0), None), ("b", (1, 0, 0), (2, 0, 0), "a"),
                              ("c", (2, 0, 0), (2.9, 0, 0), "b")],
                   segments={"a": (4, 0.0, 0.25), "b": (3, 0.15, -0.2), "c": (1, 0, 0)})
    body = build_tube((0, 0, 0), (2.9, 0, 0), 0.35, cuts=30)
    return body, arm, {"a": (0, 20, 0), "b": (0, 0, 45)}


# ---- comparing ----

def group_weights(obj, names):
    """(n, bones) weights of the deform bones' groups; -1 where the vertex is not in the group."""
    w = numpy.full((len(obj.data.vertices), len(names)), -1.0)
    column = {g.index: names.index(g.name) for g in obj.vertex_groups if g.name in names}
    for v in obj.data.vertices:
        for e in v.groups:
            if e.group in column:
                w[v.index, column[e.group]] = e.weight
    return w


def posed(obj):
    """The mesh as Blender draws it, in world space."""
    return world(obj, evaluated(obj).astype(numpy.float64))


def pose(arm, rotations, amount):
    for name, (x, y, z) in rotations.items():
        pb = arm.pose.bones[name]
        pb.rotation_mode = "XYZ"
        pb.rotation_euler = (math.radians(x) * amount, math.radians(y) * amount, math.radians(z) * amount)
    bpy.context.view_layer.update()


def compare(label, build):
    clean()
    body, arm, rotations = build()
    twin = body.copy()
    twin.data = body.data.copy()
    twin.name = body.name + " (skn)"
    bpy.context.scene.collection.objects.link(twin)
    select([body], arm)
    t = time.perf_counter()
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    blender_s = time.perf_counter() - t
    select([twin], arm)
    t = time.perf_counter()
    result = bpy.ops.skn.parent_with_weights(method="HEAT")
    skn_s = time.perf_counter() - t
    names = [b.name for b in arm.data.bones if b.use_deform]
    a, b = group_weights(body, names), group_weights(twin, names)
    both = (a > WEIGHT_TOLERANCE) & (b > WEIGHT_TOLERANCE)
    membership = ((a > WEIGHT_TOLERANCE) != (b > WEIGHT_TOLERANCE)).sum()
    worst = float(numpy.abs(numpy.where(both, a - b, 0)).max()) if both.any() else 0.0
    lone = float(numpy.maximum(numpy.where(a > WEIGHT_TOLERANCE, a, 0), numpy.where(b > WEIGHT_TOLERANCE, b, 0))
                 [(a > WEIGHT_TOLERANCE) != (b > WEIGHT_TOLERANCE)].max()) if membership else 0.0
    n, segs = len(body.data.vertices), sum(max(1, x.bbone_segments) for x in arm.data.bones if x.use_deform)
    check(f"{label}: skn's weights are Blender's ({n} vertices, {len(names)} deform bones, {segs} heat sources)",
          result == {"FINISHED"} and worst <= WEIGHT_TOLERANCE and membership == 0,
          f"largest difference {worst:.2e}; {membership} memberships differ (weights up to {lone:.2e}); "
          f"Blender {blender_s:.3f} s, skn {skn_s:.3f} s")
    lo, hi = numpy.min(posed(body), axis=0), numpy.max(posed(body), axis=0)
    diagonal = float(numpy.linalg.norm(hi - lo))
    for amount in (0.5, 1.0):
        pose(arm, rotations, amount)
        d = float(numpy.abs(posed(body) - posed(twin)).max()) / diagonal
        check(f"{label}: posed ({amount:g}) by the same modifier, the meshes agree", d <= POSE_TOLERANCE,
              f"{d:.2e} of the diagonal")
    return body, twin, arm


def contract():
    """Closest Bone, a locked group, a refused mesh, Undo."""
    body, twin, arm = compare("arm", arm_scene)
    names = [b.name for b in arm.data.bones if b.use_deform]
    # Closest Bone: every vertex weighted, by its nearest bone most
    clean()
    body, arm, _ = arm_scene()
    select([body], arm)
    check("Closest Bone: finished", bpy.ops.skn.parent_with_weights(method="CLOSEST") == {"FINISHED"})
    w = group_weights(body, names)
    tip = int(numpy.argmax([v.co.x for v in body.data.vertices]))
    check("Closest Bone: every vertex weighted, the hand's tip by the hand", (w.max(axis=1) > 0).all() and
          int(numpy.argmax(w[tip])) == names.index("hand"), f"tip weights {w[tip]}")
    # a locked group keeps its weights
    clean()
    body, arm, _ = arm_scene()
    g = body.vertex_groups.new(name="fore")
    g.add(list(range(len(body.data.vertices))), 0.25, "REPLACE")
    g.lock_weight = True
    keep = body.vertex_groups.new(name="painted")
    keep.add([0, 1, 2], 0.5, "REPLACE")
    select([body], arm)
    bpy.ops.skn.parent_with_weights(method="HEAT")
    w = group_weights(body, names + ["painted"])
    check("a locked group and a group of another name are left as they were",
          numpy.all(w[:, names.index("fore")] == 0.25) and numpy.all(w[:3, -1] == 0.5) and
          (w[3:, -1] == -1).all() and (w[:, names.index("upper")] > 0).any())
    # a mesh skn refuses: nothing changes, the vertex is named
    clean()
    body, arm, _ = arm_scene()
    body.data.vertices[7].co = (float("nan"), 0, 0)
    select([body], arm)
    try:
        result = bpy.ops.skn.parent_with_weights(method="HEAT")
    except RuntimeError as e:  # the operator's report, raised by bpy.ops
        result, message = {"CANCELLED"}, str(e)
    else:
        message = ""
    check("a vertex at NaN: refused, named, nothing changed", result == {"CANCELLED"} and "vertex 7" in message and
          body.parent is None and len(body.vertex_groups) == 0 and len(body.modifiers) == 0, message.strip())
    # Undo: headless Blender has no undo stack (ed.undo's poll fails without a window); the
    # operator registers as one undo step, and everything it changes, it changes in that call
    check("one undo step: the operator is registered with UNDO", "UNDO" in
          bpy.types.SKN_OT_parent_with_weights.bl_options)


def glb_weights(path):
    """The first skinned primitive's JOINTS_0 and WEIGHTS_0 of a .glb, as a dense (n, joints) array."""
    with open(path, "rb") as f:
        data = f.read()
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    bin_at = 20 + jlen + 8
    node = next(n for n in doc["nodes"] if "skin" in n and "mesh" in n)
    attrs = doc["meshes"][node["mesh"]]["primitives"][0]["attributes"]
    joint_count = len(doc["skins"][node["skin"]]["joints"])

    def read(index):
        a = doc["accessors"][index]
        v = doc["bufferViews"][a["bufferView"]]
        dtype = {5121: numpy.uint8, 5123: numpy.uint16, 5126: numpy.float32}[a["componentType"]]
        start = bin_at + v.get("byteOffset", 0) + a.get("byteOffset", 0)
        return numpy.frombuffer(data, dtype, a["count"] * 4, start).reshape(-1, 4)
    j, w = read(attrs["JOINTS_0"]), read(attrs["WEIGHTS_0"])
    dense = numpy.zeros((len(j), joint_count))
    numpy.add.at(dense, (numpy.repeat(numpy.arange(len(j)), 4), j.ravel().astype(int)), w.ravel())
    return dense


def through_gltf(label, build, skn_command):
    """Blender's weights exported to glTF, then `skn weights` on the file: its bones inferred from
    the joints (to each child; a leaf continues its parent), against Blender's exported weights."""
    clean()
    body, arm, _ = build()
    select([body], arm)
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    folder = tempfile.mkdtemp(prefix="skn-weights-")
    exported, weighted = os.path.join(folder, "blender.glb"), os.path.join(folder, "skn.glb")
    bpy.ops.object.select_all(action="SELECT")
    bpy.ops.export_scene.gltf(filepath=exported, export_format="GLB", export_animations=False, export_skins=True)
    run = subprocess.run([skn_command, "weights", exported, "-o", weighted], capture_output=True, text=True)
    if not check(f"{label}: skn weights on Blender's glTF export", run.returncode == 0, run.stderr.strip()):
        return
    a, b = glb_weights(exported), glb_weights(weighted)
    per_vertex = numpy.abs(a - b).max(axis=1)
    check(f"{label} through glTF: mean |dw| <= 0.02", a.shape == b.shape and per_vertex.mean() <= 0.02,
          f"{len(a)} vertices: mean of the largest |dw| a vertex {per_vertex.mean():.4f}, "
          f"largest {per_vertex.max():.3f}")


def main():
    skn_command = sys.argv[sys.argv.index("--") + 2]
    for label, build in (("arm", arm_scene), ("humanoid of nine pieces", humanoid_scene),
                         ("Rigify basic human metarig", rigify_scene)):
        through_gltf(label, build, skn_command)
    contract()
    for label, build in (("tree", tree_scene), ("humanoid of nine pieces", humanoid_scene),
                         ("Rigify basic human metarig", rigify_scene), ("B-Bone chain", bbone_scene)):
        compare(label, build)
    finish("blender-weights")


main()
