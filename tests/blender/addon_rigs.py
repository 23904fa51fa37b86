"""addon_rigs.py — the add-on bound to the rigs artists have, against
Blender's own Armature modifier, in a clean factory-startup Blender.

For every setup, the modifier's evaluated mesh is recorded at frames 1, 5,
9, 13, 17 and 20 with Preserve Volume off and on; then the mesh is bound
with Bind (which follows Preserve Volume) and its evaluated mesh — through
the "skn" modifier, so what Blender draws, renders and hands to the
modifiers below — must be within 1e-5 of the rest mesh's bounding-box
diagonal at each of them. Unbind must give back the modifier's result and
the untouched rest mesh.

  - shape keys (a key keyframed, one masked by a vertex group and Relative
    To the other, one muted), and a modifier below (Subdivision Surface);
  - B-Bones of 4, 6 and 8 segments, bent; and with every B-Bone setting:
    curve, roll, ease and scale in and out on the bone and in the pose,
    scale easing, handles of each type with their scale and ease flags;
  - the modifier's Vertex Group mask, plain and inverted;
  - envelopes only; groups present but Bind To Vertex Groups off; groups
    and envelopes with an unweighted tip (Blender's fallback), Multiply by
    Envelope, a bone with Deform off;
  - two Armature modifiers, the second after skn's; a Multi Modifier after
    it, on another armature, mixed in by its mask group, plain and inverted;
  - an armature under an animated Empty (the mesh not parented), an
    armature scaled non-uniformly, a mesh parented with Armature Deform to
    a moving armature (its parent inverse kept through Bind and Unbind);
  - objects scaled -1 on an axis (a mirrored copy): the mesh, the
    armature, both (non-uniformly);
  - a Rigify human generated from the Human metarig, its body weighted
    With Automatic Weights, with shape keys, an arm raised and the spine
    twisted; a Rigify horse from the Horse metarig, weighted so, with shape
    keys (one keyed, one masked), 25 controls turned at random (its rest
    matrices off orthonormal by up to 1.5e-5: Preserve Volume within 2e-6);
  - Preserve Volume's rule for a bone's scale (kept past 1e-5, dropped
    below: stretches of 1 + 4.5e-6, 6e-6 and 2e-5, within 5e-7);
  - modifiers above the Armature modifier: Mirror (the vertex groups
    flipped) in an asymmetric pose; Solidify with a keyed thickness and a
    keyed shape key; a Data Transfer giving the weights from a proxy, still
    or deformed by the armature; one added while bound; Apply with them (Blender's
    result and note); GPU mode; no helper saved or left behind.
Where Linear and Preserve Volume both apply, Blend too: bound by a group of
weight 1 on half the vertices and 0 on the others, each must be Preserve
Volume's or Linear's (1 on all of them where a modifier below makes more).
Prints "blender-rigs: N passed, N failed".

  blender -b --factory-startup --python-exit-code 1 --python addon_rigs.py -- ADDON.zip
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arm_scene  # noqa: E402
from arm_scene import check, coords, evaluated, finish, install_addon, numpy, world  # noqa: E402

import bpy  # noqa: E402
from mathutils import Euler, Matrix, Vector  # noqa: E402

TOLERANCE = 1e-5
FRAMES = (1, 5, 9, 13, 17, 20)
worst_of = {}  # setup -> the largest difference over the diagonal, for the summary


def keyed_0_to_1(key):
    """A shape key's value keyed from 0 at frame 1 to 1 at frame 20."""
    for value, frame in ((0.0, 1), (1.0, 20)):
        key.value = value
        key.keyframe_insert("value", frame=frame)


def armature(name, bones, matrix=None):
    """bones: [(name, head, tail, parent)]; an armature object in the scene (arm_scene.armature)."""
    return arm_scene.armature(name, bones, matrix, connect=True, rotation_mode="XYZ")


def chain(name, count, length=1.0, matrix=Matrix()):
    return armature(name, [(f"b{i}", (i * length, 0, 0), ((i + 1) * length, 0, 0), f"b{i - 1}" if i else None)
                           for i in range(count)], matrix)


def key_pose(arm, keys):
    """keys: {bone: [(frame, euler degrees)]}; rotations keyed, linear in between."""
    for bone, frames in keys.items():
        pb = arm.pose.bones[bone]
        for frame, degrees in frames:
            pb.rotation_euler = [math.radians(d) for d in degrees]
            pb.keyframe_insert("rotation_euler", frame=frame)


def tube(name, length, radius, rings, segments, matrix=Matrix()):
    """A closed-ring cylinder along +X from 0 to `length`, object `name`."""
    verts = [(length * i / (rings - 1), radius * math.cos(2 * math.pi * j / segments),
              radius * math.sin(2 * math.pi * j / segments)) for i in range(rings) for j in range(segments)]
    faces = [(i * segments + j, i * segments + (j + 1) % segments, (i + 1) * segments + (j + 1) % segments,
              (i + 1) * segments + j) for i in range(rings - 1) for j in range(segments)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.matrix_world = matrix
    return obj


def weigh_along(obj, names, length, blend=0.3, skip=None):
    """Groups `names`, one per bone of `length` along +X, blended over `blend` at each joint;
    vertices for which skip(x) holds are left out of every group."""
    groups = [obj.vertex_groups.new(name=n) for n in names]
    for v in obj.data.vertices:
        x = v.co.x
        if skip and skip(x):
            continue
        for i, g in enumerate(groups):
            lo, hi = i * length, (i + 1) * length
            w = min(1.0, max(0.0, (x - (lo - blend / 2)) / blend)) if i else 1.0
            if i < len(groups) - 1:
                w *= min(1.0, max(0.0, ((hi + blend / 2) - x) / blend))
            if w > 0:
                g.add([v.index], w, "REPLACE")
    return groups


def attach(obj, arm, **settings):
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    for k, v in settings.items():
        setattr(mod, k, v)
    return mod


def diagonal(obj):
    co = world(obj, coords(obj))
    return float(numpy.linalg.norm(co.max(axis=0) - co.min(axis=0)))


def frames_of(obj):
    """World coordinates of the evaluated mesh at each of FRAMES."""
    out = []
    for f in FRAMES:
        bpy.context.scene.frame_set(f)
        out.append(world(obj, evaluated(obj)))
    return out


def activate(obj):
    for o in bpy.context.selected_objects:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def operator(op):
    """An operator's result and its error report (a script sees ERROR reports as RuntimeError)."""
    try:
        return op(), ""
    except RuntimeError as e:
        return {"CANCELLED"}, str(e)


def follows(label, obj, methods=("LINEAR", "DQS"), blend=True):
    """Bound, obj's evaluated mesh is the modifier's at every frame, for each method (Preserve
    Volume off and on); Unbind gives the modifier and the rest mesh back. `blend`: Blend checked
    too, where both methods are."""
    mod = obj.modifiers.get("Armature")
    held = mod.object if mod is not None else None
    size = diagonal(obj)
    rest = coords(obj).copy()
    wants = {}
    for method in methods:
        if mod is not None:
            mod.use_deform_preserve_volume = method == "DQS"
        want = wants[method] = frames_of(obj)
        moved = max(float(numpy.abs(w - want[0]).max()) for w in want)
        bpy.context.scene.frame_set(1)
        activate(obj)
        result, report = operator(bpy.ops.skn.bind)
        if not check(f"{label} {method}: Bind", result == {"FINISHED"} and obj.skn.bound, report or obj.skn.error):
            continue
        check(f"{label} {method}: Bind takes the modifier's method", obj.skn.method == method, obj.skn.method)
        got = frames_of(obj)
        worst = max(float(numpy.linalg.norm(g - w, axis=1).max()) for g, w in zip(got, want)) / size
        worst_of[f"{label} {method}"] = worst
        check(f"{label} {method}: the modifier's mesh at frames {FRAMES[0]}-{FRAMES[-1]}",
              worst <= TOLERANCE and moved > 1e-3 * size, f"worst {worst:.2e} of the diagonal (moved {moved:.3g})")
        check(f"{label} {method}: the mesh itself stays at rest while bound", numpy.array_equal(coords(obj), rest))
        check(f"{label} {method}: skn holds the modifier's Object while bound",
              mod is None or (mod.object is None and obj.skn.modifier_object == held))
        bpy.ops.skn.unbind()
        back = frames_of(obj)
        check(f"{label} {method}: Unbind gives the modifier back",
              not obj.skn.bound and "skn" not in obj.modifiers and obj.skn.stack_offsets is None and
              not [n for n in helpers_left() if n.startswith(obj.name + " (skn ")] and
              max(float(numpy.abs(b - w).max()) for b, w in zip(back, want)) == 0.0 and
              numpy.array_equal(coords(obj), rest) and (mod is None or mod.object == held) and
              obj.skn.modifier_object is None)
    if blend and "DQS" in wants and "LINEAR" in wants:
        blends(label, obj, wants, size)
    obj.skn.method_chosen = False


def blends(label, obj, wants, size):
    """Blend by a group of weight 1 on the vertices of even index and 0 elsewhere: Dual Quaternion's
    mesh on the first, Linear's on the others (Blender has no Blend; where its b is 0 or 1 it must
    be one of the two)."""
    group = obj.vertex_groups.new(name="skn test blend")
    even = numpy.arange(len(obj.data.vertices)) % 2 == 0
    if len(wants["DQS"][0]) != len(even):  # a modifier below makes more vertices: b = 1 on every one
        even[:] = True
    group.add(numpy.nonzero(even)[0].tolist(), 1.0, "REPLACE")
    group.add(numpy.nonzero(~even)[0].tolist(), 0.0, "REPLACE")
    bpy.context.scene.frame_set(1)
    activate(obj)
    obj.skn.method, obj.skn.blend_group = "BLEND", group.name
    result, report = operator(bpy.ops.skn.bind)
    if check(f"{label} BLEND: Bind", result == {"FINISHED"} and obj.skn.bound, report or obj.skn.error):
        got = frames_of(obj)
        want = wants["DQS"] if even.all() else [numpy.where(even[:, None], d, lin)
                                                for d, lin in zip(wants["DQS"], wants["LINEAR"])]
        worst = max(float(numpy.linalg.norm(g - w, axis=1).max()) for g, w in zip(got, want)) / size
        worst_of[f"{label} BLEND"] = worst
        check(f"{label} BLEND: Dual Quaternion's mesh where b is 1, Linear's where 0",
              worst <= TOLERANCE, f"worst {worst:.2e} of the diagonal")
        bpy.ops.skn.unbind()
    obj.vertex_groups.remove(group)


# ---- the setups ----

def shape_keys():
    arm = chain("KeysRig", 2)
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (100, 0, 70))], "b0": [(1, (0, 0, 0)), (20, (0, 30, 0))]})
    obj = tube("Keys", 2.0, 0.25, 25, 16)
    weigh_along(obj, ["b0", "b1"], 1.0)
    face = obj.vertex_groups.new(name="face")
    for v in obj.data.vertices:
        face.add([v.index], min(1.0, max(0.0, v.co.x - 0.5)), "REPLACE")
    obj.shape_key_add(name="Basis")
    bulge = obj.shape_key_add(name="Bulge", from_mix=False)
    for p in bulge.data:
        s = math.exp(-((p.co.x - 1.0) / 0.3) ** 2)
        p.co = (p.co.x + 0.1 * s, p.co.y * (1 + 0.6 * s), p.co.z * (1 + 0.6 * s))
    keyed_0_to_1(bulge)
    twist = obj.shape_key_add(name="Twist", from_mix=False)
    for p in twist.data:
        a = 0.4 * p.co.x
        p.co = (p.co.x, p.co.y * math.cos(a) - p.co.z * math.sin(a) + 0.05, p.co.y * math.sin(a) + p.co.z * math.cos(a))
    twist.relative_key, twist.vertex_group, twist.value = bulge, "face", 0.6
    muted = obj.shape_key_add(name="Muted", from_mix=False)
    for p in muted.data:
        p.co.z += 1.0
    muted.value, muted.mute = 1.0, True
    attach(obj, arm)
    obj.modifiers.new("Subdivision", "SUBSURF").levels = 1  # runs on skn's result, as on the modifier's
    follows("shape keys", obj)
    return obj


