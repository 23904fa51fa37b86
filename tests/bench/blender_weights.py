"""blender_weights.py — bone heat at scale: Blender's own With Automatic Weights against skn's, on
the same mesh in the same Blender, and skn on 1 against 2 threads (`make bench-weights`).

The scene: six limbs of ten bones each (60 deform bones) from a common hub, each limb a tube
around its chain, joined into one mesh of about 50,000 vertices. Each figure is the median of
ROUNDS runs: Blender's parent_set(type='ARMATURE_AUTO') on a fresh copy of the mesh (it parents,
makes 60 groups and fills them), and skn's Object > Parent > With Automatic Weights (skn) on a fresh
copy (the same: Blender's parenting, the groups, skn's weights); then skn_compute_weights alone
(the add-on's mesh_weights: the mesh and bones read, the weights computed, no groups written) on
1 and on 2 threads. Both operators' weights are compared too (the largest difference).

  blender -b --factory-startup --python tests/bench/blender_weights.py -- ADDON.zip [ROUNDS]
"""
import math
import os
import statistics
import sys
import time

import numpy

import bpy

ROUNDS = int(sys.argv[sys.argv.index("--") + 2]) if len(sys.argv) > sys.argv.index("--") + 2 else 3
LIMBS, BONES, SIDES, RINGS_PER_BONE = 6, 10, 64, 13


def scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    verts, faces = [], []
    for limb in range(LIMBS):
        a = 2 * math.pi * limb / LIMBS
        d = numpy.array([math.cos(a), math.sin(a), 0.3 * (limb % 2 - 0.5)])
        d /= numpy.linalg.norm(d)
        up = numpy.cross(d, [0, 0, 1])
        up /= numpy.linalg.norm(up)
        side = numpy.cross(d, up)
        parent = None
        for b in range(BONES):
            e = data.edit_bones.new(f"limb{limb}.{b}")
            e.head, e.tail = tuple(d * (0.1 + 0.3 * b)), tuple(d * (0.1 + 0.3 * (b + 1)))
            e.parent, e.use_connect = parent, parent is not None
            parent = e
        first, rings = len(verts), BONES * RINGS_PER_BONE + 1
        for r in range(rings):  # the tube tapers from 0.12 to 0.05
            t = r / (rings - 1)
            c, radius = d * (0.05 + 3.1 * t), 0.12 - 0.07 * t
            for s in range(SIDES):
                u = 2 * math.pi * s / SIDES
                verts.append(tuple(c + radius * (math.cos(u) * up + math.sin(u) * side)))
        for r in range(rings - 1):
            for s in range(SIDES):
                i, j = first + r * SIDES + s, first + r * SIDES + (s + 1) % SIDES
                faces.append((i, j, j + SIDES, i + SIDES))
        faces.append(tuple(range(first, first + SIDES))[::-1])
        last = first + (rings - 1) * SIDES
        faces.append(tuple(range(last, last + SIDES)))
    bpy.ops.object.mode_set(mode="OBJECT")
    mesh = bpy.data.meshes.new("Body")
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    body = bpy.data.objects.new("Body", mesh)
    bpy.context.scene.collection.objects.link(body)
    return body, arm


def fresh(body):
    copy = body.copy()
    copy.data = body.data.copy()
    bpy.context.scene.collection.objects.link(copy)
    return copy


def parent(obj, arm, op):
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    t = time.perf_counter()
    op()
    return time.perf_counter() - t


def weights_of(obj, names):
    w = numpy.zeros((len(obj.data.vertices), len(names)))
    column = {g.index: names.index(g.name) for g in obj.vertex_groups}
    for v in obj.data.vertices:
        for e in v.groups:
            w[v.index, column[e.group]] = e.weight
    return w


def main():
    zip_path = sys.argv[sys.argv.index("--") + 1]
    body, arm = scene()
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    bpy.ops.preferences.addon_enable(module="skn_blender")
    from skn_blender import weights as skn_weights  # noqa: E402  (the add-on, once enabled)
    n = len(body.data.vertices)
    print(f"mesh: {n} vertices, {len(body.data.polygons)} faces, {len(arm.data.bones)} deform bones; "
          f"{os.cpu_count()} cores; medians of {ROUNDS}")
    blender, skn_op, alone = [], [], {1: [], 2: []}
    for _ in range(ROUNDS):
        a, b = fresh(body), fresh(body)
        blender.append(parent(a, arm, lambda: bpy.ops.object.parent_set(type="ARMATURE_AUTO")))
        skn_op.append(parent(b, arm, lambda: bpy.ops.skn.parent_with_weights(method="HEAT")))
        for threads in (1, 2):
            t = time.perf_counter()
            skn_weights.mesh_weights(body, arm, "HEAT", threads=threads)
            alone[threads].append(time.perf_counter() - t)
    names = [x.name for x in arm.data.bones]
    diff = numpy.abs(weights_of(a, names) - weights_of(b, names)).max()
    bb, ss = statistics.median(blender), statistics.median(skn_op)
    print(f"Blender's With Automatic Weights {bb:8.2f} s")
    print(f"skn's (the operator)             {ss:8.2f} s   {bb / ss:5.1f}x Blender's")
    for threads in (1, 2):
        print(f"skn, mesh read + weights, {threads} thread{'s' if threads > 1 else ' '} {statistics.median(alone[threads]):6.2f} s")
    print(f"1 -> 2 threads: {statistics.median(alone[1]) / statistics.median(alone[2]):.2f}x; "
          f"largest weight difference between the operators {diff:.1e}")


main()
