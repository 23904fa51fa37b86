"""blender_frames.py — `make bench-blender` (its second part): what a frame
change costs, headless, on the setups the add-on takes over, with Blender's
Armature modifier and with the add-on's CPU mode.

A tube of rings of 40 vertices along a chain of 60 bones, each vertex
weighted to the two bones nearest it, the bones keyed over 20 frames; at
50,000 and 200,000 vertices, four ways: plain bones; B-Bones of 8 segments;
plain bones and two shape keys, one of them keyed; plain bones under a Mirror
modifier above the Armature modifier (twice the vertices reach it, through
the add-on's helper objects); at 50,000 also the keyed tube with a
Subdivision Surface (level 1) below the Armature modifier, as a character's
face with animated keys is usually set up; and a Rigify human (the Human metarig generated,
B-Bones among its deform bones, automatic weights, two shape keys), alone,
with four clothes (copies of the body on the same armature, no keys): a
character of several meshes, each bound, and alone again with its keyed key
a corrective moving a few hundred vertices at the elbow. A frame is
scene.frame_set(f) and the view layer updated until the deformed mesh is
evaluated (skn writes its offsets in frame_change_post; the modifier is done
by then). Milliseconds a frame: the median of RUNS passes over the 20 frames,
each pass's figure its median frame; ROUNDS rounds alternate the modifier and
skn (compare), the ratio the median of the rounds'. At 50,000 vertices the
Linear frame of the plain and the keyed tube is also taken apart (floor): what
Blender's evaluation through skn's modifier and driver costs with nothing
skinned, which is the least such a frame can cost, against the modifier's.

  blender -b --factory-startup --python blender_frames.py -- ADDON.zip [VERTICES...|rigify]
"""
import math
import os
import platform
import statistics
import sys
import time

import numpy

numpy.bool = bool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "blender"))
from arm_scene import chain_rig, rigify_human  # noqa: E402

import bpy  # noqa: E402

BONES, SEGMENTS, RUNS, FRAMES, CLOTHES, ROUNDS = 60, 40, 5, 20, 4, 3
SUBSURF_UPTO = 50_000  # the Subdivision row's sizes (at 200,000 vertices a frame takes half a second)
FLOOR_AT = 50_000  # the size whose frame is taken apart (floor)


