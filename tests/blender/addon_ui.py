"""addon_ui.py — the add-on as a user meets it, in a clean factory-startup
Blender: the zip installs and enables; Bind, a frame change, Apply and
Unbind work through the operators; the evaluated mesh equals the Armature
modifier's while the mesh itself stays at rest; Unbind, disabling the
add-on and saving give the modifier back, its Object too (which skn holds
while bound, through a rename of the modifier and in a duplicate). Prints "blender-addon: N passed,
N failed".

  blender -b --factory-startup --python-exit-code 1 --python addon_ui.py -- ADDON.zip
"""
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arm_scene import arm_mesh, arm_rig, check, coords, evaluated, finish, install_addon, numpy  # noqa: E402

import bpy  # noqa: E402
from mathutils import Quaternion  # noqa: E402


def make_arm(name):
    """The arm's cylinder (25 rings of 16) on its own rig, the forearm keyed
    to a 150° twist and a 60° bend at frame 10."""
    arm = arm_rig(name, Quaternion((0, 0, 1), math.radians(60)) @ Quaternion((0, 1, 0), math.radians(150)))
    return arm_mesh(name, arm, 25, 16)


def main():
    install_addon()
    check("the zip installs and enables", "skn_blender" in bpy.context.preferences.addons)
    scene = bpy.context.scene
    obj = make_arm("Arm")
    rest = coords(obj).copy()
    for method, preserve in (("LINEAR", False), ("DQS", True)):
        scene.frame_set(10)
        obj.modifiers["Armature"].use_deform_preserve_volume = preserve
        want = evaluated(obj)
        scene.frame_set(1)
        bpy.context.view_layer.objects.active = obj
        obj.skn.method = method
        check(f"{method}: Bind", bpy.ops.skn.bind() == {"FINISHED"} and obj.skn.bound)
        check(f"{method}: the Armature modifier is off while bound", not obj.modifiers["Armature"].show_viewport)
        check(f"{method}: skn's modifier in the Armature modifier's slot", [m.name for m in obj.modifiers] ==
              ["Armature", "skn"])
        scene.frame_set(10)
        live = evaluated(obj)
        worst = float(numpy.abs(live - want).max())
        check(f"{method}: a frame change deforms the mesh as the modifier does", worst < 1e-5, f"max {worst:.2e}")
        check(f"{method}: the mesh itself stays at rest", numpy.array_equal(coords(obj), rest))
        with tempfile.TemporaryDirectory() as d:  # the file keeps the rest mesh and the modifier
            path = os.path.join(d, "bound.blend")
            bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
            check(f"{method}: still deformed after saving", numpy.abs(evaluated(obj) - live).max() < 1e-6 and
                  not obj.modifiers["Armature"].show_viewport)
            with bpy.data.libraries.load(path) as (src, dst):
                dst.objects = ["Arm"]
            saved_obj = dst.objects[0]
            saved = numpy.empty(len(rest) * 3, numpy.float32)
            saved_obj.data.vertices.foreach_get("co", saved)
            check(f"{method}: the saved file holds the rest mesh", numpy.array_equal(saved.reshape(-1, 3), rest))
            held = saved_obj.modifiers["Armature"]
            check(f"{method}: ... and the Armature modifier as it was: on, its Object set, no skn modifier",
                  held.show_viewport and held.object is not None and held.object.name.startswith("Arm") and
                  [m.name for m in saved_obj.modifiers] == ["Armature"],
                  f"{[(m.name, m.show_viewport, getattr(m, 'object', None)) for m in saved_obj.modifiers]}")
            appended = [saved_obj, held.object]
            meshes, armatures = [saved_obj.data], [held.object.data] if held.object else []
            for o in appended:
                if o is not None:
                    bpy.data.objects.remove(o)
            for m in meshes:
                bpy.data.meshes.remove(m)
            for a in armatures:
                bpy.data.armatures.remove(a)
        check(f"{method}: Unbind", bpy.ops.skn.unbind() == {"FINISHED"} and not obj.skn.bound)
        check(f"{method}: Unbind restores the rest mesh exactly", numpy.array_equal(coords(obj), rest))
        check(f"{method}: Unbind gives the modifier back", obj.modifiers["Armature"].show_viewport)

    other = make_arm("Other")
    other_rest = coords(other).copy()
    bpy.context.view_layer.objects.active = other
    scene.frame_set(1)
    bpy.ops.skn.bind()
    scene.frame_set(10)
    deformed = evaluated(other)
    check("disabling the add-on: deformed first", not numpy.array_equal(deformed, other_rest))
    bpy.ops.preferences.addon_disable(module="skn_blender")
    check("disabling the add-on gives the modifier back", numpy.array_equal(coords(other), other_rest) and
          other.modifiers["Armature"].show_viewport and "skn" not in other.modifiers and
          numpy.abs(evaluated(other) - deformed).max() < 1e-5)
    bpy.ops.preferences.addon_enable(module="skn_blender")

    bpy.context.view_layer.objects.active = obj
    obj.skn.method = "LINEAR"
    obj.modifiers["Armature"].use_deform_preserve_volume = False
    scene.frame_set(10)
    want = evaluated(obj)
    bpy.ops.skn.bind()
    check("Apply", bpy.ops.skn.apply() == {"FINISHED"} and not obj.skn.bound)
    check("Apply keeps the deformed shape", numpy.abs(coords(obj) - want).max() < 1e-5)
    check("Apply removes the Armature modifier", "Armature" not in obj.modifiers)
    check("Apply leaves no skn modifier nor offsets", "skn" not in obj.modifiers and
          "skn_offset" not in obj.data.attributes)

    # while bound skn holds the modifier's Object: through a rename of the modifier, and in a duplicate
    held = make_arm("Held")
    scene.frame_set(10)
    want = evaluated(held)
    scene.frame_set(1)
    for o in bpy.context.selected_objects:
        o.select_set(False)
    held.select_set(True)
    bpy.context.view_layer.objects.active = held
    bpy.ops.skn.bind()
    rig = held.skn.modifier_object
    check("while bound the modifier's Object is skn's to hold", rig is not None and
          held.modifiers["Armature"].object is None)
    held.modifiers["Armature"].name = "Renamed"
    scene.frame_set(10)
    check("a modifier renamed while bound: the mesh still deformed as the modifier does",
          numpy.abs(evaluated(held) - want).max() < 1e-5)
    bpy.ops.object.duplicate()
    copy = bpy.context.view_layer.objects.active
    scene.frame_set(9)
    scene.frame_set(10)
    check("a duplicate of a bound mesh: bound, deformed as the modifier does", copy is not held and
          copy.skn.bound and numpy.abs(evaluated(copy) - want).max() < 1e-5)
    for o in (held, copy):
        bpy.context.view_layer.objects.active = o
        bpy.ops.skn.unbind()
    check("Unbind puts the Object back, in the renamed modifier and in the duplicate's",
          all(o.modifiers["Renamed"].object == rig and o.modifiers["Renamed"].show_viewport and
              o.skn.modifier_object is None for o in (held, copy)))
    scene.frame_set(10)
    check("... and they deform as before", numpy.abs(evaluated(held) - want).max() < 1e-5 and
          numpy.abs(evaluated(copy) - want).max() < 1e-5)

    finish("blender-addon")


main()
