"""shapekeys.py — skn's morph targets against Blender as a second reference:
shape keys, then the Armature modifier, on scenes built here.

  blender -b --factory-startup --python-exit-code 1 --python tests/blender/shapekeys.py -- SKN OUTDIR

Each scene: a smooth-shaded grid bent by a three-bone armature (bones
keyframed), with two or three shape keys whose values are keyframed too
(one goes negative, one past 1: Blender's slider range is widened), so
Blender evaluates shape keys, then the armature. Blender's glTF exporter
writes it (morph targets with normal offsets, one animation: export_nla_strips
off), and `SKN skin` of the file at frame / fps must match Blender's evaluated
mesh within 1e-4 of the model's size at several frames. Vertices are matched
by their rest positions (the exporter may reorder them); glTF's Y-up is
Blender's (x, -z, y). Prints "blender-shapekeys: N passed, N failed"."""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy

numpy.bool = bool  # Debian's numpy 1.24 dropped the alias that Blender 3.4's exporter uses

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arm_scene import evaluated, world  # noqa: E402

import bmesh  # noqa: E402
import bpy  # noqa: E402

TOLERANCE = 1e-4
FRAMES = (1, 6, 11, 17, 24)


def build(seed, keys):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    rng = numpy.random.default_rng(seed)
    mesh = bpy.data.meshes.new("Body")
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=12, y_segments=6, size=1.0)
    for v in bm.verts:  # a strip along x, lifted into a shallow arch so that no two vertices share a position
        v.co.x *= 3.0
        v.co.z = 0.1 * math.sin(v.co.x) + 0.01 * v.co.y
    bm.to_mesh(mesh)
    bm.free()
    for p in mesh.polygons:
        p.use_smooth = True
    body = bpy.data.objects.new("Body", mesh)
    scene.collection.objects.link(body)
    arm_data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", arm_data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    bones = []
    for i in range(3):
        b = arm_data.edit_bones.new(f"B{i}")
        b.head, b.tail = (-3 + 2 * i, 0, 0), (-1 + 2 * i, 0, 0)
        if bones:
            b.parent, b.use_connect = bones[-1], True
        bones.append(b)
    bpy.ops.object.mode_set(mode="OBJECT")
    for i in range(3):  # smooth weights along x
        g = body.vertex_groups.new(name=f"B{i}")
        for v in mesh.vertices:
            w = max(0.0, 1.0 - abs(v.co.x - (-2 + 2 * i)) / 2.0)
            if w > 0:
                g.add([v.index], w, "REPLACE")
    body.modifiers.new("Armature", "ARMATURE").object = arm
    body.shape_key_add(name="Basis")
    for k in range(keys):
        key = body.shape_key_add(name=f"Key {k + 1}", from_mix=False)
        key.slider_min, key.slider_max = -2.0, 3.0
        for i, v in enumerate(mesh.vertices):
            if (i + 7 * k) % (k + 2) == 0:  # each key moves a different share of the vertices
                key.data[i].co = v.co + mesh.vertices[i].co.__class__(rng.uniform(-0.3, 0.3, 3))
        for frame, value in zip((1, 9, 17, 24), rng.uniform(-0.8, 1.8, 4)):
            key.value = value
            key.keyframe_insert("value", frame=frame)
    for pb in arm.pose.bones:
        pb.rotation_mode = "QUATERNION"
        for frame in (1, 12, 24):
            axis = rng.normal(size=3)
            angle = rng.uniform(-0.8, 0.8)
            pb.rotation_quaternion = [math.cos(angle / 2)] + list(math.sin(angle / 2) * axis / numpy.linalg.norm(axis))
            pb.keyframe_insert("rotation_quaternion", frame=frame)
    return body


def skn_skin(skn, path, time):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([skn, "skin", path, "--animation", "0", f"--time={time!r}", "--format", "json", "-o", out.name],
                       check=True)
        data = json.load(open(out.name))
    p = numpy.array(data["positions"]).reshape(-1, 3)
    return numpy.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)  # Y-up -> Z-up


def check(skn, outdir, seed, keys):
    body = build(seed, keys)
    path = os.path.join(outdir, f"shapekeys_{seed}.gltf")
    bpy.ops.export_scene.gltf(filepath=path, export_format="GLTF_SEPARATE", export_animations=True, export_skins=True,
                              export_morph=True, export_morph_normal=True, export_apply=False, export_yup=True,
                              export_nla_strips=False)
    info = subprocess.run([skn, "info", path], check=True, capture_output=True, text=True).stdout
    if info.count("morph target ") != keys:
        print(f"FAIL {path}: skn info lists {info.count('morph target ')} morph targets, not {keys}\n{info}")
        return [False]
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    scene.frame_set(1)
    rest_frame = body.data.shape_keys.key_blocks["Basis"]
    basis = numpy.array([tuple(k.co) for k in rest_frame.data])
    results = []
    order = None
    for frame in FRAMES:
        scene.frame_set(frame)
        theirs = world(body, evaluated(body))
        ours = skn_skin(skn, path, frame / fps)
        if order is None:  # match exported vertices to Blender's by the rest positions (skn at rest: --weights 0...)
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                subprocess.run([skn, "skin", path, "--animation", "none", "--weights", ",".join("0" * keys),
                                "--format", "json", "-o", out.name], check=True)
                rest = numpy.array(json.load(open(out.name))["positions"]).reshape(-1, 3)
            rest = numpy.stack([rest[:, 0], -rest[:, 2], rest[:, 1]], axis=1)
            d = numpy.linalg.norm(rest[:, None, :] - basis[None, :, :], axis=2)
            order = d.argmin(axis=1)
            if d.min(axis=1).max() > 1e-5:
                print(f"FAIL {path}: exported vertices do not match Blender's rest mesh")
                return [False]
        size = numpy.linalg.norm(theirs.max(axis=0) - theirs.min(axis=0))
        worst = numpy.linalg.norm(ours - theirs[order], axis=1).max()
        weights = [round(k.value, 3) for k in body.data.shape_keys.key_blocks[1:]]
        ok = worst <= TOLERANCE * size
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} scene {seed} ({keys} shape keys, values {weights}) frame {frame}: "
              f"max distance {worst:.3g} = {worst / size:.2e} of size {size:.3g}")
    return results


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    skn, outdir = argv[0], argv[1]
    results = check(skn, outdir, 1, 2) + check(skn, outdir, 2, 3)
    failed = results.count(False)
    print(f"blender-shapekeys: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed or not results else 0)


main()
