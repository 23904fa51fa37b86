"""blender_bench.py — `make bench-blender`: a pose change to a deformed mesh,
both ways, in one Blender run: Blender's Armature modifier (Linear and
Preserve Volume) against the skn add-on (Linear and Dual Quaternion), on a
1,000,000-vertex mesh with 64 bones and 4 influences per vertex.

Each timing is a pose change (every bone turned) until the deformed
mesh is ready for the viewport: for the modifier, the depsgraph evaluation
that runs it; for the add-on, the same evaluation, in which its live handler
skins into the mesh (foreach_set), then the mesh's re-evaluation. Medians
of several runs; the ratio is the modifier's time over the add-on's.

  blender -b --factory-startup --python blender_bench.py -- ADDON.zip [VERTICES]
"""
import math
import os
import platform
import statistics
import sys
import time

import numpy

numpy.bool = bool

import bpy  # noqa: E402
from mathutils import Quaternion  # noqa: E402

BONES, REPEATS = 64, 7


def build(vertices):
    """A strip of 64 bones along x and a point cloud over it, each vertex
    weighted 0.4/0.3/0.2/0.1 to its 4 nearest bones (so that groups can be
    filled with one call per bone and weight)."""
    data = bpy.data.armatures.new("BenchRig")
    arm = bpy.data.objects.new("BenchRig", data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    prev = None
    for b in range(BONES):
        eb = data.edit_bones.new(f"b{b}")
        eb.head, eb.tail, eb.parent = (b, 0, 0), (b + 1, 0, 0), prev
        prev = eb
    bpy.ops.object.mode_set(mode="OBJECT")
    rng = numpy.random.default_rng(1)
    co = numpy.stack([rng.uniform(0, BONES, vertices), rng.uniform(-0.5, 0.5, vertices),
                      rng.uniform(-0.5, 0.5, vertices)], axis=1).astype(numpy.float32)
    mesh = bpy.data.meshes.new("Bench")
    mesh.vertices.add(vertices)
    mesh.vertices.foreach_set("co", co.ravel())
    obj = bpy.data.objects.new("Bench", mesh)
    bpy.context.scene.collection.objects.link(obj)
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    groups = [obj.vertex_groups.new(name=f"b{b}") for b in range(BONES)]
    nearest = numpy.clip(co[:, 0].astype(int), 0, BONES - 1)
    for rank, (offset, weight) in enumerate(((0, 0.4), (1, 0.3), (-1, 0.2), (2, 0.1))):
        bone = (nearest + offset) % BONES
        for b in range(BONES):
            idx = numpy.nonzero(bone == b)[0].tolist()
            if idx:
                groups[b].add(idx, weight, "REPLACE")
    for pb in arm.pose.bones:
        pb.rotation_mode = "QUATERNION"
    return arm, obj, mod


def pose(arm, k):
    for i, pb in enumerate(arm.pose.bones):
        pb.rotation_quaternion = Quaternion((0.3, 1, 0.2), 0.05 * math.sin(k + i))


def median_ms(fn, arm):
    times = []
    for k in range(REPEATS):
        pose(arm, k)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    vertices = int(argv[1]) if len(argv) > 1 else 1_000_000
    bpy.ops.preferences.addon_install(filepath=argv[0], overwrite=True)
    bpy.ops.preferences.addon_enable(module="skn_blender")
    from skn_blender import ui
    arm, obj, mod = build(vertices)
    layer = bpy.context.view_layer

    def modifier():
        layer.update()

    def addon():
        layer.update()  # the pose: the add-on's live handler skins into the mesh
        layer.update()  # the mesh it wrote, re-evaluated for the viewport

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; Blender {bpy.app.version_string}")
    print(f"mesh: {vertices:,} vertices, {BONES} bones, 4 influences per vertex; median of {REPEATS} pose changes")
    rows = []
    for label, preserve, method in (("Linear", False, "LINEAR"), ("Preserve Volume / DQS", True, "DQS")):
        mod.show_viewport, mod.use_deform_preserve_volume = True, preserve
        layer.update()
        blender_ms = median_ms(modifier, arm)
        layer.objects.active = obj
        obj.skn.method = method
        t0 = time.perf_counter()
        bpy.ops.skn.bind()
        bind_s = time.perf_counter() - t0
        skn_ms = median_ms(addon, arm)
        binding = ui.binding(obj)
        alone_ms = median_ms(lambda: binding.skin(arm, method), arm)  # skn's part: pose in, positions out
        bpy.ops.skn.unbind()
        rows.append((label, blender_ms, skn_ms, alone_ms, bind_s))
    print(f"{'method':24} {'Armature modifier':>18} {'skn add-on':>12} {'ratio':>7}   {'of which skn skinning':>22}   (skn bind, once)")
    for label, b, s, alone, bind in rows:
        print(f"{label:24} {b:15.1f} ms {s:9.1f} ms {b / s:6.2f}x   {alone:19.1f} ms   ({bind:.1f} s)")


main()