def bbone_chain(label, settings=None):
    arm = chain(label + "Rig", 3)
    for bone, segments in zip(arm.data.bones, (4, 6, 8)):
        bone.bbone_segments = segments
    if settings:
        settings(arm)
    key_pose(arm, {"b0": [(1, (0, 0, 0)), (20, (0, 0, 25))], "b1": [(1, (0, 0, 0)), (20, (30, 0, 60))],
                   "b2": [(1, (0, 0, 0)), (20, (-40, 20, 50))]})
    obj = tube(label, 3.0, 0.2, 61, 12)
    weigh_along(obj, ["b0", "b1", "b2"], 1.0)
    attach(obj, arm)
    follows(label, obj)


def segments_kept():
    """B-Bones whose segments the add-on keeps between frames where nothing they are made of
    moved (rules.Skeleton._segments_posed): a chain of three B-Bones under a root, a custom handle
    bone beside it, a fourth B-Bone b3 under the root and a bone c under b2, neither connected
    (no handle: AUTO takes a connected parent and connected children), and each thing the
    segments are made of moved alone in turn: the whole rig and c (frames 2-5: nothing read
    again), the custom end handle of b1 and b3 itself (6-9: b1 read), b1 scaled
    (10-12: all three, b0's end handle and b2's start handle moving in their frames), b0's roll
    out in the pose, which b1 takes as its
    roll in (Inherit End Roll; 13-15: b0 and b1), b2's own ease (16-18: b2), the root scaled
    (19-20: all four). At every frame the segments the add-on used are those a reading of every
    segment gives then, and the mesh is the modifier's."""
    from skn_blender import rules, state
    arm = armature("KeptRig", [("root", (-1, 0, 0), (0, 0, 0), None), ("b0", (0, 0, 0), (1, 0, 0), "root"),
                               ("b1", (1, 0, 0), (2, 0, 0), "b0"), ("b2", (2, 0, 0), (3, 0, 0), "b1"),
                               ("h", (2.2, 0.6, 0), (2.8, 0.9, 0), "root"), ("b3", (0, -1, 0), (1, -1, 0), "root"),
                               ("c", (3.2, 0.3, 0), (3.6, 0.3, 0), "b2")])
    d = arm.data
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    e = d.edit_bones
    e["b1"].bbone_handle_type_end, e["b1"].bbone_custom_handle_end = "TANGENT", e["h"]
    e["b1"].use_endroll_as_inroll = True
    bpy.ops.object.mode_set(mode="OBJECT")
    for name, n in (("b0", 4), ("b1", 6), ("b2", 8), ("b3", 4)):
        d.bones[name].bbone_segments = n
    d.bones["root"].use_deform = d.bones["h"].use_deform = d.bones["c"].use_deform = False
    p = arm.pose.bones
    key_pose(arm, {"root": [(1, (0, 0, 0)), (5, (20, 10, 30))], "h": [(5, (0, 0, 0)), (9, (40, 0, 30))],
                   "c": [(1, (0, 0, 0)), (5, (0, 30, 40))], "b3": [(5, (0, 0, 0)), (9, (10, 20, 30))]})
    for frame, value in ((1, (0, 0, 0)), (5, (0.5, 0.2, 0))):
        p["root"].location = value
        p["root"].keyframe_insert("location", frame=frame)
    for bone, prop, keys in (("root", "scale", ((18, (1, 1, 1)), (20, (1.3, 1.3, 1.3)))),
                             ("b1", "scale", ((9, (1, 1, 1)), (12, (1, 1.4, 1.2)))),
                             ("b0", "bbone_rollout", ((12, 0.0), (15, 0.8))),
                             ("b2", "bbone_easein", ((15, 0.0), (18, 1.5)))):
        for frame, value in keys:
            setattr(p[bone], prop, value)
            p[bone].keyframe_insert(prop, frame=frame)
    obj = tube("Kept", 3.0, 0.2, 61, 12)
    weigh_along(obj, ["b0", "b1", "b2"], 1.0)
    attach(obj, arm)
    scene = bpy.context.scene
    scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    reads, worst = {}, 0.0
    for f in range(2, 21):
        scene.frame_set(f)
        skeleton = state.bindings[obj.name].skeleton
        reads[f] = skeleton.segments_read
        seen = arm.evaluated_get(bpy.context.evaluated_depsgraph_get())
        used = skeleton._read_posed(seen)  # (what the frame read: nothing moved since)
        worst = max(worst, float(numpy.abs(used - rules.Skeleton(seen)._read_posed(seen)).max()))
    check("B-Bone segments kept: the segments used at frames 2-20 are those read afresh",
          worst <= 2e-6, f"worst {worst:.2e}")
    check("B-Bone segments kept: the whole rig moved, no segment read again (frames 2-5)",
          all(reads[f] == 0 for f in range(2, 6)), str(reads))
    made_of = {**dict.fromkeys(range(6, 10), 1), **dict.fromkeys(range(10, 13), 3), **dict.fromkeys(range(13, 16), 2),
               **dict.fromkeys(range(16, 19), 1), 19: 4, 20: 4}  # (the B-Bones each move makes: the docstring's)
    check("B-Bone segments kept: each of the others moved, only the B-Bones it makes read again",
          all(reads[f] == n for f, n in made_of.items()), str(reads))
    bpy.ops.skn.unbind()
    follows("B-Bone segments kept", obj)


