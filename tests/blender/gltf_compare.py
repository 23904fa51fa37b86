"""gltf_compare.py — skn against a real, independent glTF implementation:
Blender's own glTF importer and Armature modifier.

  blender -b --factory-startup --python-exit-code 1 --python tests/blender/gltf_compare.py -- SKN MODEL...

For every model and every animation, at a few key times (Blender
interpolates rotations component-wise between keys, glTF by slerp, so only
key times are comparable), the evaluated mesh in Blender's world space is
compared with `SKN skin MODEL --animation NAME --time T --format json`:
the largest distance must be at most 1e-4 of the model's size (its bounding
box diagonal). Blender keeps one vertex per distinct referenced index, in
index order, primitive after primitive, and turns glTF's Y-up into Z-up:
(x, y, z) -> (x, -z, y). Prints "blender-gltf: N passed, N failed".
"""
import json
import math
import subprocess
import sys
import tempfile

import numpy

numpy.bool = bool  # Debian's numpy 1.24 dropped the alias that Blender 3.4's importer uses

import bpy  # noqa: E402

TOLERANCE = 1e-4


def skn_positions(skn, model, primitive, animation, time):
    """skn's skinned positions and triangles of one primitive, via the command line."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([skn, "skin", model, "--primitive", str(primitive), "--animation", animation,
                        f"--time={time!r}", "--format", "json", "-o", out.name], check=True)
        data = json.load(open(out.name))
    return numpy.array(data["positions"]).reshape(-1, 3), data["triangles"]


def skinned_primitives(skn, model):
    """[(mesh name, primitive number)] from `skn info`."""
    info = subprocess.run([skn, "info", model], check=True, capture_output=True, text=True).stdout
    found = []
    for line in info.splitlines():
        line = line.strip()
        if line.startswith("primitive "):
            number = int(line.split()[1].rstrip(":"))
            mesh = line.split('"')[1]
            found.append((mesh, number))
    return found


def blender_world(obj):
    """The evaluated mesh's vertices in world space."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    co = numpy.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    evaluated.to_mesh_clear()
    co = co.reshape(-1, 3)
    m = numpy.array(obj.matrix_world)
    return co @ m[:3, :3].T + m[:3, 3]


def key_frames(action):
    frames = sorted({round(k.co[0], 4) for fc in action.fcurves for k in fc.keyframe_points})
    picks = {frames[min(1, len(frames) - 1)], frames[len(frames) // 2], frames[-1]}
    return sorted(picks)


def compare(skn, model, obj, primitives, animation, frame, fps):
    scene = bpy.context.scene
    scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))
    time = frame / fps
    theirs = blender_world(obj)
    ours, size = [], 0.0
    for number in primitives:
        positions, triangles = skn_positions(skn, model, number, animation, time)
        used = sorted(set(triangles)) if triangles else range(len(positions))
        ours.append(positions[list(used)])
    ours = numpy.concatenate(ours)
    ours = numpy.stack([ours[:, 0], -ours[:, 2], ours[:, 1]], axis=1)  # Y-up -> Z-up
    if ours.shape != theirs.shape:
        return False, f"{len(ours)} vertices from skn, {len(theirs)} in Blender"
    size = numpy.linalg.norm(ours.max(axis=0) - ours.min(axis=0))
    worst = numpy.linalg.norm(ours - theirs, axis=1).max()
    return worst <= TOLERANCE * size, f"max distance {worst:.3g} = {worst / size:.2e} of size {size:.3g}"


def find_mesh_object(mesh_name):
    """The skinned mesh object imported for a glTF mesh: by name, or, for an
    unnamed mesh, the one skinned object there is."""
    skinned = [o for o in bpy.data.objects if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)]
    named = [o for o in skinned if mesh_name and o.data.name == mesh_name]
    return named[0] if named else skinned[0]


def check_model(skn, model):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=model)
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    results = []
    armature = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    actions = [a for a in bpy.data.actions] if armature.animation_data else []
    for mesh_name in sorted({m for m, _ in skinned_primitives(skn, model)}):
        obj = find_mesh_object(mesh_name)
        primitives = [n for m, n in skinned_primitives(skn, model) if m == mesh_name]
        for index, action in enumerate(sorted(actions, key=lambda a: a.name)):
            armature.animation_data.action = action
            # the importer names an action after its glTF animation ("Walk_root"),
            # or "Anim_N_..." for an unnamed animation N
            name = action.name.rsplit("_", 1)[0]
            animation = name.split("_")[1] if name.startswith("Anim_") else name
            for frame in key_frames(action):
                ok, what = compare(skn, model, obj, primitives, animation, frame, fps)
                results.append(ok)
                print(f"{'ok  ' if ok else 'FAIL'} {model} {mesh_name!r} animation {animation!r} "
                      f"t={frame / fps:.4f} s: {what}")
    return results


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    skn, models = argv[0], argv[1:]
    results = []
    for model in models:
        results += check_model(skn, model)
    failed = results.count(False)
    print(f"blender-gltf: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed or not results else 0)


main()
