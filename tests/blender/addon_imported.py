"""addon_imported.py — the add-on on rigs it did not build: skinned glTF
files that other tools wrote (Khronos' samples, Blender's own exporter,
raylib's robot, Magnum's), imported by Blender's glTF importer as a user
imports them, each skinned mesh then bound with Bind against the Armature
modifier the importer made. Each file is then written by Blender's FBX
exporter (animation baked, leaf bones added) and read back by its FBX
importer twice: with the importer's defaults, and scaled 0.01 with
Automatic Bone Orientation and leaf bones ignored (armature and meshes at
scale 0.01, bones turned from the file's axes: how FBX characters authored
in centimetres usually arrive), each bound as above: the rigs an FBX import
makes (leaf bones, bone rolls the importer chose, scaled objects).

For every skinned mesh of every file, with Preserve Volume off and on: the
modifier's evaluated mesh at 6 frames across the file's animation, then
Bind (no refusal), the same frames within 1e-5 of the mesh's bounding-box
diagonal, and Unbind giving the modifier's result back. Each file's
animation must move some mesh, so that a rig that stands still cannot pass
for one skn follows. Prints "blender-imported: N passed, N failed".

  blender -b --factory-startup --python-exit-code 1 --python addon_imported.py -- ADDON.zip FILE...
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arm_scene import check, evaluated, finish, install_addon, numpy  # noqa: E402

import bpy  # noqa: E402

TOLERANCE = 1e-5


def clear():
    """The scene emptied of the last file's objects and data, the add-on left enabled."""
    for collection in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions,
                       bpy.data.materials, bpy.data.images, bpy.data.cameras, bpy.data.lights):
        bpy.data.batch_remove(list(collection))


def frames_of_animation():
    """6 frames spread over every action's range (1 alone where nothing is animated)."""
    ranges = [a.frame_range for a in bpy.data.actions]
    lo = min((r[0] for r in ranges), default=1.0)
    hi = max((r[1] for r in ranges), default=1.0)
    return sorted({int(round(lo + (hi - lo) * k / 5)) for k in range(6)})


def played(obj, frames):
    out = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        out.append(evaluated(obj).astype(numpy.float64))
    return out


def worst(a, b, size):
    return max(float(numpy.linalg.norm(x - y, axis=1).max()) for x, y in zip(a, b)) / size


def bound_against_modifier(label, obj, frames):
    """Returns how far the modifier moved the mesh over the frames, over its diagonal."""
    takeover = sys.modules["skn_blender.takeover"]  # the add-on, once install_addon has enabled it
    modifier = next(m for m in obj.modifiers if m.type == "ARMATURE")
    size = float(numpy.linalg.norm(numpy.ptp(numpy.array(obj.bound_box), axis=0))) or 1.0
    moved = 0.0
    for method in ("LINEAR", "DQS"):
        modifier.use_deform_preserve_volume = method == "DQS"
        want = played(obj, frames)
        moved = max(moved, max(float(numpy.abs(w - want[0]).max()) for w in want) / size)
        bpy.context.scene.frame_set(frames[0])
        bpy.ops.object.select_all(action="DESELECT")
        obj.select_set(True)
        bpy.context.view_layer.objects.active = obj
        obj.skn.method = method
        bpy.ops.skn.bind()
        if not check(f"{label} {method}: Bind takes it", obj.skn.bound, obj.skn.error):
            continue
        held = obj.skn.modifier_object
        check(f"{label} {method}: skn deforms it, not the modifier (its Object held, skn's modifier on)",
              modifier.object is None and held is not None and takeover.transport(obj) is not None and
              takeover.transport(obj).show_viewport)
        got = played(obj, frames)
        bpy.ops.skn.unbind()
        check(f"{label} {method}: Unbind gives the modifier its Object back", modifier.object == held and
              takeover.transport(obj) is None)
        back = played(obj, frames)
        w = worst(got, want, size)
        check(f"{label} {method}: within {TOLERANCE:g} of the modifier at frames {frames}", w <= TOLERANCE,
              f"{w:.2e} of the diagonal")
        check(f"{label} {method}: Unbind gives the modifier's result back", worst(back, want, size) <= 1e-6)
    return moved


FBX_IMPORTS = (("FBX", {}),
               ("FBX at 0.01", {"global_scale": 0.01, "automatic_bone_orientation": True, "ignore_leaf_bones": True}))


def imports(path, folder):
    """(label, a function importing the file one way): glTF, then its FBX round trips."""
    name = os.path.basename(path)
    fbx = os.path.join(folder, "exported.fbx")

    def gltf():
        bpy.ops.import_scene.gltf(filepath=path)

    def via(options):
        def read():
            bpy.ops.import_scene.gltf(filepath=path)
            bpy.ops.export_scene.fbx(filepath=fbx, bake_anim=True, add_leaf_bones=True)
            clear()
            bpy.ops.import_scene.fbx(filepath=fbx, **options)
        return read
    return [(name, gltf)] + [(f"{name} {label}", via(options)) for label, options in FBX_IMPORTS]


def main():
    install_addon()
    files = sys.argv[sys.argv.index("--") + 2:]
    with tempfile.TemporaryDirectory(prefix="skn_imported_") as folder:
        for name, read in (each for path in files for each in imports(path, folder)):
            clear()
            read()
            frames = frames_of_animation()
            meshes = [o for o in bpy.context.scene.objects
                      if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)]
            if not check(f"{name}: the importer made skinned meshes", meshes):
                continue
            moved = max(bound_against_modifier(f"{name} {o.name} ({len(o.data.vertices)} vertices)", o, frames)
                        for o in meshes)
            check(f"{name}: its animation moves the skin", moved > 1e-3, f"{moved:.3f} of a diagonal")
    finish("blender-imported")


main()