def corrective_keys():
    """B-Bones under shape keys that move a few of their points (corrective keys): a keyed key
    bulging the first joint, one keyed from frame 10 at the far end, one held at 0.5 over the whole
    tube. The split between segments follows the points, so the add-on binds again, as a patch, the
    vertices the moving keys move (core.Patch) and keeps the rig: checked against the modifier, and
    that the patch is those vertices and the rig is not bound again."""
    arm = chain("CorrectiveRig", 3)
    for bone, segments in zip(arm.data.bones, (4, 6, 8)):
        bone.bbone_segments = segments
    key_pose(arm, {"b0": [(1, (0, 0, 0)), (20, (0, 0, 25))], "b1": [(1, (0, 0, 0)), (20, (30, 0, 70))],
                   "b2": [(1, (0, 0, 0)), (20, (-40, 20, 50))]})
    obj = tube("Corrective", 3.0, 0.2, 61, 12)
    weigh_along(obj, ["b0", "b1", "b2"], 1.0)
    obj.shape_key_add(name="Basis")
    moves = {}
    for name, where, lift in (("Bulge", lambda x: abs(x - 1.0) < 0.25, 0.05), ("Tip", lambda x: x > 2.6, 0.1),
                              ("Held", lambda x: True, 0.02)):
        key = obj.shape_key_add(name=name, from_mix=False)
        moves[name] = {i for i, p in enumerate(key.data) if where(p.co.x)}
        for i in moves[name]:
            p = key.data[i]
            p.co.y *= 1.0 + lift / 0.2
            p.co.x += lift
    blocks = obj.data.shape_keys.key_blocks
    keyed_0_to_1(blocks["Bulge"])
    for value, frame in ((0.0, 10), (1.0, 20)):
        blocks["Tip"].value = value
        blocks["Tip"].keyframe_insert("value", frame=frame)
    blocks["Held"].value = 0.5
    mod = attach(obj, arm)
    follows("corrective keys", obj)
    mod.vertex_group = "b0"  # the mask over the patch's skinning (the bulge lies where b0 fades out)
    follows("corrective keys, masked", obj)
    mod.vertex_group = ""
    scene, state = bpy.context.scene, sys.modules["skn_blender.state"]
    scene.frame_set(1)
    activate(obj)
    obj.skn.method = "LINEAR"
    bpy.ops.skn.bind()
    b = state.bindings[obj.name]
    rig = b.rig
    patches = {}
    for frame in (5, 9, 15, 20):
        scene.frame_set(frame)
        patches[frame] = set(b.patch.vertices.tolist()) if b.patch is not None else None
    check("corrective keys: the patch is the vertices the moving keys move (Bulge; Bulge and Tip past frame 10)",
          patches[5] == moves["Bulge"] and patches[9] == moves["Bulge"] and
          patches[15] == moves["Bulge"] | moves["Tip"] and patches[20] == patches[15],
          f"{len(moves['Bulge'])}, {len(moves['Bulge'] | moves['Tip'])} vertices expected; "
          f"{ {f: len(p) if p is not None else None for f, p in patches.items()} }")
    check("corrective keys: the rig itself is not bound again", state.bindings[obj.name].rig is rig)
    bpy.ops.skn.unbind()


def every_bbone_setting(arm):
    """Curve, roll, ease, scale in and out on the bones and keyed in the pose; scale easing;
    handles of each type, with their scale and ease flags."""
    d = arm.data
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    for i, eb in enumerate(d.edit_bones):
        eb.bbone_curveinx, eb.bbone_curveinz = 0.2 - 0.1 * i, 0.1
        eb.bbone_curveoutx, eb.bbone_curveoutz = -0.15, 0.05 * i
        eb.bbone_rollin, eb.bbone_rollout = 0.3, -0.2 + 0.1 * i
        eb.bbone_easein, eb.bbone_easeout = 1.0 + 0.3 * i, 0.7
        eb.bbone_scalein, eb.bbone_scaleout = (1.2, 1.0, 0.9), (0.8, 1.1 + 0.1 * i, 1.3)
        eb.use_scale_easing = i == 1
    b0, b1, b2 = d.edit_bones
    b1.bbone_handle_type_start, b1.bbone_custom_handle_start = "ABSOLUTE", b0
    b1.bbone_handle_type_end, b1.bbone_custom_handle_end = "TANGENT", b2
    b2.bbone_handle_type_start, b2.bbone_custom_handle_start = "RELATIVE", b1
    b1.bbone_handle_use_scale_start = (True, False, True)
    b1.bbone_handle_use_ease_end = True
    b0.use_endroll_as_inroll = True
    bpy.ops.object.mode_set(mode="OBJECT")
    for i, pb in enumerate(arm.pose.bones):
        pb.bbone_curveinx, pb.bbone_rollout, pb.bbone_easein = 0.0, 0.0, 0.0
        for prop in ("bbone_curveinx", "bbone_rollout", "bbone_easein"):
            pb.keyframe_insert(prop, frame=1)
        pb.bbone_curveinx, pb.bbone_rollout, pb.bbone_easein = 0.3, 0.5 - 0.2 * i, 0.8
        pb.bbone_scaleout = (1.0, 1.2, 0.8)
        for prop in ("bbone_curveinx", "bbone_rollout", "bbone_easein"):
            pb.keyframe_insert(prop, frame=20)
        pb.scale = (1.0, 1.0 + 0.1 * i, 1.0)  # a scaled pose bone: Blender's do_scale frame


def mask_group():
    for invert in (False, True):
        arm = chain(f"MaskRig{invert}", 2)
        key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (60, 0, 80))]})
        obj = tube(f"Mask{invert}", 2.0, 0.25, 25, 12)
        weigh_along(obj, ["b0", "b1"], 1.0)
        mask = obj.vertex_groups.new(name="mask")
        for v in obj.data.vertices:
            if v.co.x > 0.8:
                mask.add([v.index], min(1.0, (v.co.x - 0.8) * 1.5), "REPLACE")
        attach(obj, arm, vertex_group="mask", invert_vertex_group=invert)
        follows("mask inverted" if invert else "mask", obj)


def envelopes():
    def rig(name):
        arm = chain(name + "Rig", 3)
        bones = arm.data.bones
        bones["b0"].envelope_distance, bones["b0"].head_radius, bones["b0"].tail_radius = 0.3, 0.15, 0.1
        bones["b1"].envelope_distance, bones["b1"].envelope_weight = 0.25, 0.7
        bones["b2"].envelope_distance, bones["b2"].tail_radius = 0.4, 0.2
        key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (40, 0, 70))], "b2": [(1, (0, 0, 0)), (20, (0, 50, 30))]})
        return arm

    arm = rig("EnvOnly")
    obj = tube("EnvOnly", 3.0, 0.25, 37, 12)
    attach(obj, arm, use_vertex_groups=False, use_bone_envelopes=True)
    follows("envelopes only", obj)

    arm = rig("EnvGroupsOff")
    obj = tube("EnvGroupsOff", 3.0, 0.25, 37, 12)
    weigh_along(obj, ["b0", "b1", "b2"], 1.0)
    attach(obj, arm, use_vertex_groups=False, use_bone_envelopes=True)
    follows("envelopes, groups off", obj)

    arm = rig("EnvFallback")
    arm.data.bones["b1"].use_envelope_multiply = True
    arm.data.bones["b0"].use_deform = False  # its group is no deform bone's: vertices fall back
    obj = tube("EnvFallback", 3.0, 0.25, 37, 12)
    weigh_along(obj, ["b0", "b1", "b2"], 1.0, skip=lambda x: x > 2.6)  # an unweighted tip
    attach(obj, arm, use_vertex_groups=True, use_bone_envelopes=True)
    follows("groups and envelopes, unweighted tip", obj)

    arm = rig("EnvNothing")
    obj = tube("EnvNothing", 3.0, 0.25, 13, 8)
    obj.location = (0, 5, 0)  # outside every envelope
    attach(obj, arm, use_vertex_groups=False, use_bone_envelopes=True)
    activate(obj)
    result, report = operator(bpy.ops.skn.bind)
    check("envelopes that reach no vertex: Bind refused, saying envelopes",
          result == {"CANCELLED"} and "envelope" in report and not obj.skn.bound, report)


