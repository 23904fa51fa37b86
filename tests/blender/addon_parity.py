"""addon_parity.py — the add-on's skin_object against Blender's own Armature
modifier, by Blender's rules, on rigs built here:

  - an arm (a cylinder over two bones) twisted 90°, 150° and 180°, and bent;
  - a 3-bone chain whose middle bone is scaled non-uniformly in pose (its
    child inherits the scale: a sheared frame);
  - a branching rig of 6 bones on a subdivided cube, with non-identity
    object and armature transforms, and vertices with 6 influences, weights
    summing to 0.4, a total below 1e-4, only non-bone groups, and no groups.

For each pose: the largest distance between skin_object(obj, "LINEAR") and the
modifier with Preserve Volume off, and between skin_object(obj, "DQS") and
the modifier with it on, must be at most 1e-5 of the rig's size.

  blender -b --factory-startup --python-exit-code 1 --python addon_parity.py -- ADDON.zip
Prints "blender-parity: N passed, N failed".
"""
import math
import os
import sys

import numpy

numpy.bool = bool

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arm_scene  # noqa: E402
import bpy  # noqa: E402
from mathutils import Matrix, Quaternion, Vector  # noqa: E402

TOLERANCE = 1e-5


def enable_addon(zip_path):
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    bpy.ops.preferences.addon_enable(module="skn_blender")
    import skn_blender
    return skn_blender


def armature(name, bones, matrix=None):
    """bones: [(name, head, tail, parent)]; an armature object in the scene (arm_scene.armature)."""
    return arm_scene.armature(name, bones, matrix, connect=False, rotation_mode="QUATERNION")


def mesh_object(name, verts, faces, arm, matrix=Matrix()):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.matrix_world = matrix
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    return obj, mod


def cylinder(length, radius, rings, segments):
    verts = [(length * i / (rings - 1), radius * math.cos(2 * math.pi * j / segments),
              radius * math.sin(2 * math.pi * j / segments)) for i in range(rings) for j in range(segments)]
    faces = [(i * segments + j, i * segments + (j + 1) % segments, (i + 1) * segments + (j + 1) % segments,
              (i + 1) * segments + j) for i in range(rings - 1) for j in range(segments)]
    return verts, faces


def smooth(x, lo, hi):
    s = min(1.0, max(0.0, (x - lo) / (hi - lo)))
    return s * s * (3 - 2 * s)


def modifier_world(obj):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(depsgraph)
    mesh = ev.to_mesh()
    co = numpy.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    ev.to_mesh_clear()
    m = numpy.array(obj.matrix_world)
    return co.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]


def rig_size(obj):
    co = numpy.array([obj.matrix_world @ v.co for v in obj.data.vertices])
    return float(numpy.linalg.norm(co.max(axis=0) - co.min(axis=0)))


def compare(addon, obj, mod, label, results):
    bpy.context.view_layer.update()
    size = rig_size(obj)
    for method, preserve in (("LINEAR", False), ("DQS", True)):
        mod.use_deform_preserve_volume = preserve
        theirs = modifier_world(obj)
        ours = addon.skin_object(obj, method, depsgraph=bpy.context.evaluated_depsgraph_get())
        worst = float(numpy.linalg.norm(ours - theirs, axis=1).max())
        ok = worst <= TOLERANCE * size
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {label} {method}: max distance {worst:.3g} = {worst / size:.2e} of size {size:.3g}")


def arm_rig(addon, results):
    arm = armature("ArmRig", [("upper", (0, 0, 0), (1, 0, 0), None), ("fore", (1, 0, 0), (2, 0, 0), "upper")])
    verts, faces = cylinder(2.0, 0.25, 33, 24)
    obj, mod = mesh_object("Arm", verts, faces, arm)
    up, fore = obj.vertex_groups.new(name="upper"), obj.vertex_groups.new(name="fore")
    for i, v in enumerate(verts):
        s = smooth(v[0], 0.7, 1.3)
        if s < 1:
            up.add([i], 1 - s, "REPLACE")
        if s > 0:
            fore.add([i], s, "REPLACE")
    for twist in (90, 150, 180):
        for bend in (0, 50):
            pb = arm.pose.bones["fore"]
            pb.rotation_quaternion = Quaternion((0, 0, 1), math.radians(bend)) @ Quaternion((0, 1, 0), math.radians(twist))
            compare(addon, obj, mod, f"arm twist {twist}° bend {bend}°", results)