def build(vertices, kind):
    """The tube (`kind`: "bones", "B-Bones", "shape keys", "keys+Subsurf" or "Mirror above") on its own
    keyed chain."""
    arm = chain_rig(f"Rig{kind}{vertices}", BONES, 0.1)
    if kind == "B-Bones":
        for bone in arm.data.bones:
            bone.bbone_segments = 8
    for k, pb in enumerate(arm.pose.bones):
        pb.rotation_mode = "XYZ"
        pb.keyframe_insert("rotation_euler", frame=1)
        pb.rotation_euler = (0.3 * math.sin(k), 0.05, 0.1)
        pb.keyframe_insert("rotation_euler", frame=FRAMES)
    rings = vertices // SEGMENTS
    a = numpy.linspace(0, 2 * math.pi, SEGMENTS, endpoint=False)
    x = numpy.repeat(numpy.linspace(0, BONES * 0.1, rings), SEGMENTS)
    co = numpy.stack([x, numpy.tile(0.2 * numpy.cos(a), rings), numpy.tile(0.2 * numpy.sin(a), rings)], 1)
    i, j = numpy.meshgrid(numpy.arange(rings - 1), numpy.arange(SEGMENTS), indexing="ij")
    quads = numpy.stack([i * SEGMENTS + j, i * SEGMENTS + (j + 1) % SEGMENTS,
                         (i + 1) * SEGMENTS + (j + 1) % SEGMENTS, (i + 1) * SEGMENTS + j], -1).reshape(-1, 4)
    mesh = bpy.data.meshes.new(f"Tube{kind}{vertices}")
    mesh.vertices.add(len(co))
    mesh.vertices.foreach_set("co", co.astype(numpy.float32).ravel())
    mesh.loops.add(quads.size)
    mesh.loops.foreach_set("vertex_index", quads.astype(numpy.int32).ravel())
    mesh.polygons.add(len(quads))
    mesh.polygons.foreach_set("loop_start", numpy.arange(0, quads.size, 4, dtype=numpy.int32))
    mesh.polygons.foreach_set("loop_total", numpy.full(len(quads), 4, numpy.int32))
    mesh.update(calc_edges=True)
    obj = bpy.data.objects.new(mesh.name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    if kind == "Mirror above":
        obj.modifiers.new("Mirror", "MIRROR")  # on X: a second tube at -x, on the same groups
    obj.modifiers.new("Armature", "ARMATURE").object = arm
    t = numpy.clip(x / 0.1 - 0.5, 0, BONES - 1.001)  # the two nearest bones, by the vertex's place
    first = t.astype(int)
    for b in range(BONES):  # one call per bone and weight: Blender 3.4 has no bulk write of groups
        g = obj.vertex_groups.new(name=f"b{b}")
        for index, weight in ((first == b, 1 - (t - first)), (first + 1 == b, t - first)):
            for w in numpy.unique(numpy.round(weight[index], 3)):
                g.add(numpy.nonzero(index & (numpy.round(weight, 3) == w))[0].tolist(), float(w), "REPLACE")
    if kind == "keys+Subsurf":
        obj.modifiers.new("Subdivision", "SUBSURF").levels = 1
    if kind in ("shape keys", "keys+Subsurf"):
        obj.shape_key_add(name="Basis")
        for name, scale in (("Wide", 1.3), ("Flat", 0.7)):
            key = obj.shape_key_add(name=name, from_mix=False)
            k = numpy.empty(len(co) * 3, numpy.float32)
            key.data.foreach_get("co", k)
            k = k.reshape(-1, 3)
            k[:, 2] *= scale
            key.data.foreach_set("co", k.ravel())
            key.value = 0.5
        key.value = 0.0
        key.keyframe_insert("value", frame=1)
        key.value = 1.0
        key.keyframe_insert("value", frame=FRAMES)
    return arm, obj


def frame_ms():
    scene, layer = bpy.context.scene, bpy.context.view_layer
    runs = []
    for _ in range(RUNS):
        times = []
        for f in range(1, FRAMES + 1):
            t0 = time.perf_counter()
            scene.frame_set(f)
            layer.update()
            times.append(time.perf_counter() - t0)
        runs.append(statistics.median(times))
    return 1000 * statistics.median(runs)


def clothes(body, count):
    """`count` meshes on the body's armature, as a character's clothes: copies of the body pushed
    out along its normals, each with its own Armature modifier, no shape keys."""
    out = []
    for i in range(count):
        cloth = body.copy()
        cloth.data = body.data.copy()
        cloth.name = f"Clothes{i}"
        bpy.context.scene.collection.objects.link(cloth)
        cloth.shape_key_clear()
        for v in cloth.data.vertices:
            v.co += 0.01 * (i + 1) * v.normal
        out.append(cloth)
    return out


def compare(arm, objs, label, note=""):
    """The modifier against skn's CPU mode, Linear and DQS: a row each. ROUNDS rounds, each the
    modifier's frame, then skn's (bound), then unbound again: the VM's speed drifts by a fifth
    within a minute, so a round's two figures are taken close together, and the row gives the
    medians over rounds, the median of the rounds' ratios (each round's skn against the mean of
    the modifier's figures either side of it) and their range. `objs`: a mesh, or several on the
    armature, all bound (the vertex count: the first's)."""
    objs = objs if isinstance(objs, list) else [objs]
    for method in ("LINEAR", "DQS"):
        for obj in objs:
            obj.modifiers["Armature"].use_deform_preserve_volume = method == "DQS"
        modifier, skn = [frame_ms()], []
        for _ in range(ROUNDS):
            bpy.context.scene.frame_set(1)
            for obj in objs:
                bpy.context.view_layer.objects.active = obj
                obj.skn.method = method
                bpy.ops.skn.bind()
            skn.append(frame_ms())
            for obj in objs:
                bpy.context.view_layer.objects.active = obj
                bpy.ops.skn.unbind()
            modifier.append(frame_ms())
        ratios = [(a + b) / 2 / s for a, b, s in zip(modifier, modifier[1:], skn)]
        print(f"{len(objs[0].data.vertices):9,} {label:12} {method:7} {statistics.median(modifier):9.2f} "
              f"{statistics.median(skn):8.2f} {statistics.median(ratios):12.2f}x "
              f"({min(ratios):.2f}-{max(ratios):.2f}){note}")
        sys.stdout.flush()


def floor(arm, obj, label):
    """Where the Linear frame's time goes, a row of four medians over ROUNDS alternated rounds:
    the modifier's frame; skn's; skn's with its own per-frame work left out, Blender's evaluation
    of the mesh through skn's "skn" modifier and driver with nothing skinned (the frame handlers
    off, and the getter told of no helper: the least any frame through that transport costs); and
    the mesh not deformed at all (the Armature modifier off: what the frame costs besides)."""
    from skn_blender import handlers, state
    mod, columns = obj.modifiers["Armature"], {k: [] for k in ("modifier", "skn", "transport", "still")}
    mod.use_deform_preserve_volume = False
    for _ in range(ROUNDS):
        columns["modifier"].append(frame_ms())
        mod.show_viewport = False
        columns["still"].append(frame_ms())
        mod.show_viewport = True
        bpy.context.scene.frame_set(1)
        bpy.context.view_layer.objects.active = obj
        obj.skn.method = "LINEAR"
        bpy.ops.skn.bind()
        columns["skn"].append(frame_ms())
        hooks = handlers.HANDLERS[:2]  # (frame_change_pre, before_frame), (frame_change_post, on_frame)
        told = dict(state.in_frame)
        for hook, fn in hooks:
            hook.remove(fn)
        state.in_frame.clear()
        try:
            columns["transport"].append(frame_ms())
        finally:
            state.in_frame.update(told)
            for hook, fn in hooks:
                hook.append(fn)
        bpy.ops.skn.unbind()
    m = {k: statistics.median(v) for k, v in columns.items()}
    print(f"{len(obj.data.vertices):9,} {label:12} {m['modifier']:9.2f} {m['skn']:8.2f} {m['transport']:10.2f} "
          f"{m['still']:6.2f}   skn's own work {m['skn'] - m['transport']:.2f}, the modifier's deformation "
          f"over skn's transport {m['modifier'] - m['transport']:.2f}")
    sys.stdout.flush()


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    sizes = [int(a) for a in argv[1:] if a != "rigify"] if argv[1:] else [50_000, 200_000]  # "rigify": that alone
    bpy.ops.preferences.addon_install(filepath=argv[0], overwrite=True)
    bpy.ops.preferences.addon_enable(module="skn_blender")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; Blender "
          f"{bpy.app.version_string}, headless")
    print(f"a frame change (frame_set + the view layer updated), ms: median of {RUNS} passes over {FRAMES} frames; "
          f"{BONES} bones, 2 influences a vertex")
    print(f"{ROUNDS} rounds of the modifier's frame, then skn's: the medians, and the rounds' ratios' median (range)")
    print(f"{'vertices':>9} {'setup':12} {'method':7} {'modifier':>9} {'skn CPU':>8} {'modifier/skn':>13}")
    for vertices in sizes:
        kinds = ("bones", "B-Bones", "shape keys", "Mirror above") + (("keys+Subsurf",) if vertices <= SUBSURF_UPTO else ())
        for kind in kinds:
            arm, obj = build(vertices, kind)
            compare(arm, obj, kind)
            bpy.data.objects.remove(obj)
            bpy.data.objects.remove(arm)
    if FLOOR_AT in sizes:
        print(f"where a Linear frame's time goes at {FLOOR_AT:,} vertices, ms (medians of {ROUNDS} rounds; "
              "transport: skn's modifier and driver, nothing skinned; still: not deformed)")
        print(f"{'vertices':>9} {'setup':12} {'modifier':>9} {'skn CPU':>8} {'transport':>10} {'still':>6}")
        for kind in ("bones", "shape keys"):
            arm, obj = build(FLOOR_AT, kind)
            floor(arm, obj, kind)
            bpy.data.objects.remove(obj)
            bpy.data.objects.remove(arm)
    arm, obj = rigify_human(frames=FRAMES)
    curved = sum(b.use_deform and b.bbone_segments > 1 for b in arm.data.bones)
    compare(arm, obj, "Rigify", f"  ({sum(b.use_deform for b in arm.data.bones)} deform bones, {curved} B-Bones, "
            "2 shape keys)")
    dressed = [obj] + clothes(obj, CLOTHES)
    compare(arm, dressed, "Rigify+4", f"  (the body and {CLOTHES} clothes of its size, no keys: {len(dressed)} meshes "
            "on one armature)")
    bpy.data.batch_remove(dressed[1:])
    moved = corrective(arm, obj)
    compare(arm, obj, "Rigify corr",
            f"  (its keyed key a corrective: {moved} vertices, within {ELBOW * 100:.0f} cm of the left elbow)")


ELBOW = 0.08  # the corrective key's reach from the elbow


def corrective(arm, body):
    """The body's keyed key made a corrective, as a character's keys usually are: it moves only
    the vertices within ELBOW of the left elbow (points weighted to the arm's B-Bones, whose split
    follows them: the add-on binds those again each frame, core.Patch). Returns their count."""
    blocks = body.data.shape_keys.key_blocks
    co = numpy.empty(len(body.data.vertices) * 3, numpy.float32)
    blocks["Basis"].data.foreach_get("co", co)
    co = co.reshape(-1, 3)
    elbow = numpy.array(arm.matrix_world.inverted() @ arm.data.bones["DEF-forearm.L"].head_local)
    near = numpy.linalg.norm(co - elbow, axis=1) < ELBOW
    co[near, 1] += 0.01
    blocks["Belly"].data.foreach_set("co", co.ravel())
    return int(near.sum())


main()