def two_modifiers():
    arm, other = chain("FirstRig", 2), chain("SecondRig", 2)
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (0, 0, 70))]})
    key_pose(other, {"b0": [(1, (0, 0, 0)), (20, (30, 0, 10))]})
    obj = tube("TwoMods", 2.0, 0.25, 25, 12)
    weigh_along(obj, ["b0", "b1"], 1.0)
    attach(obj, arm)
    second = obj.modifiers.new("Armature.001", "ARMATURE")
    second.object = other
    follows("two Armature modifiers", obj)


def multi_modifier():
    """A Multi Modifier after the Armature modifier: another armature, moving otherwise, deforms
    the first one's input and is mixed in by its mask group (the share of the first one's result
    kept; vertices past x = 1.6 are in no group: the second armature's alone), plain with Preserve
    Volume off and inverted with it on. Bind switches both modifiers off, Unbind gives both back."""
    arm, other = chain("MultiRig", 2), chain("MultiRig2", 2)
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (0, 0, 60))]})
    key_pose(other, {"b0": [(1, (0, 0, 0)), (20, (30, 0, 0))], "b1": [(1, (0, 0, 0)), (20, (0, 45, 0))]})
    for invert in (False, True):
        obj = tube(f"Multi{' inverted' if invert else ''}", 2.0, 0.25, 13, 8)
        weigh_along(obj, ["b0", "b1"], 1.0)
        keep = obj.vertex_groups.new(name="keep")
        for v in obj.data.vertices:
            if v.co.x < 1.6:
                keep.add([v.index], min(1.0, v.co.x / 1.6), "REPLACE")
        attach(obj, arm)
        multi = obj.modifiers.new("Armature.001", "ARMATURE")
        multi.object, multi.use_multi_modifier = other, True
        multi.vertex_group, multi.invert_vertex_group, multi.use_deform_preserve_volume = "keep", invert, invert
        label = f"Multi Modifier{', inverted' if invert else ''}"
        follows(label, obj)
        activate(obj)
        bpy.ops.skn.bind()
        check(f"{label}: Bind switches the Multi modifier off too",
              not multi.show_viewport and not multi.show_render and obj.skn.bound)
        obj.skn.mode = "GPU"
        check(f"{label}: GPU mode says it skins on the CPU", "Multi Modifier" in obj.skn.error, obj.skn.error)
        obj.skn.mode = "CPU"
        bpy.ops.skn.unbind()
        check(f"{label}: Unbind gives it back", multi.show_viewport and multi.show_render and not obj.skn.multi_saved)
    # Apply keeps the shape of the chain skn stood in for and removes both modifiers
    bpy.context.scene.frame_set(13)
    want, size = evaluated(obj).copy(), diagonal(obj)
    bpy.ops.skn.bind()
    bpy.ops.skn.apply()
    worst = float(numpy.linalg.norm(coords(obj) - want, axis=1).max()) / size
    check("Multi Modifier: Apply keeps the chain's shape and removes both modifiers",
          worst <= TOLERANCE and not obj.skn.bound and not any(m.type == "ARMATURE" for m in obj.modifiers) and
          not obj.skn.multi_saved and obj.skn.modifier_object is None, f"worst {worst:.2e} of the diagonal")
    # one without a mask group keeps the first one's result whole, but only with its input: switched off too
    obj = tube("Multi without a group", 2.0, 0.25, 13, 8)
    weigh_along(obj, ["b0", "b1"], 1.0)
    attach(obj, arm)
    multi = obj.modifiers.new("Armature.001", "ARMATURE")
    multi.object, multi.use_multi_modifier = other, True
    follows("Multi Modifier without a mask group", obj, methods=("LINEAR",))


def moving_objects():
    # an armature under an animated Empty; the mesh not parented
    empty = bpy.data.objects.new("Mover", None)
    bpy.context.scene.collection.objects.link(empty)
    for frame, loc, rot, scale in ((1, (0, 0, 0), (0, 0, 0), 1.0), (20, (0.7, -0.4, 0.3), (0.3, 0.5, 1.1), 1.4)):
        empty.location, empty.rotation_euler, empty.scale = loc, rot, (scale,) * 3
        for prop in ("location", "rotation_euler", "scale"):
            empty.keyframe_insert(prop, frame=frame)
    arm = chain("UnderEmptyRig", 2)
    arm.parent = empty
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (50, 0, 60))]})
    obj = tube("UnderEmpty", 2.0, 0.25, 25, 12)
    weigh_along(obj, ["b0", "b1"], 1.0)
    attach(obj, arm)
    follows("armature under an animated Empty", obj)

    # a constrained armature, scaled non-uniformly: the rig in the armature's space
    arm = chain("SquashedRig", 2, matrix=Matrix.LocRotScale(Vector((0.2, 0.1, 0)), Euler((0.2, 0, 0.4)),
                                                            Vector((1.0, 1.6, 0.7))))
    follow = arm.constraints.new("COPY_LOCATION")
    follow.target, follow.use_offset = empty, True
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (0, 40, 80))]})
    obj = tube("Squashed", 2.0, 0.25, 25, 12, matrix=Matrix.Rotation(0.3, 4, "Y"))
    weigh_along(obj, ["b0", "b1"], 1.0)
    attach(obj, arm)
    follows("armature constrained, scaled non-uniformly", obj)

    # parent type Armature, the armature moving, a parent inverse of its own
    arm = chain("ParentRig", 2)
    for frame, loc in ((1, (0, 0, 0)), (20, (0.5, 1.0, -0.3))):
        arm.location = loc
        arm.keyframe_insert("location", frame=frame)
    arm.rotation_euler = (0, 0, 0.4)
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (0, 0, 90))]})
    obj = tube("ArmatureParent", 2.0, 0.25, 25, 12)
    weigh_along(obj, ["b0", "b1"], 1.0)
    obj.parent, obj.parent_type = arm, "ARMATURE"
    inverse = Matrix.LocRotScale(Vector((0.1, -0.2, 0.05)), Euler((0, 0, -0.4)), Vector((1, 1, 1)))
    obj.matrix_parent_inverse = inverse
    follows("parent type Armature, the armature moving", obj, methods=("LINEAR",))
    check("parent type Armature: Unbind keeps the parent inverse",
          obj.parent_type == "ARMATURE" and numpy.allclose(numpy.array(obj.matrix_parent_inverse), numpy.array(inverse)))


def scaled_to_0():
    """Objects scaled to 0, as animators hide a character or pop it in: the armature object keyed
    to scale 0 at frames 9-13 (a B-Bone among its bones), the mesh under an Empty flattened to 0
    along an axis there (the mesh turned: a row of zeros in its matrix, not a column), and an
    armature parent (parent type Armature) scaled to 0 with its mesh. Blender's modifier takes
    premat, the inverse of object^-1 * armature, as the zero matrix where there is none (Eigen's
    inverse; the vertices deformed as the armature's origin, then taken back by postmat); the
    add-on took numpy's, which refused the frame ("Singular matrix" in the panel, the last frame's
    mesh shown: 1.2-2.0 off)."""
    def to_0_and_back(target, zero):
        for frame, scale in ((1, (1, 1, 1)), (9, zero), (13, zero), (20, (1, 1, 1))):
            target.scale = scale
            target.keyframe_insert("scale", frame=frame)

    arm = chain("ShrunkRig", 3)
    arm.data.bones["b1"].bbone_segments = 4
    to_0_and_back(arm, (0, 0, 0))
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (30, 0, 60))], "b2": [(1, (0, 0, 0)), (20, (0, 20, -50))]})
    obj = tube("Shrunk", 3.0, 0.25, 31, 12, matrix=Matrix.Translation((0.1, 0.3, 0.0)))
    weigh_along(obj, ["b0", "b1", "b2"], 1.0)
    attach(obj, arm)
    follows("the armature scaled to 0 at frames 9-13", obj)

    empty = bpy.data.objects.new("Flattener", None)
    bpy.context.scene.collection.objects.link(empty)
    to_0_and_back(empty, (1, 0, 1))
    arm = chain("FlatRig", 2)
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (50, 0, 60))]})
    obj = tube("Flattened", 2.0, 0.25, 25, 12, matrix=Matrix.Rotation(0.5, 4, "Z"))
    obj.parent = empty
    weigh_along(obj, ["b0", "b1"], 1.0)
    attach(obj, arm)
    follows("the mesh flattened to 0 along an axis at frames 9-13, turned", obj)

    arm = chain("ShrunkParentRig", 2)
    to_0_and_back(arm, (0, 0, 0))
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (0, 0, 90))]})
    obj = tube("ShrunkChild", 2.0, 0.25, 25, 12)
    weigh_along(obj, ["b0", "b1"], 1.0)
    obj.parent, obj.parent_type = arm, "ARMATURE"
    follows("parent type Armature, scaled to 0 with its mesh at frames 9-13", obj, methods=("LINEAR",))