def chain_rig(addon, results):
    arm = armature("ChainRig", [("a", (0, 0, 0), (1, 0, 0), None), ("b", (1, 0, 0), (2, 0, 0), "a"),
                                ("c", (2, 0, 0), (3, 0, 0), "b")])
    verts, faces = cylinder(3.0, 0.3, 49, 20)
    obj, mod = mesh_object("Chain", verts, faces, arm)
    groups = [obj.vertex_groups.new(name=n) for n in "abc"]
    for i, v in enumerate(verts):
        s1, s2 = smooth(v[0], 0.75, 1.25), smooth(v[0], 1.75, 2.25)
        for g, w in zip(groups, (1 - s1, s1 - s2, s2)):
            if w > 0:
                g.add([i], w, "REPLACE")
    poses = [((1, 1.6, 0.6), 30, 0), ((0.7, 1.0, 1.8), -40, 60), ((1.5, 0.5, 1.2), 75, 120)]
    for scale, bend, twist in poses:
        arm.pose.bones["b"].scale = scale  # non-uniform; "c" inherits it: a sheared frame
        arm.pose.bones["b"].rotation_quaternion = Quaternion((0, 0, 1), math.radians(bend))
        arm.pose.bones["c"].rotation_quaternion = Quaternion((0, 1, 0), math.radians(twist)) @ Quaternion((1, 0, 0), 0.4)
        compare(addon, obj, mod, f"chain scale {scale} bend {bend}° twist {twist}°", results)


def cube_rig(addon, results):
    bones = [("root", (0, 0, 0), (0, 0, 0.5), None)] + [
        (f"limb{k}", (0, 0, 0), (math.cos(k * 1.26), math.sin(k * 1.26), 0.3 * (k % 2)), "root") for k in range(5)]
    arm = armature("CubeRig", bones, Matrix.LocRotScale(Vector((0.5, -1, 0.3)), Quaternion((1, 1, 0), 0.3),
                                                         Vector((1.2, 1.2, 1.2))))
    n = 9  # a cube subdivided into an n x n grid per face
    verts, faces = [], []
    for axis in range(3):
        for side in (-1, 1):
            base = len(verts)
            for a in range(n + 1):
                for b in range(n + 1):
                    p = [0, 0, 0]
                    p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3] = side, -1 + 2 * a / n, -1 + 2 * b / n
                    verts.append(tuple(p))
            faces += [(base + a * (n + 1) + b, base + (a + 1) * (n + 1) + b, base + (a + 1) * (n + 1) + b + 1,
                       base + a * (n + 1) + b + 1) for a in range(n) for b in range(n)]
    obj, mod = mesh_object("Cube", verts, faces, arm, Matrix.LocRotScale(Vector((0.2, 0.4, -0.5)),
                                                                          Quaternion((0, 1, 1), 0.5), Vector((0.8, 1.1, 0.9))))
    groups = {b[0]: obj.vertex_groups.new(name=b[0]) for b in bones}
    extra = obj.vertex_groups.new(name="not_a_bone")
    rng = numpy.random.default_rng(3)
    for i in range(len(verts)):
        kind = i % 11
        if kind == 0:  # six influences
            for g, w in zip(groups.values(), rng.uniform(0.1, 1, 6)):
                g.add([i], float(w), "REPLACE")
        elif kind == 1:  # weights summing to 0.4
            groups["limb1"].add([i], 0.25, "REPLACE")
            groups["limb3"].add([i], 0.15, "REPLACE")
        elif kind == 2:  # a total below 1e-4: stays at rest
            groups["limb2"].add([i], 0.00005, "REPLACE")
        elif kind == 3:  # only a group that is no bone's
            extra.add([i], 1.0, "REPLACE")
        elif kind == 4:  # no groups at all
            pass
        else:
            for g in rng.choice(list(groups.values()), size=3, replace=False):
                g.add([i], float(rng.uniform(0.05, 1)), "REPLACE")
    for k, pb in enumerate(arm.pose.bones):
        pb.rotation_quaternion = Quaternion(Vector(rng.normal(size=3)).normalized(), rng.uniform(0.3, 2.8))
        pb.location = Vector(rng.uniform(-0.2, 0.2, 3))
        pb.scale = (1, 1, 1) if k % 2 else tuple(rng.uniform(0.7, 1.4, 3))
    compare(addon, obj, mod, "branching cube", results)


def main():
    zip_path = sys.argv[sys.argv.index("--") + 1]
    addon = enable_addon(zip_path)
    results = []
    arm_rig(addon, results)
    chain_rig(addon, results)
    cube_rig(addon, results)
    failed = results.count(False)
    print(f"blender-parity: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed or not results else 0)


main()