def negative_scale():
    """Objects scaled -1 on an axis, as a mirrored copy of a character is: the mesh, the armature,
    and both (non-uniformly), each at the modifier's mesh."""
    cases = (("mesh scaled -1 in x", Matrix(), Matrix.LocRotScale(Vector((0.3, 0, 0)), Euler((0, 0, 0.2)),
                                                                 Vector((-1, 1, 1)))),
             ("armature scaled -1 in x", Matrix.LocRotScale(Vector((0, 0.2, 0)), Euler((0.1, 0, 0)), Vector((-1, 1, 1))),
              Matrix()),
             ("both scaled -1, non-uniformly", Matrix.LocRotScale(Vector((0, 0.2, 0)), Euler((0.1, 0, 0)),
                                                                  Vector((-1, 1.3, 1))),
              Matrix.LocRotScale(Vector((0.3, 0, 0)), Euler((0, 0.3, 0.2)), Vector((1, -0.8, 1)))))
    for i, (label, arm_matrix, mesh_matrix) in enumerate(cases):
        arm = chain(f"MirroredRig{i}", 2, matrix=arm_matrix)
        key_pose(arm, {"b0": [(1, (0, 0, 0)), (20, (20, 0, 10))], "b1": [(1, (0, 0, 0)), (20, (50, 0, 60))]})
        obj = tube(f"MirroredCopy{i}", 2.0, 0.25, 25, 12, matrix=mesh_matrix)
        weigh_along(obj, ["b0", "b1"], 1.0)
        attach(obj, arm)
        follows(label, obj)


def zero_scale():
    """Bones scaled to 0, as animators hide a part of a character (a prop, a second pair of eyes):
    a bone shrinking to 0 and back (its children with it, a B-Bone among them), a B-Bone shrinking
    to 0, the last bone at 0 throughout. Blender's Preserve Volume takes a zero matrix as no
    rotation and a zero scale, as skn's split does."""
    arm = chain("ZeroRig", 5)
    arm.data.bones["b3"].bbone_segments = 4
    for bone, frames in {"b1": [(1, 1.0), (9, 0.0), (13, 0.0), (20, 1.0)], "b3": [(1, 1.0), (17, 0.0)]}.items():
        for frame, s in frames:
            arm.pose.bones[bone].scale = (s, s, s)
            arm.pose.bones[bone].keyframe_insert("scale", frame=frame)
    arm.pose.bones["b4"].scale = (0.0, 0.0, 0.0)
    key_pose(arm, {"b0": [(1, (0, 0, 0)), (20, (30, 0, 40))], "b2": [(1, (0, 0, 0)), (20, (0, 50, 0))]})
    obj = tube("ZeroScaled", 5.0, 0.25, 51, 12)
    weigh_along(obj, [f"b{i}" for i in range(5)], 1.0)
    attach(obj, arm)
    follows("bones scaled to 0", obj)


def flattened():
    """A bone scaled to 0 along one axis, a B-Bone child flattened with it: Blender's B-Bone spline
    then divides by that scale through a matrix inverse that does not exist, which Blender takes as
    the zero matrix, and the modifier moves the B-Bone's points to the armature's origin (Linear).
    Preserve Volume splits such a joint by the quaternion of a matrix with a zero column, which no
    split skn defines (skn_dqs_scale): where those points share weight with another bone skn's
    mesh is not Blender's (docs/blender.md), so Preserve Volume is held only where they do not.
    Flattened along its length instead, the B-Bone below has segments that are not numbers in
    Blender, and the modifier leaves its points without a position: skn leaves the same."""
    arm = chain("FlatRig", 4)
    arm.data.bones["b2"].bbone_segments = 4
    arm.pose.bones["b1"].scale = (0.0, 1.0, 1.0)
    key_pose(arm, {"b0": [(1, (0, 0, 0)), (20, (30, 0, 40))], "b1": [(1, (0, 0, 0)), (20, (0, 50, 0))]})
    obj = tube("Flattened", 4.0, 0.25, 41, 12)
    weigh_along(obj, [f"b{i}" for i in range(4)], 1.0)
    mod = attach(obj, arm)
    follows("a bone flattened to 0", obj, methods=("LINEAR",))
    mod.use_deform_preserve_volume = True
    alone = numpy.array([len(v.groups) == 1 for v in obj.data.vertices])
    want = frames_of(obj)
    activate(obj)
    bpy.context.scene.frame_set(1)
    result, report = operator(bpy.ops.skn.bind)
    if check("a bone flattened to 0 DQS: Bind", result == {"FINISHED"} and obj.skn.bound, report or obj.skn.error):
        got = frames_of(obj)
        worst = max(float(numpy.linalg.norm(g[alone] - w[alone], axis=1).max()) for g, w in zip(got, want))
        worst /= diagonal(obj)
        worst_of["a bone flattened to 0 DQS, points of one bone"] = worst
        check(f"a bone flattened to 0 DQS: the modifier's mesh at the {int(alone.sum())} points of one bone",
              worst <= TOLERANCE, f"worst {worst:.2e} of the diagonal")
        bpy.ops.skn.unbind()
    for frame, s in ((1, 1.0), (9, 0.0), (13, 0.0), (20, 1.0)):  # flattened along its length at 9-13
        arm.pose.bones["b1"].scale = (1.0, s, 1.0)
        arm.pose.bones["b1"].keyframe_insert("scale", frame=frame)
    for method in ("LINEAR", "DQS"):
        mod.use_deform_preserve_volume = method == "DQS"
        want = frames_of(obj)
        lost = [numpy.isnan(w).any(axis=1) for w in want]
        activate(obj)
        bpy.context.scene.frame_set(1)
        result, report = operator(bpy.ops.skn.bind)
        got = frames_of(obj)
        same = all(numpy.array_equal(numpy.isnan(g).any(axis=1), n) for g, n in zip(got, lost))
        worst = max(float(numpy.linalg.norm(g[~n] - w[~n], axis=1).max()) for g, w, n in zip(got, want, lost))
        worst /= diagonal(obj)
        check(f"a bone flattened along its length at frames 9-13 {method}: the B-Bone below's points have no "
              "position there, as the modifier leaves them, and the rest of the mesh is the modifier's",
              result == {"FINISHED"} and same and sum(int(n.sum()) for n in lost) > 0 and worst <= TOLERANCE,
              f"{report} {[int(n.sum()) for n in lost]} lost by the modifier, "
              f"{[int(numpy.isnan(g).any(axis=1).sum()) for g in got]} by skn; worst {worst:.2e} of the diagonal")
        bpy.ops.skn.unbind()


def failing_poses():
    """A pose skn cannot take (set_pose made to fail, as it fails for a pose that is not numbers):
    at Bind's first frame Bind is refused and the modifier left as it was; at a later frame the
    panel says why, and the message goes at the next frame skinned."""
    core = sys.modules["skn_blender.core"]
    arm = chain("FailRig", 2)
    key_pose(arm, {"b1": [(1, (0, 0, 0)), (20, (0, 0, 60))]})
    obj = tube("Failing", 2.0, 0.25, 21, 8)
    weigh_along(obj, ["b0", "b1"], 1.0)
    mod = attach(obj, arm)
    want = frames_of(obj)
    real = core.Binding.set_pose

    def failing(*_, **__):
        raise ValueError("a pose skn cannot take (the test's)")
    bpy.context.scene.frame_set(1)
    activate(obj)
    core.Binding.set_pose = failing
    try:
        result, report = operator(bpy.ops.skn.bind)
    finally:
        core.Binding.set_pose = real
    check("a Bind whose first frame fails is refused, the modifier left as it was",
          result == {"CANCELLED"} and "the test's" in report and not obj.skn.bound and mod.object == arm and
          "skn" not in obj.modifiers and not [n for n in helpers_left() if n.startswith(obj.name + " (skn ")],
          report)
    result, report = operator(bpy.ops.skn.bind)
    core.Binding.set_pose = failing
    try:
        bpy.context.scene.frame_set(9)
        said = obj.skn.error
    finally:
        core.Binding.set_pose = real
    bpy.context.scene.frame_set(20)
    worst = float(numpy.linalg.norm(world(obj, evaluated(obj)) - want[-1], axis=1).max()) / diagonal(obj)
    check("a frame skn cannot pose: the panel says why there, the message gone at the next frame skinned",
          result == {"FINISHED"} and "the test's" in said and obj.skn.error == "" and worst <= TOLERANCE,
          f"{said!r}, then {obj.skn.error!r}; worst {worst:.2e} of the diagonal")
    bpy.ops.skn.unbind()


def rigify_human():
    """A Rigify human from the Human metarig: a body of metaball capsules along its trunk and
    limbs, weighted With Automatic Weights, given two shape keys; an arm raised, the spine
    twisted."""
    bpy.ops.preferences.addon_enable(module="rigify")
    bpy.ops.object.armature_human_metarig_add()
    meta = bpy.context.object
    body = arm_scene.metaball_body(meta, 0.035)
    activate(meta)
    bpy.ops.pose.rigify_generate()
    rig = bpy.data.objects["rig"]
    bpy.ops.object.mode_set(mode="OBJECT")
    activate(body)
    rig.select_set(True)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    deform = [b for b in rig.data.bones if b.use_deform]
    curved = sum(b.bbone_segments > 1 for b in deform)
    check("Rigify human: generated with B-Bones among its deform bones", curved > 10 and len(deform) > 100,
          f"{len(deform)} deform bones, {curved} with segments")
    body.shape_key_add(name="Basis")
    belly = body.shape_key_add(name="Belly", from_mix=False)
    for p in belly.data:
        if 0.9 < p.co.z < 1.2:
            p.co.y -= 0.04 * math.exp(-((p.co.z - 1.05) / 0.08) ** 2)
    keyed_0_to_1(belly)
    shrug = body.shape_key_add(name="Shrug", from_mix=False)
    for p in shrug.data:
        p.co.z += 0.02 if p.co.z > 1.3 else 0.0
    shrug.value = 0.5
    pose = rig.pose.bones
    for frame, amount in ((1, 0.0), (20, 1.0)):
        pose["upper_arm_fk.L"].rotation_mode = "XYZ"
        pose["upper_arm_fk.L"].rotation_euler = (0, 0, math.radians(-80) * amount)
        pose["torso"].rotation_mode = "XYZ"
        pose["chest"].rotation_mode = "XYZ"
        pose["chest"].rotation_euler = (0, math.radians(35) * amount, 0)
        pose["upper_arm_parent.L"]["IK_FK"] = 1.0  # the arm follows its FK controls
        for name in ("upper_arm_fk.L", "chest"):
            pose[name].keyframe_insert("rotation_euler", frame=frame)
    follows("Rigify human", body)
    dressed(rig, body)


def rigify_horse():
    """A Rigify horse from the Horse metarig: a body of metaball capsules along every bone,
    weighted With Automatic Weights, two shape keys (one keyed, one masked by a group), 25 of its
    controls keyed to random turns. Its generated rest matrices are off orthonormal by up to
    1.5e-5 (float rounding down its long chains), which Blender's Preserve Volume keeps in the
    dual quaternion's rotation and drops (rules.preserve_volume_matrices): before skn applied
    that rule and kept the scale its stretched segments have (|A^T A - I| up to 4.7e-5, which
    skn took as a rotation below 1e-4), Preserve Volume was 1.2e-5 of the horse off Blender's;
    it must be within 2e-6 now, and Blend's Dual Quaternion end with it (one pose served both of
    Blend's ends, the Linear end's D: 1.1e-5 off where b is 1)."""
    import random
    bpy.ops.preferences.addon_enable(module="rigify")
    bpy.ops.object.armature_horse_metarig_add()
    meta = bpy.context.object
    balls = bpy.data.metaballs.new("Horse")
    balls.resolution = balls.render_resolution = 0.03
    shape = bpy.data.objects.new("Horse", balls)
    bpy.context.scene.collection.objects.link(shape)
    for b in meta.data.bones:
        if b.length >= 0.02:
            e = balls.elements.new(type="CAPSULE")
            e.co, e.radius, e.size_x = (b.head_local + b.tail_local) / 2, max(0.04, 0.25 * b.length), b.length / 2
            e.rotation = Vector((1, 0, 0)).rotation_difference((b.tail_local - b.head_local).normalized())
    activate(shape)
    bpy.ops.object.convert(target="MESH")
    body = bpy.context.object
    activate(meta)
    bpy.ops.pose.rigify_generate()
    rig = meta.data.rigify_target_rig
    bpy.ops.object.mode_set(mode="OBJECT")
    activate(body)
    rig.select_set(True)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    meta.hide_set(True)
    body.shape_key_add(name="Basis")
    top = max(v.co.z for v in body.data.vertices)
    for name in ("Puff", "Masked"):
        key = body.shape_key_add(name=name, from_mix=False)
        for p in key.data:
            p.co.x *= 1.05
            p.co.z += 0.03 if p.co.z > 0.6 * top else 0.0
    keyed_0_to_1(body.data.shape_keys.key_blocks["Puff"])
    mask = body.vertex_groups.new(name="mask")
    mask.add(list(range(0, len(body.data.vertices), 3)), 0.7, "REPLACE")
    masked = body.data.shape_keys.key_blocks["Masked"]
    masked.vertex_group, masked.value = "mask", 0.6
    turn = random.Random(4)
    controls = [pb for pb in rig.pose.bones if not pb.name.startswith(("DEF", "ORG", "MCH", "VIS")) and
                not pb.bone.hide]
    turn.shuffle(controls)
    for pb in controls[:25]:
        pb.rotation_mode = "XYZ"
        for frame in (1, 10, 20):
            pb.rotation_euler = [turn.uniform(-0.5, 0.5) for _ in range(3)] if frame > 1 else (0, 0, 0)
            pb.keyframe_insert("rotation_euler", frame=frame)
    follows("Rigify horse", body)
    worst = worst_of.get("Rigify horse DQS", math.inf)
    check("Rigify horse DQS: Blender's Preserve Volume of not-quite-orthonormal rest matrices, within 2e-6",
          worst <= 2e-6, f"worst {worst:.2e} of the diagonal")
    worst = worst_of.get("Rigify horse BLEND", math.inf)  # (its ends posed apart: Binding.split_blend)
    check("Rigify horse BLEND: Preserve Volume's mesh where b is 1 as Blender's, within 2e-6",
          worst <= 2e-6, f"worst {worst:.2e} of the diagonal")
    blend_palette("Rigify horse", body)


def blend_palette(label, obj):
    """GPU mode's Blend palette where Preserve Volume's matrices are not D's: its dual quaternions
    (and S_i) GPU mode's Preserve Volume palette, its matrices (and N_i) GPU mode's Linear one, so
    that each end draws as that mode does."""
    core = sys.modules["skn_blender.core"]
    group = obj.vertex_groups.new(name="skn test palette")
    group.add(list(range(len(obj.data.vertices))), 0.5, "REPLACE")
    bpy.context.scene.frame_set(10)
    arm, _ = core.find_armature(obj)
    b = core.Binding(obj, blend_group=group.name, normals=True)
    palettes = {"BLEND": b.gpu_palette(b.set_pose(arm, "BLEND", obj))}
    split = b.split_blend
    for method in ("DQS", "LINEAR"):
        palettes[method] = b.gpu_palette(b.set_pose(arm, method, obj))
    dual = palettes["DQS"].shape[1]
    check(f"{label} BLEND: GPU mode's palette holds Preserve Volume's dual quaternions and Linear's matrices",
          split and numpy.array_equal(palettes["BLEND"][:, :dual], palettes["DQS"]) and
          numpy.array_equal(palettes["BLEND"][:, dual:], palettes["LINEAR"]),
          f"ends posed apart: {split}; dual quaternions off by "
          f"{float(numpy.abs(palettes['BLEND'][:, :dual] - palettes['DQS']).max()):.2e}")
    obj.vertex_groups.remove(group)


def quaternions_as_blenders():
    """rules.blender_quaternions against Blender's own Matrix.to_quaternion (mat3_to_quat): 400
    rotations, a quarter near a half turn about each axis and about none (each branch of its
    choice), each scaled and sheared by up to 1e-4, the way a not-quite-orthonormal deform matrix
    is: the same quaternions within 1e-6 (Blender's are float)."""
    from mathutils import Quaternion
    from skn_blender import rules
    rng = numpy.random.default_rng(11)
    mats = []
    for i in range(400):
        axis = numpy.eye(3)[i % 3] if i % 4 < 3 else rng.normal(size=3)
        angle = math.pi - rng.uniform(0, 0.3) if i % 4 < 3 else rng.uniform(-math.pi, math.pi)
        r = numpy.array(Quaternion(axis, angle).to_matrix())
        mats.append(r @ (numpy.eye(3) + rng.uniform(-1e-4, 1e-4, (3, 3))))
    mats = numpy.array(mats, numpy.float32).astype(numpy.float64)
    ours = rules.blender_quaternions(mats)
    theirs = numpy.array([tuple(Matrix(m.tolist()).to_quaternion()) for m in mats])
    worst = float(numpy.abs(ours - theirs).max())
    check("Preserve Volume's quaternions: Blender's mat3_to_quat, branch for branch", worst <= 1e-6,
          f"worst {worst:.2e} over {len(mats)} matrices")


def preserve_volume_scale_rule():
    """Blender's Preserve Volume keeps a bone's scale only past 1e-5 (its deform matrix's columns
    not orthonormal to 1e-5): a bone 10 long stretched by 1 + 4.5e-6 (dropped), 1 + 6e-6 and
    1 + 2e-5 (kept), held from frames 5, 9 and 13, turning 40 degrees over the frames; its far end
    moves by 4.5e-5 between the two rules, 4.5e-6 of the tube, so Preserve Volume must be within
    5e-7 here."""
    arm = armature("ScaleRule", [("b0", (0, 0, 0), (10, 0, 0), None)])
    pb = arm.pose.bones["b0"]
    for frame, stretch in ((1, 0.0), (5, 4.5e-6), (9, 6e-6), (13, 2e-5)):
        pb.scale = (1.0, 1.0 + stretch, 1.0)
        pb.keyframe_insert("scale", frame=frame)
    for fc in arm.animation_data.action.fcurves:
        for point in fc.keyframe_points:
            point.interpolation = "CONSTANT"
    key_pose(arm, {"b0": [(1, (0, 0, 0)), (20, (0, 0, 40))]})  # (turning too: it moves)
    obj = tube("ScaleRule", 10.0, 0.5, 11, 8)
    weigh_along(obj, ["b0"], 10.0)
    attach(obj, arm)
    follows("Preserve Volume's scale rule", obj, methods=("DQS",))
    worst = worst_of.get("Preserve Volume's scale rule DQS", math.inf)
    check("Preserve Volume's scale rule: kept past 1e-5, dropped below, as Blender", worst <= 5e-7,
          f"worst {worst:.2e} of the diagonal")


def dressed(rig, body):
    """The Rigify human with clothes: a second mesh (the body's copy pushed out 1 cm, no keys) on
    the same armature with its own Armature modifier, both bound. The add-on reads the armature's
    posed segments once a frame for both (rules.Skeleton.posed_joint_matrices); each must still be
    its own modifier's mesh at every frame."""
    cloth = body.copy()
    cloth.data = body.data.copy()
    cloth.name = cloth.data.name = "Rigify clothes"
    bpy.context.scene.collection.objects.link(cloth)
    cloth.shape_key_clear()
    for v in cloth.data.vertices:
        v.co += 0.01 * v.normal
    for o in (body, cloth):
        o.modifiers["Armature"].use_deform_preserve_volume = False  # (Linear; follows left the body's on)
    want = {o.name: frames_of(o) for o in (body, cloth)}
    bpy.context.scene.frame_set(1)
    for o in (body, cloth):
        activate(o)
        bpy.ops.skn.bind()
    got = {o.name: frames_of(o) for o in (body, cloth)}
    size = diagonal(body)
    worst = max(float(numpy.linalg.norm(g - w, axis=1).max()) for n in want for g, w in zip(got[n], want[n])) / size
    check("Rigify human with clothes, both bound on one armature: each its own modifier's mesh at every frame",
          body.skn.bound and cloth.skn.bound and worst <= TOLERANCE, f"worst {worst:.2e} of the diagonal")
    for o in (body, cloth):
        activate(o)
        bpy.ops.skn.unbind()
    bpy.data.objects.remove(cloth)


def helpers_left():
    """skn's helper objects and meshes (stack.py) still in the file."""
    return [i.name for i in list(bpy.data.objects) + list(bpy.data.meshes) if "(skn " in i.name]


def mirrored_body(name, arm):
    """A tube from x = 0.3 to 2.3 weighted to the .L bones, its .R groups empty: Mirror (above the
    Armature modifier) makes the other half, flipping the groups to .R."""
    obj = tube(name, 2.0, 0.25, 21, 12)
    for v in obj.data.vertices:
        v.co.x += 0.3
    weigh_along(obj, ["b.L", "c.L"], 1.0)
    obj.vertex_groups.new(name="b.R")
    obj.vertex_groups.new(name="c.R")
    obj.modifiers.new("Mirror", "MIRROR")
    attach(obj, arm)
    return obj


def modifiers_above():
    """Modifiers before the Armature modifier: Mirror (twice the vertices, the groups flipped) in
    an asymmetric pose; Solidify with its thickness keyed over Mirror, with a keyed shape key; a
    modifier added above while bound; Apply (Blender's: the mesh itself, the modifiers above left
    out, with its note); GPU mode; the file saved while bound holds no helper; a
    duplicate gets its own; Mirror about an Empty with the mesh moved; the mesh under a moving Empty;
    a Data Transfer of weights from a proxy, still or deformed."""
    bones = [("b.L", (0.3, 0, 0), (1.3, 0, 0), None), ("c.L", (1.3, 0, 0), (2.3, 0, 0), "b.L"),
             ("b.R", (-0.3, 0, 0), (-1.3, 0, 0), None), ("c.R", (-1.3, 0, 0), (-2.3, 0, 0), "b.R")]
    pose = {"b.L": [(1, (0, 0, 0)), (20, (0, 20, 40))], "c.L": [(1, (0, 0, 0)), (20, (30, 0, 50))],
            "b.R": [(1, (0, 0, 0)), (20, (-20, 10, -30))], "c.R": [(1, (0, 0, 0)), (20, (0, -40, 0))]}
    arm = armature("MirrorRig", bones)
    key_pose(arm, pose)
    obj = mirrored_body("Mirrored", arm)
    follows("Mirror above", obj)
    check("Mirror above: Unbind leaves no helper", not helpers_left() and obj.skn.stack_input is None, helpers_left())
    import skn_blender
    try:
        skn_blender.skin_object(obj)
        said = "no error"
    except skn_blender.core.Unsupported as e:
        said = str(e)
    check("skin_object (no input helper) refuses modifiers above, saying how to skin them",
          '"Mirror" comes before "Armature"' in said and "Bind" in said, said)

    # Mirror about an Empty, the mesh moved: its plane is taken in the mesh's space (the helper's
    # place is the mesh's; at the origin, 0.105 of the diagonal off)
    plane = bpy.data.objects.new("MirrorPlane", None)
    bpy.context.scene.collection.objects.link(plane)
    plane.location = (0.05, 0.0, 0.0)
    obj = mirrored_body("Mirrored about an Empty", arm)
    obj.location = (0.2, 0.3, 0.0)
    obj.modifiers["Mirror"].mirror_object = plane
    follows("Mirror above, about an Empty, the mesh moved", obj, methods=("LINEAR",))

    # Mirror above and a keyed key, the mesh under a moving Empty: the input helper placed where the mesh is at each
    # frame, its geometry evaluated again with it (placed alone, Blender left the helper the mesh's own
    # vertices, without Mirror's: the mesh stayed at rest, 1.2 of the diagonal off by frame 20)
    carrier = bpy.data.objects.new("MirrorCarrier", None)
    bpy.context.scene.collection.objects.link(carrier)
    for frame, location, rotation in ((1, (0, 0, 0), (0, 0, 0)), (20, (0.3, -0.4, 0.2), (0.4, 0.0, 0.6))):
        carrier.location, carrier.rotation_euler = location, rotation
        carrier.keyframe_insert("location", frame=frame)
        carrier.keyframe_insert("rotation_euler", frame=frame)
    obj = mirrored_body("Mirrored under a moving Empty", arm)
    obj.parent = carrier
    obj.shape_key_add(name="Basis")
    keyed_0_to_1(obj.shape_key_add(name="Lifted", from_mix=False))
    for p in obj.data.shape_keys.key_blocks["Lifted"].data:
        p.co.z += 0.1 * p.co.x
    follows("Mirror above and a keyed shape key, the mesh under a moving Empty", obj)

    # weights from a proxy: a Data Transfer above gives the mesh, which has its groups but no
    # weight, the proxy's (the helper kept them: Bind found no vertex weighted before); from a proxy
    # the armature deforms too, Blender transfers them again every frame, from the posed proxy
    for deformed in (False, True):
        label = f"a Data Transfer of weights above, from a proxy{' the armature deforms' if deformed else ''}"
        proxy = tube(f"Proxy{int(deformed)}", 2.0, 0.25, 7, 6)
        target = tube(f"Weighted by proxy{int(deformed)}", 2.0, 0.25, 21, 12)
        for o in (proxy, target):
            for v in o.data.vertices:
                v.co.x += 0.3
        weigh_along(proxy, ["b.L", "c.L"], 1.0)
        if deformed:
            attach(proxy, arm)
        for name in ("b.L", "c.L"):
            target.vertex_groups.new(name=name)
        transfer = target.modifiers.new("DataTransfer", "DATA_TRANSFER")
        transfer.object, transfer.use_vert_data = proxy, True
        transfer.data_types_verts, transfer.vert_mapping = {"VGROUP_WEIGHTS"}, "POLYINTERP_NEAREST"
        attach(target, arm)
        follows(label, target, methods=("LINEAR",))

    # a modifier above that renders otherwise than the viewport shows it: followed, and the panel says
    obj = mirrored_body("Subdivided above", arm)
    sub = obj.modifiers.new("Subdivision", "SUBSURF")
    sub.levels, sub.render_levels = 0, 1
    with bpy.context.temp_override(object=obj):
        bpy.ops.object.modifier_move_to_index(modifier=sub.name, index=0)
    follows("Mirror above, Subdivision above at 0 levels (1 in renders)", obj, methods=("LINEAR",))
    bpy.context.scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    check("a modifier above that renders otherwise: the panel says renders take the viewport's",
          obj.skn.bound and '"Subdivision" has 0 levels in the viewport and 1 in renders' in obj.skn.error,
          obj.skn.error)
    bpy.ops.skn.unbind()

    # the input helper's mesh under B-Bones (their split by the input's points) and a Multi modifier
    bent, other = armature("MirrorBent", bones), armature("MirrorOther", bones)
    for bone, segments in zip(bent.data.bones, (4, 6, 4, 6)):
        bone.bbone_segments = segments
    key_pose(bent, pose)
    key_pose(other, {"b.L": [(1, (0, 0, 0)), (20, (40, 0, 0))], "b.R": [(1, (0, 0, 0)), (20, (0, 0, 35))]})
    obj = mirrored_body("Mirrored B-Bones", bent)
    keep = obj.vertex_groups.new(name="keep")
    for v in obj.data.vertices:
        keep.add([v.index], min(1.0, v.co.x / 2.0), "REPLACE")
    multi = obj.modifiers.new("Armature.001", "ARMATURE")
    multi.object, multi.use_multi_modifier, multi.vertex_group = other, True, "keep"
    follows("B-Bones and a Multi Modifier, Mirror above", obj)

    obj = mirrored_body("Solid", arm)
    obj.shape_key_add(name="Basis")
    bulge = obj.shape_key_add(name="Bulge", from_mix=False)
    for p in bulge.data:
        p.co.z += 0.2 * math.exp(-((p.co.x - 1.3) / 0.3) ** 2)
    keyed_0_to_1(bulge)
    solid = obj.modifiers.new("Solidify", "SOLIDIFY")
    with bpy.context.temp_override(object=obj):
        bpy.ops.object.modifier_move_to_index(modifier=solid.name, index=1)
    for value, frame in ((0.02, 1), (0.12, 20)):
        solid.thickness = value
        solid.keyframe_insert("thickness", frame=frame)
    follows("Solidify keyed and Mirror above, a keyed shape key", obj)

    # bound, GPU mode's reason, a save, Apply
    bpy.context.scene.frame_set(12)
    activate(obj)
    bpy.ops.skn.bind()
    obj.skn.mode = "GPU"
    modes, takeover = sys.modules["skn_blender.modes"], sys.modules["skn_blender.takeover"]
    check("modifiers above: GPU mode takes them (the shader draws the input helper's mesh; the skn modifier on)",
          modes.gpu_drawn(obj) and not obj.skn.error and takeover.transport(obj).show_viewport, obj.skn.error)
    obj.skn.mode = "CPU"
    path = os.path.join(bpy.app.tempdir, "skn_above.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
    with bpy.data.libraries.load(path) as (src, _):
        saved = [n for n in list(src.objects) + list(src.meshes) if "(skn " in n]
    check("modifiers above: the file saved while bound holds no helper, and skn takes over again after",
          not saved and obj.skn.bound and obj.skn.stack_input is not None, saved)
    os.remove(path)
    activate(obj)
    bpy.ops.object.duplicate()
    twin = bpy.context.object
    bpy.context.scene.frame_set(8)
    same = numpy.abs(world(twin, evaluated(twin)) - world(obj, evaluated(obj))).max()
    check("modifiers above: a duplicate of the bound mesh follows with helpers of its own",
          twin != obj and twin.skn.bound and same < 1e-6 and twin.skn.stack_input not in (None, obj.skn.stack_input),
          f"{same:.2e}")
    bpy.ops.skn.unbind()
    activate(obj)
    bpy.ops.skn.unbind()

    obj = mirrored_body("Applied", arm)
    twin = obj.copy()
    twin.data = obj.data.copy()
    bpy.context.scene.collection.objects.link(twin)
    bpy.context.scene.frame_set(15)
    activate(twin)
    with bpy.context.temp_override(object=twin):
        bpy.ops.object.modifier_apply(modifier="Armature")
    activate(obj)
    bpy.ops.skn.bind()
    result, report = operator(bpy.ops.skn.apply)
    worst = float(numpy.linalg.norm(coords(obj) - coords(twin), axis=1).max()) / diagonal(twin)
    worst_of["Apply, Mirror above"] = worst
    check("Apply with Mirror above: Blender's own Apply (the mesh itself deformed)",
          result == {"FINISHED"} and worst <= TOLERANCE and "Armature" not in obj.modifiers and
          "skn" not in obj.modifiers and "Mirror" in obj.modifiers and not helpers_left(),
          f"{result} worst {worst:.2e} {report}")

    # a modifier added above while bound: followed through the helpers from then on
    obj = tube("AddedAbove", 2.0, 0.25, 13, 8)
    weigh_along(obj, ["b.L", "c.L"], 1.0)
    attach(obj, arm)
    activate(obj)
    bpy.ops.skn.bind()
    bpy.context.scene.frame_set(1)
    displace = obj.modifiers.new("Displace", "DISPLACE")
    displace.strength = 0.3
    with bpy.context.temp_override(object=obj):
        bpy.ops.object.modifier_move_to_index(modifier=displace.name, index=0)
    got = frames_of(obj)
    followed = obj.skn.bound and obj.skn.stack_input is not None and not obj.skn.error
    bpy.ops.skn.unbind()
    want = frames_of(obj)
    worst = max(float(numpy.linalg.norm(g - w, axis=1).max()) for g, w in zip(got, want)) / diagonal(obj)
    worst_of["a modifier added above while bound"] = worst
    check("a modifier added above while bound: still bound, the modifier's mesh at every frame",
          followed and worst <= TOLERANCE, f"{obj.skn.error} worst {worst:.2e}")


def main():
    install_addon()
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
    shape_keys()
    bbone_chain("B-Bones")
    bbone_chain("B-Bone settings", every_bbone_setting)
    segments_kept()
    mask_group()
    envelopes()
    two_modifiers()
    multi_modifier()
    moving_objects()
    scaled_to_0()
    negative_scale()
    zero_scale()
    flattened()
    failing_poses()
    modifiers_above()
    corrective_keys()
    rigify_human()
    rigify_horse()
    quaternions_as_blenders()
    preserve_volume_scale_rule()
    for label, worst in worst_of.items():
        print(f"  {label}: {worst:.2e}")
    finish("blender-rigs")


main()
