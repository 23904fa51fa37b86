"""addon_setups.py — the add-on with every way a rig is set up and every
setting changed after Bind, in a clean factory-startup Blender:

  - a mesh parented to its armature with Armature Deform and no modifier is
    deformed once, as Blender deforms it, and given its parent back;
  - the method changed after Bind (to Centers of Rotation, to Blend) rebuilds
    the binding; Blend without a group is refused with the reason in the
    panel and the method set back; a new blend group rebinds;
  - Bind follows the modifier's Preserve Volume until the user picks a method,
    and so does a bound mesh when it is switched;
  - Bind of Blend without a group, or of a mesh without deform groups, is
    cancelled with Blender's report and leaves the mesh as it was;
  - a file saved while bound, opened without the add-on, has its Armature
    modifier and its armature parent working as before (a mesh with a
    Mirror above its modifier too, no helper of skn's saved); the add-on
    enabled again takes them over;
  - skin_object takes names in any case and a blend group;
  - what a user does to a bound mesh, each beside a twin the Armature
    modifier deforms and given the same change: an Edit Mode edit reaches
    the rest mesh; weights changed, in Weight Paint mode too (the armature
    selected: Pose Mode and the Armature modifier while painting, as Blender
    does, so that its weight tools find the deform bones); With Automatic
    Weights again (one Armature modifier, as Blender reuses it); a shape key
    added and changed; bones renamed (their groups renamed with them, as
    Blender does for the modifier's meshes); the mesh subdivided, vertices deleted, a mesh joined
    in — each shows at once, the two meshes alike; Apply refuses a mesh with
    shape keys with Blender's words, and applies the pose to one without;
    all of it again with a Mirror modifier above the Armature modifier
    (Apply then Blender's for a modifier not first);
  - a mesh shared by two objects (a linked duplicate), each with its own
    armature: each deforms as its modifier did, bound or not; Apply refused
    as Blender refuses multi-user data;
  - the Armature modifier off in the viewport or in renders: skn's shows
    where it did, and Unbind gives the toggles back;
  - custom split normals: kept by skn's modifier, turned as the modifier's;
  - a corrective shape key driven by a bone: as the modifier's at frames and
    posed by hand;
  - hair particles on a bound mesh: grown from skn's result as from the
    modifier's, named for the panel's note on regrowth; GPU mode skins such
    a mesh on the CPU, saying why;
  - an animation rendered while the viewport shows another frame (CPU and
    GPU mode, a Mirror above, a keyed shape key): each frame as the
    modifier's, by their silhouettes;
  - Edit Mode with Show In Edit Mode: edited vertices where the modifier
    puts them (the modifier deforms while editing), skn's again after; and
    Sculpt Mode, the modifier deforming (Blender sculpts through it);
  - the armature gone from a bound mesh (converted to a mesh, its Armature
    modifier removed): unbound, as a twin given the same, saying why;
  - the result helper: skinned straight into Blender's memory, the same mesh as
    through a copy; a layout the check cannot vouch for not used; a helper
    without a point for each vertex leaving the mesh as its input;
  - an armature Blender does not pose of itself (disabled in the viewport,
    in an excluded collection; in renders): the modifier deforms the mesh
    for so long, saying why, and skn again after; hidden with H, skn all along;
  - GPU mode with other objects reading the mesh (a vertex parent, a
    Surface Deform, a Shrinkwrap constraint): skinned on the CPU, saying so;
  - glTF and FBX exports of a bound mesh, read back: skinned, the rest mesh
    (the exporters read the modifier's Object, which skn holds);
  - a character linked from a library: Bind refused with Blender's words,
    nothing changed; a local object of its mesh bound, Apply refused (the
    file would not keep the shape); a Library Override of it bound, kept bound through
    save and open, Apply refused as for override data, Unbind and the file
    without the add-on as before Bind; a library saved bound, linked
    (Blender's modifier deforms it) and overridden (skn's).
Prints "blender-setups: N passed, N failed".

  blender -b --factory-startup --python-exit-code 1 --python addon_setups.py -- ADDON.zip
"""
import math
import os
import sys
import tempfile

import bmesh

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arm_scene import (arm_mesh, arm_rig, check, coords, evaluated, finish, install_addon, numpy,  # noqa: E402
                       panel_labels, world)

import bpy  # noqa: E402
from mathutils import Matrix, Quaternion, Vector  # noqa: E402


def rig(name):
    """The arm; its forearm keyed to a 120° twist and a 70° bend at frame 10."""
    return arm_rig(name, Quaternion((0, 0, 1), math.radians(70)) @ Quaternion((1, 0, 0), math.radians(120)))


def mesh(name, arm, attach="modifier", groups=True):
    """The arm's cylinder (21 rings of 12), weighted to its bones (or, without
    `groups`, to groups no bone has) and to a 'blend' group of 0.25 and 0.75."""
    obj = arm_mesh(name, arm, 21, 12, attach, ("upper", "fore") if groups else ("not-a-bone", "other"))
    gb = obj.vertex_groups.new(name="blend")
    for i in range(len(obj.data.vertices)):
        gb.add([i], 0.25 + 0.5 * (i % 2), "REPLACE")
    return obj


def activate(obj):
    bpy.context.view_layer.objects.active = obj


def bound_posed(obj, frame=10):
    """The modifier's mesh at `frame`; then obj bound at frame 1 and shown at `frame` again."""
    scene = bpy.context.scene
    scene.frame_set(frame)
    want = evaluated(obj)
    scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    scene.frame_set(frame)
    return want


def run(op):
    """An operator's result and its error report: from a script, Blender raises an ERROR report
    as RuntimeError (in the UI it is shown in the status bar and the Info editor)."""
    try:
        return op(), ""
    except RuntimeError as e:
        return {"CANCELLED"}, str(e)


def parented_without_modifier(addon):
    scene = bpy.context.scene
    arm = rig("Parented")
    obj, twin = mesh("Parented", arm, "parent"), mesh("ParentedTwin", arm, "parent")
    rest = coords(obj).copy()
    scene.frame_set(1)
    activate(obj)
    check("parent: Bind", bpy.ops.skn.bind() == {"FINISHED"} and obj.skn.bound)
    check("parent: Armature Deform suppressed while bound", obj.parent_type == "OBJECT" and obj.parent == arm)
    scene.frame_set(10)
    want = evaluated(twin)  # Blender deforms the twin itself
    got = evaluated(obj)
    worst = float(numpy.abs(got - want).max())
    check("parent: deformed once, as Blender deforms it", worst < 1e-5 and numpy.abs(want - rest).max() > 0.5,
          f"max {worst:.2e}")
    check("parent: the world transform kept", numpy.allclose(numpy.array(obj.matrix_world), numpy.array(twin.matrix_world)))
    bpy.ops.skn.unbind()
    check("parent: Unbind gives Armature Deform back", obj.parent_type == "ARMATURE")
    check("parent: Unbind: the rest mesh, Blender's deformation", numpy.array_equal(coords(obj), rest) and
          numpy.abs(evaluated(obj) - want).max() < 1e-6)
    return obj, twin


def settings_after_bind(addon):
    scene = bpy.context.scene
    arm = rig("Settings")
    obj = mesh("Settings", arm)
    scene.frame_set(1)
    activate(obj)
    obj.skn.method = "LINEAR"
    bpy.ops.skn.bind()
    scene.frame_set(10)
    obj.skn.method = "COR"
    cor = addon.skin_object(obj, "COR")
    check("method to COR after Bind: rebound, no error", obj.skn.error == "" and obj.skn.method == "COR")
    check("method to COR after Bind: the mesh is COR's", numpy.abs(world(obj, evaluated(obj)) - cor).max() < 1e-5)
    obj.skn.blend_group = ""
    obj.skn.method = "BLEND"
    check("method to Blend without a group: refused, set back", obj.skn.method == "COR", obj.skn.method)
    check("the reason in the panel", "Blend Group" in obj.skn.error, obj.skn.error)
    check("the mesh still COR's", numpy.abs(world(obj, evaluated(obj)) - cor).max() < 1e-5)
    obj.skn.blend_group = "blend"
    obj.skn.method = "BLEND"
    blend = addon.skin_object(obj, "BLEND", blend_group="blend")
    check("method to Blend with a group: the mesh is Blend's", obj.skn.method == "BLEND" and obj.skn.error == "" and
          numpy.abs(world(obj, evaluated(obj)) - blend).max() < 1e-5)
    obj.skn.blend_group = "fore"
    by_fore = addon.skin_object(obj, "BLEND", blend_group="fore")
    check("a new blend group rebinds", numpy.abs(world(obj, evaluated(obj)) - by_fore).max() < 1e-5 and
          numpy.abs(by_fore - blend).max() > 1e-3)
    obj.skn.blend_group = "no such group"
    check("a blend group that is not there: refused, set back", obj.skn.blend_group == "fore" and "no vertex group" in
          obj.skn.error, obj.skn.error)
    bpy.ops.skn.unbind()


def bind_refusals():
    arm = rig("Refused")
    obj = mesh("Refused", arm)
    rest = coords(obj).copy()
    activate(obj)
    obj.skn.method = "BLEND"
    obj.skn.blend_group = ""
    result, report = run(bpy.ops.skn.bind)
    check("Bind of Blend without a group: cancelled", result == {"CANCELLED"} and not obj.skn.bound)
    check("its report", "Blend Group" in report and "Blend Group" in obj.skn.error, report)
    check("left as it was", obj.modifiers["Armature"].show_viewport and "skn" not in obj.modifiers and
          numpy.array_equal(coords(obj), rest))
    bare = mesh("NoGroups", arm, groups=False)
    activate(bare)
    result, report = run(bpy.ops.skn.bind)
    check("Bind of a mesh without deform groups: cancelled", result == {"CANCELLED"} and not bare.skn.bound)
    check("its report", "no vertex is weighted to a deform bone" in report and "envelopes" in report, report)


def preserve_volume_default(addon):
    arm = rig("Volume")
    obj = mesh("Volume", arm)
    obj.modifiers["Armature"].use_deform_preserve_volume = True
    want = bound_posed(obj)
    check("Bind follows Preserve Volume: Dual Quaternion", obj.skn.method == "DQS")
    check("and deforms as the modifier with it", numpy.abs(evaluated(obj) - want).max() < 1e-5)
    for volume in (False, True):  # switched while bound: followed, as the modifier would deform
        obj.modifiers["Armature"].use_deform_preserve_volume = volume
        bpy.ops.skn.unbind()
        want = evaluated(obj)
        bpy.ops.skn.bind()
        obj.modifiers["Armature"].use_deform_preserve_volume = not volume
        bpy.context.view_layer.update()
        obj.modifiers["Armature"].use_deform_preserve_volume = volume
        bpy.context.view_layer.update()
        worst = float(numpy.abs(evaluated(obj) - want).max())
        check(f"Preserve Volume switched {'off' if not volume else 'on'} while bound: followed",
              obj.skn.method == ("DQS" if volume else "LINEAR") and not obj.skn.method_chosen and worst < 1e-5,
              f"{obj.skn.method} max {worst:.2e}")
    bpy.ops.skn.unbind()
    other = mesh("Chosen", arm)
    other.modifiers["Armature"].use_deform_preserve_volume = True
    other.skn.method = "LINEAR"  # the user's choice wins
    activate(other)
    bpy.ops.skn.bind()
    check("a method the user chose is kept", other.skn.method == "LINEAR")
    other.modifiers["Armature"].use_deform_preserve_volume = False
    bpy.context.view_layer.update()
    other.modifiers["Armature"].use_deform_preserve_volume = True
    bpy.context.view_layer.update()
    check("... when Preserve Volume is switched while bound too", other.skn.method == "LINEAR")
    bpy.ops.skn.unbind()


def skin_object_names(addon, obj):
    lower = addon.skin_object(obj, "lbs")
    check("skin_object: names in any case", numpy.array_equal(lower, addon.skin_object(obj, "LINEAR")) and
          numpy.array_equal(addon.skin_object(obj, "Dqs"), addon.skin_object(obj, "DQS")))
    try:
        addon.skin_object(obj, "BLEND")
        check("skin_object: Blend without a group refused", False)
    except ValueError as e:
        check("skin_object: Blend without a group refused", "blend_group" in str(e), str(e))
    try:
        addon.skin_object(obj, "spline")
        check("skin_object: an unknown name refused", False)
    except ValueError as e:
        check("skin_object: an unknown name refused", "LINEAR, DQS, BLEND, COR" in str(e), str(e))


def saved_while_bound(zip_path):
    """Bound meshes (a modifier's, a parent's, one with a Mirror above its modifier) saved; the file
    opened without the add-on, then with it."""
    scene = bpy.context.scene
    arm = rig("Saved")
    by_mod, by_parent, by_mirror = mesh("SavedMod", arm), mesh("SavedParent", arm, "parent"), mesh("SavedMirror", arm)
    m = by_mirror.modifiers.new("Mirror", "MIRROR")
    with bpy.context.temp_override(object=by_mirror):
        bpy.ops.object.modifier_move_to_index(modifier=m.name, index=0)
    scene.frame_set(10)
    want = {o.name: evaluated(o) for o in (by_mod, by_parent, by_mirror)}
    scene.frame_set(1)
    for o in (by_mod, by_parent, by_mirror):
        activate(o)
        bpy.ops.skn.bind()
    scene.frame_set(10)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bound.blend")
        bpy.ops.wm.save_as_mainfile(filepath=path)
        check("saving: still bound and deformed", by_mod.skn.bound and not by_mod.modifiers["Armature"].show_viewport
              and by_parent.parent_type == "OBJECT")
        bpy.ops.preferences.addon_disable(module="skn_blender")
        bpy.ops.wm.open_mainfile(filepath=path)
        mod_obj, parent_obj = bpy.data.objects["SavedMod"], bpy.data.objects["SavedParent"]
        mirror_obj = bpy.data.objects["SavedMirror"]
        bpy.context.scene.frame_set(10)
        check("opened without the add-on: the Armature modifier on", mod_obj.modifiers["Armature"].show_viewport
              and mod_obj.modifiers["Armature"].show_render)
        check("opened without the add-on: Armature Deform parenting back", parent_obj.parent_type == "ARMATURE")
        check("opened without the add-on: the Mirror-above mesh as it was, no helper of skn's in the file",
              [m.name for m in mirror_obj.modifiers] == ["Mirror", "Armature"] and mirror_obj.data.users == 1 and
              not [o.name for o in bpy.data.objects if "(skn " in o.name])
        for o in (mod_obj, parent_obj, mirror_obj):
            worst = float(numpy.abs(evaluated(o) - want[o.name]).max())
            check(f"opened without the add-on: {o.name} follows the armature", worst < 1e-5, f"max {worst:.2e}")
        bpy.ops.preferences.addon_enable(module="skn_blender")
        mod_obj, mirror_obj = bpy.data.objects["SavedMod"], bpy.data.objects["SavedMirror"]
        bpy.context.scene.frame_set(10)  # the first change after enabling (in the UI, a timer does it at once)
        check("the add-on enabled again takes the binding over", mod_obj.skn.bound and
              not mod_obj.modifiers["Armature"].show_viewport and
              numpy.abs(evaluated(mod_obj) - want["SavedMod"]).max() < 1e-5)
        check("... the Mirror-above mesh's too, its helpers made again", mirror_obj.skn.bound and
              mirror_obj.skn.stack_input is not None and not mirror_obj.modifiers["Armature"].show_viewport and
              numpy.abs(evaluated(mirror_obj) - want["SavedMirror"]).max() < 1e-5)


LINKED = "Cannot edit library linked or non-editable override object"  # Blender's words (modifier_add's poll)


def _library(path, bound):
    """A library file: the arm ("LibArm", Preserve Volume on, a Subdivision below its Armature
    modifier) in a collection "Char", saved at `path`, bound by skn or not. Returns the modifier's
    result at frame 10, world space."""
    bpy.ops.wm.read_homefile(use_empty=True)
    arm = rig("Lib")
    obj = mesh("LibArm", arm)
    obj.modifiers["Armature"].use_deform_preserve_volume = True
    obj.modifiers.new("Subdivision", "SUBSURF").levels = 1
    char = bpy.data.collections.new("Char")
    bpy.context.scene.collection.children.link(char)
    for o in (arm, obj):
        bpy.context.scene.collection.objects.unlink(o)
        char.objects.link(o)
    bpy.context.scene.frame_set(10)
    want = world(obj, evaluated(obj))
    obj.modifiers["Subdivision"].show_viewport = False
    base = world(obj, evaluated(obj))  # the Armature modifier's own output
    obj.modifiers["Subdivision"].show_viewport = True
    bpy.context.scene.frame_set(1)
    if bound:
        activate(obj)
        bpy.ops.skn.bind()
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return want, base


def _shot(library, override):
    """A new file that links the library's "Char" (an instance of it made a Library Override where
    `override`); returns its arm and the world-space coordinates it shows at frame 10."""
    bpy.ops.wm.read_homefile(use_empty=True)
    with bpy.data.libraries.load(library, link=True) as (_, into):
        into.collections = ["Char"]
    if override:
        inst = bpy.data.objects.new("CharInstance", None)
        inst.instance_type, inst.instance_collection = "COLLECTION", into.collections[0]
        bpy.context.scene.collection.objects.link(inst)
        activate(inst)
        inst.select_set(True)
        bpy.ops.object.make_override_library()
    else:
        bpy.context.scene.collection.children.link(into.collections[0])
    obj = next(o for o in bpy.context.scene.objects if o.type == "MESH")
    activate(obj)
    return obj, _shown(obj)


def _shown(obj):
    bpy.context.scene.frame_set(1)
    bpy.context.scene.frame_set(10)
    return world(obj, evaluated(obj))


def linked_characters(zip_path):
    """A character linked from a library, as studios use them: linked as it is, Bind refused with
    Blender's words and nothing changed; a local object of its mesh bound, Apply refused (the file
    would not keep the shape); an editable Library Override bound, kept bound (Dual
    Quaternion, the method) through save and open, Apply refused as Blender refuses override data,
    Unbind giving the modifier back, and the file opened without the add-on as before Bind; a
    library saved with the mesh bound, linked (Blender's modifier deforms it, untouched) and
    overridden (skn's)."""
    with tempfile.TemporaryDirectory() as d:
        plain, bound, shot = (os.path.join(d, f) for f in ("character.blend", "bound.blend", "shot.blend"))
        want, base = _library(plain, bound=False)
        _library(bound, bound=True)

        obj, shown = _shot(plain, override=False)
        result, report = run(bpy.ops.skn.bind)
        check("a linked character: Bind refused with Blender's words, the file's path and what to do",
              result == {"CANCELLED"} and LINKED in report and plain in report and "Library Override" in report,
              report)
        check("... nothing of it changed", not obj.skn.bound and [m.name for m in obj.modifiers] ==
              ["Armature", "Subdivision"] and obj.modifiers["Armature"].show_viewport and
              numpy.abs(_shown(obj) - want).max() < 1e-5)
        import skn_blender
        worst = float(numpy.abs(skn_blender.skin_object(obj, "DQS") - base).max())
        check("... a script's skin_object reads it: the Armature modifier's output", worst < 1e-5,
              f"max {worst:.2e}")

        bpy.ops.wm.read_homefile(use_empty=True)  # a local object of the library's mesh
        with bpy.data.libraries.load(plain, link=True) as (_, into):
            into.meshes = ["LibArm"]
        local = bpy.data.objects.new("LocalArm", into.meshes[0])
        bpy.context.scene.collection.objects.link(local)
        local.modifiers.new("Armature", "ARMATURE").object = rig("Local")  # (the groups are the mesh's)
        before = _shown(local)
        activate(local)
        check("a local object of a linked mesh: Bind", bpy.ops.skn.bind() == {"FINISHED"} and
              numpy.abs(_shown(local) - before).max() < 1e-5)
        result, report = run(bpy.ops.skn.apply)
        check("... Apply refused: the file would not keep the applied shape", result == {"CANCELLED"} and
              "is linked from" in report and "Make Local" in report and local.skn.bound and
              numpy.abs(_shown(local) - before).max() < 1e-5, report)

        obj, shown = _shot(plain, override=True)
        check("a Library Override: Bind", bpy.ops.skn.bind() == {"FINISHED"} and obj.skn.bound and
              obj.skn.method == "DQS" and not obj.modifiers["Armature"].show_viewport)
        worst = float(numpy.abs(_shown(obj) - want).max())
        check("... deformed as the modifier deforms it", worst < 1e-5, f"max {worst:.2e}")
        result, report = run(bpy.ops.skn.apply)
        check("... Apply refused with Blender's words, still bound", result == {"CANCELLED"} and
              "Modifiers cannot be applied on override data" in report and obj.skn.bound, report)
        obj.skn.error = ""
        bpy.ops.wm.save_as_mainfile(filepath=shot)
        bpy.ops.wm.open_mainfile(filepath=shot)
        obj = next(o for o in bpy.context.scene.objects if o.type == "MESH")
        worst = float(numpy.abs(_shown(obj) - want).max())
        check("... saved and opened: still bound, its method kept, deformed as the modifier deforms it",
              obj.skn.bound and obj.skn.method == "DQS" and not obj.modifiers["Armature"].show_viewport and
              worst < 1e-5, f"max {worst:.2e}")
        activate(obj)
        bpy.ops.skn.unbind()
        check("... Unbind gives the modifier back", [m.name for m in obj.modifiers] == ["Armature", "Subdivision"]
              and obj.modifiers["Armature"].show_viewport and obj.modifiers["Armature"].object is not None and
              numpy.abs(_shown(obj) - want).max() < 1e-5)
        bpy.ops.preferences.addon_disable(module="skn_blender")
        bpy.ops.wm.open_mainfile(filepath=shot)
        obj = next(o for o in bpy.context.scene.objects if o.type == "MESH")
        check("... the file saved bound, opened without the add-on: as before Bind",
              [m.name for m in obj.modifiers] == ["Armature", "Subdivision"] and
              obj.modifiers["Armature"].show_viewport and numpy.abs(_shown(obj) - want).max() < 1e-5)
        bpy.ops.preferences.addon_enable(module="skn_blender")

        obj, shown = _shot(bound, override=False)
        worst = float(numpy.abs(shown - want).max())
        check("a library saved bound, linked: Blender's modifier deforms it, as the library saved it",
              obj.skn.bound and obj.modifiers["Armature"].show_viewport and "skn" not in obj.modifiers and
              worst < 1e-5, f"max {worst:.2e}")
        result, report = run(bpy.ops.skn.unbind)
        check("... Unbind refused with Blender's words", result == {"CANCELLED"} and LINKED in report, report)
        obj, shown = _shot(bound, override=True)
        worst = float(numpy.abs(shown - want).max())
        check("... overridden: skn's, deformed as the modifier deforms it", obj.skn.bound and
              not obj.modifiers["Armature"].show_viewport and "skn" in obj.modifiers and worst < 1e-5,
              f"max {worst:.2e}")


def gpu_mode_readers(addon):
    """GPU mode leaves the mesh at rest for Blender: where something outside it reads its deformed
    mesh (an earring parented to its vertices, clothes with a Surface Deform on it, an Empty
    shrinkwrapped to it), GPU mode skins it on the CPU, naming the reader, so that the reader
    follows as with the modifier; without readers the shader draws it again."""
    scene = bpy.context.scene
    arm = rig("Readers")
    body = mesh("ReadersBody", arm)
    earring = bpy.data.objects.new("Earring", None)
    earring.parent, earring.parent_type, earring.parent_vertices = body, "VERTEX_3", (200, 201, 213)
    cloth = arm_mesh("Sleeve", arm, 11, 12, groups=("none", "none either"))
    cloth.modifiers.remove(cloth.modifiers["Armature"])
    for v in cloth.data.vertices:
        v.co.y, v.co.z = v.co.y * 1.2, v.co.z * 1.2
    pin = bpy.data.objects.new("Pin", None)
    pin.location = (1.5, 0.0, 0.6)
    pin.constraints.new("SHRINKWRAP").target = body
    for o in (earring, pin):
        scene.collection.objects.link(o)
    surface = cloth.modifiers.new("SurfaceDeform", "SURFACE_DEFORM")
    surface.target = body
    cards = geometry_nodes_reader("Cards", body)
    scene.frame_set(1)
    with bpy.context.temp_override(object=cloth, active_object=cloth):
        bpy.ops.object.surfacedeform_bind(modifier=surface.name)

    def shown():
        bpy.context.view_layer.update()
        return (numpy.array(earring.matrix_world), world(cloth, evaluated(cloth)), numpy.array(pin.matrix_world),
                evaluated(cards))

    scene.frame_set(10)
    want = shown()
    scene.frame_set(1)
    activate(body)
    body.skn.mode = "GPU"
    bpy.ops.skn.bind()
    scene.frame_set(10)
    got = shown()
    worst = max(float(numpy.abs(g - w).max()) for g, w in zip(got, want))
    check("GPU mode, read by others: skinned on the CPU, the panel naming them",
          not addon.modes.gpu_drawn(body) and body.skn.error.startswith("GPU mode leaves the mesh at rest") and
          "Earring (parented to its vertices) and 3 more read it" in body.skn.error, body.skn.error)
    readers = addon.modes.geometry_readers(body)
    check("... every reader found: the earring, the clothes' Surface Deform, the Empty's Shrinkwrap, a Geometry "
          "Nodes modifier whose node group's nested group reads it (Object Info)",
          readers == ["Earring (parented to its vertices)", 'Pin\'s "Shrinkwrap" constraint',
                      'Sleeve\'s "SurfaceDeform" modifier', 'Cards\'s "Scatter" modifier (its node group Cards scatters)'],
          str(readers))  # (by the readers' names)
    check("... and they follow it as with the modifier", worst < 1e-5, f"max {worst:.2e}")
    for o in (earring, cloth, pin, cards):
        bpy.data.objects.remove(o)
    bpy.context.view_layer.update()
    check("... read by none: the shader draws it again", addon.modes.gpu_drawn(body) and not body.skn.error,
          body.skn.error)
    bpy.ops.skn.unbind()


def gpu_mode_instanced(addon):
    """Blender draws an instance of a mesh (a collection instance, a node group's Collection Info,
    particles that render it, a parent instancing it at its vertices) as it draws the object, from its evaluated mesh; in GPU
    mode that mesh stays at rest and Blender draws only its bounds (Display As: Bounds), while the
    shader draws the object itself and no instance: an instance was a box. So GPU mode skins such
    a mesh on the CPU, naming the instancers, and an instance is drawn deformed, as the object;
    each instancer gone, the shader draws it again."""
    scene = bpy.context.scene
    character = bpy.data.collections.new("Character")
    held = bpy.data.collections.new("Character's body")  # a collection within the instanced one
    scene.collection.children.link(character)
    character.children.link(held)
    arm = rig("Instanced")
    body = mesh("InstancedBody", arm)
    for o, c in ((arm, character), (body, held)):
        for old in o.users_collection:
            old.objects.unlink(o)
        c.objects.link(o)
    crowd = bpy.data.objects.new("Crowd", None)  # Add > Collection Instance
    crowd.instance_type, crowd.instance_collection = "COLLECTION", character
    crowd.location = (0.0, 3.0, 0.0)
    scene.collection.objects.link(crowd)
    emitter = bpy.data.objects.new("Emitter", bpy.data.meshes.new("Emitter"))
    emitter.data.from_pydata([(0, -3, 0), (1, -3, 0), (0, -4, 0)], [], [(0, 1, 2)])
    scene.collection.objects.link(emitter)
    particles = emitter.modifiers.new("Particles", "PARTICLE_SYSTEM").particle_system.settings
    particles.count, particles.render_type, particles.instance_object = 3, "OBJECT", body
    forest = geometry_nodes_reader("Forest", character)  # a node group's Collection Info of the character
    scene.frame_set(10)
    modifier = world(body, evaluated(body))  # the Armature modifier's mesh, before Bind
    scene.frame_set(1)
    activate(body)
    body.skn.mode = "GPU"
    bpy.ops.skn.bind()
    scene.frame_set(10)

    def instance_points():
        """The Crowd instance's mesh, world coordinates, as Blender draws it (the depsgraph's instance)."""
        graph = bpy.context.evaluated_depsgraph_get()
        for i in graph.object_instances:
            if i.is_instance and i.parent.original == crowd and i.object.original == body:
                co = numpy.array([v.co for v in i.object.data.vertices])
                m = numpy.array(i.matrix_world)
                return co @ m[:3, :3].T + m[:3, 3]
        return None

    readers = addon.modes.geometry_readers(body)
    check("GPU mode, instanced: skinned on the CPU, the panel naming the instancers",
          not addon.modes.gpu_drawn(body) and body.skn.error.startswith("GPU mode leaves the mesh at rest") and
          "Forest's \"Scatter\" modifier (its node group Forest scatters) and 2 more read it" in body.skn.error and
          readers == ['Forest\'s "Scatter" modifier (its node group Forest scatters)',
                      "Crowd (an instance of the collection Character)", f'Emitter\'s particles "{particles.name}"'],
          f"{body.skn.error}; {readers}")
    bpy.data.objects.remove(forest)
    got = instance_points()
    want = modifier + numpy.array([0.0, 3.0, 0.0])
    check("... the collection instance drawn deformed: the modifier's mesh, moved by the instance's offset",
          got is not None and float(numpy.abs(got - want).max()) < 1e-5 and
          float(numpy.abs(modifier - world(body, coords(body))).max()) > 0.5,
          "no instance" if got is None else f"max {float(numpy.abs(got - want).max()):.2e}")
    bpy.data.objects.remove(crowd)
    bpy.context.view_layer.update()
    check("... the collection instance gone: the particles still named",
          not addon.modes.gpu_drawn(body) and "Emitter's particles" in body.skn.error, body.skn.error)
    bpy.data.objects.remove(emitter)
    parent = bpy.data.objects.new("Studs", bpy.data.meshes.new("Studs"))
    parent.data.from_pydata([(0, 0, 2), (0, 1, 2)], [], [])
    parent.instance_type = "VERTS"
    scene.collection.objects.link(parent)
    body.parent = parent
    bpy.context.view_layer.update()
    check("... a parent instancing it at its vertices: named",
          not addon.modes.gpu_drawn(body) and "Studs (instancing it at its verts)" in body.skn.error, body.skn.error)
    parent.instance_type = "NONE"
    bpy.context.view_layer.update()
    check("... instanced by none: the shader draws it again", addon.modes.gpu_drawn(body) and not body.skn.error,
          body.skn.error)
    bpy.ops.skn.unbind()
    for o in (body, arm, parent):
        bpy.data.objects.remove(o)
    for c in (held, character):
        bpy.data.collections.remove(c)


def geometry_nodes_reader(name, target):
    """An object whose Geometry Nodes modifier reads `target` from inside its node group: the group
    nests another, whose Object Info node names it (as a node group scattering cards over a body
    does), or Collection Info for a collection, and outputs that geometry."""
    inner = bpy.data.node_groups.new(f"{name} reads", "GeometryNodeTree")
    inner.outputs.new("NodeSocketGeometry", "Geometry")
    collection = isinstance(target, bpy.types.Collection)
    info = inner.nodes.new("GeometryNodeCollectionInfo" if collection else "GeometryNodeObjectInfo")
    info.inputs["Collection" if collection else "Object"].default_value = target
    inner.links.new(info.outputs["Geometry"], inner.nodes.new("NodeGroupOutput").inputs[0])
    outer = bpy.data.node_groups.new(f"{name} scatters", "GeometryNodeTree")
    outer.outputs.new("NodeSocketGeometry", "Geometry")
    group = outer.nodes.new("GeometryNodeGroup")
    group.node_tree = inner
    outer.links.new(group.outputs[0], outer.nodes.new("NodeGroupOutput").inputs[0])
    obj = bpy.data.objects.new(name, bpy.data.meshes.new(name))
    bpy.context.scene.collection.objects.link(obj)
    obj.modifiers.new("Scatter", "NODES").node_group = outer
    return obj


def loop_normals(obj):
    """The evaluated mesh's split (loop) normals, (loops, 3), and whether it has custom ones."""
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    m = ev.to_mesh()
    m.calc_normals_split()
    n = numpy.empty(len(m.loops) * 3, numpy.float32)
    m.loops.foreach_get("normal", n)
    custom = m.has_custom_normals
    ev.to_mesh_clear()
    return n.reshape(-1, 3), custom


def custom_normals():
    """Custom split normals (what a glTF or FBX import, a Weighted Normal modifier applied, or
    hand-set normals leave on a character): kept through skn's modifier and turned with the pose
    as the modifier turns them. The split normals of the same positions differ by up to 0.04°
    between any two of Blender's evaluations (the modifier's, skn's, the bare mesh's: measured),
    so 0.1° is the bound; the tilt set here is 39°."""
    arm = rig("Normals")
    obj = mesh("Normals", arm)
    data = obj.data
    data.use_auto_smooth = True
    data.calc_normals_split()
    n = numpy.empty(len(data.loops) * 3, numpy.float32)
    data.loops.foreach_get("normal", n)
    n = n.reshape(-1, 3) + numpy.array([0, 0, 0.8], numpy.float32)  # each tilted up
    data.normals_split_custom_set((n / numpy.linalg.norm(n, axis=1)[:, None]).tolist())
    bpy.context.scene.frame_set(10)
    want, _ = loop_normals(obj)
    bound_posed(obj)
    got, custom = loop_normals(obj)
    worst = float(numpy.degrees(numpy.arccos(numpy.clip((want * got).sum(1), -1, 1))).max())
    check("custom split normals: kept by skn's modifier, turned with the pose as the modifier's",
          obj.skn.bound and custom and worst < 0.1, f"worst {worst:.3f}°, custom {custom}")
    bpy.ops.skn.unbind()
    check("... and the mesh keeps them after Unbind", data.has_custom_normals)


def driven_corrective():
    """A corrective shape key driven by a bone (the elbow's outside pushed out as the forearm
    turns), as character rigs have them: at the keyed frames and posed by hand with no frame
    change, the mesh as the modifier deforms it, the key's driven value included."""
    scene = bpy.context.scene
    arm = rig("Driven")
    obj = mesh("Driven", arm)
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Elbow", from_mix=False)
    for i, v in enumerate(obj.data.vertices):
        if 0.8 < v.co.x < 1.2:
            key.data[i].co = v.co + Vector((0, 0.1, 0))
    driver = key.driver_add("value").driver
    driver.type, driver.expression = "SCRIPTED", "abs(r) / 2"
    var = driver.variables.new()
    var.name, var.type = "r", "TRANSFORMS"
    target = var.targets[0]
    target.id, target.bone_target, target.transform_type = arm, "fore", "ROT_Z"
    target.transform_space = "LOCAL_SPACE"
    frames = (1, 4, 7, 10)

    def shapes():
        out = []
        for f in frames:
            scene.frame_set(f)
            out.append((evaluated(obj), key.value))
        return out
    want = shapes()
    scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    got = shapes()
    worst = max(float(numpy.abs(w - g).max()) for (w, _), (g, _) in zip(want, got))
    values = [round(v, 3) for _, v in got]
    check("a corrective shape key driven by the forearm: as the modifier's at the keyed frames",
          obj.skn.bound and worst < 1e-5 and len(set(values)) == len(frames), f"max {worst:.2e}, values {values}")
    bpy.ops.skn.unbind()
    arm.animation_data_clear()  # posed by hand now: no frame changes, only updates
    fore = arm.pose.bones["fore"]
    fore.rotation_quaternion = Quaternion((0, 0, 1), math.radians(50))
    bpy.context.view_layer.update()
    want = evaluated(obj)
    bpy.ops.skn.bind()
    fore.rotation_quaternion = Quaternion((0, 0, 1), math.radians(80))
    bpy.context.view_layer.update()
    fore.rotation_quaternion = Quaternion((0, 0, 1), math.radians(50))
    bpy.context.view_layer.update()
    worst = float(numpy.abs(evaluated(obj) - want).max())
    check("... posed by hand (no frame change): as the modifier's", worst < 1e-5 and 0 < key.value < 1,
          f"max {worst:.2e}, value {key.value:.3f}")
    bpy.ops.skn.unbind()


def hair_of(obj):
    """The roots and tips of obj's hair particles (its first particle system), object space."""
    ev = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    system, modifier = ev.particle_systems[0], ev.modifiers["Hair"]
    ends = [(tuple(p.hair_keys[0].co_object(ev, modifier, p)), tuple(p.hair_keys[-1].co_object(ev, modifier, p)))
            for p in system.particles]
    return numpy.array(ends, numpy.float64).reshape(-1, 2, 3)


def particle_hair():
    """Hair particles on a bound mesh (fur, hair before Blender's hair curves), grown in the rest
    pose: their Particle System modifier below the armature's grows them from skn's result, as
    from the modifier's; GPU mode, which would draw the body posed and leave the hair at rest,
    skins it on the CPU, saying why. Blender grows such hair again from the pose of the moment
    whenever a modifier above it changes, as skn's do at Bind, Unbind and saves: the mesh's
    hair is named for the panel's note (takeover.regrown_hair)."""
    scene = bpy.context.scene
    arm = rig("Hairy")
    obj = mesh("Hairy", arm)
    obj.modifiers.new("Hair", "PARTICLE_SYSTEM")
    settings = obj.particle_systems[0].settings
    settings.type, settings.count, settings.hair_length = "HAIR", 200, 0.2
    scene.frame_set(1)
    rest = hair_of(obj)  # (grown here, in the rest pose)
    scene.frame_set(10)
    want = hair_of(obj)
    scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    scene.frame_set(10)
    got = hair_of(obj)
    worst = float(numpy.abs(got - want).max())
    check("hair particles on a bound mesh: roots and tips where the modifier puts them",
          obj.skn.bound and len(got) == 200 and worst < 1e-5 and numpy.abs(want - rest).max() > 0.5,
          f"max {worst:.2e} over {len(got)} hairs")
    labels = panel_labels(obj)
    check("... the panel names its hair and says what regrows it", any("Hair (Hair) regrows" in t for t in labels),
          str(labels))
    scene.frame_set(1)  # saved in the rest pose, as the panel says: the hair as grown
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(tempfile.mkdtemp(), "hairy.blend"), copy=True)
    scene.frame_set(10)
    worst = float(numpy.abs(hair_of(obj) - want).max())
    check("... saved in the rest pose: the hair as grown", obj.skn.bound and worst < 1e-5, f"max {worst:.2e}")
    obj.skn.mode = "GPU"
    bpy.context.view_layer.update()
    check("... GPU mode skins it on the CPU, naming the hair's modifier",
          obj.display_type != "BOUNDS" and '"Hair"' in obj.skn.error, obj.skn.error)
    bpy.ops.skn.unbind()


def modifier_toggles():
    """The Armature modifier off in the viewport (on in renders), and the other way round: skn's
    deformation shows where the modifier's did (its "skn" modifier's eyes set so), and Unbind gives
    the toggles back."""
    arm = rig("Toggles")
    for viewport, render in ((False, True), (True, False)):
        obj = mesh(f"Toggles{int(viewport)}{int(render)}", arm)
        mod = obj.modifiers["Armature"]
        mod.show_viewport, mod.show_render = viewport, render
        want = bound_posed(obj)
        worst = float(numpy.abs(evaluated(obj) - want).max())
        skn_mod = obj.modifiers["skn"]
        label = f"the modifier {'on' if viewport else 'off'} in the viewport, {'on' if render else 'off'} in renders"
        check(f"{label}: bound, the viewport shows what it showed, skn's modifier on and off alike",
              obj.skn.bound and worst < 1e-5 and (skn_mod.show_viewport, skn_mod.show_render) == (viewport, render),
              f"max {worst:.2e} {(skn_mod.show_viewport, skn_mod.show_render)}")
        obj.skn.mode = "GPU"  # the shader draws only where the viewport showed the deformation
        bpy.context.view_layer.update()
        check(f"{label}: GPU mode draws it with the shader only where the viewport deformed it",
              (obj.display_type == "BOUNDS") == viewport and
              (viewport or numpy.abs(evaluated(obj) - want).max() < 1e-5), obj.display_type)
        bpy.ops.skn.unbind()
        check(f"{label}: Unbind gives the toggles back", (mod.show_viewport, mod.show_render) == (viewport, render))


def rendered_animation():
    """An animation rendered (Cycles, from a script as from the command line) while the viewport
    stays at frame 1: each bound mesh (CPU mode; GPU mode; a Mirror above; each with a keyed shape
    key) renders at the rendered frame as its twin, which keeps the Armature modifier, renders
    there. Compared by their silhouettes: a render's depsgraph evaluates frames of its own, which
    Blender does not copy back to the original objects skn read (it rendered the viewport's pose:
    122 of 154 pixels of the arm wrong at frame 10)."""
    scene = bpy.context.scene
    arm = rig("Rendered")
    pairs = []
    for kind in ("CPU", "GPU", "Mirror"):
        both = (mesh(f"Rendered{kind}", arm), mesh(f"Rendered{kind}Twin", arm))
        for o in both:
            if kind == "Mirror":  # another arm beside it (moved before the keys, which then hold it)
                m = o.modifiers.new("Mirror", "MIRROR")
                m.use_axis = (False, True, False)
                with bpy.context.temp_override(object=o):
                    bpy.ops.object.modifier_move_to_index(modifier=m.name, index=0)
                for v in o.data.vertices:
                    v.co.y += 0.5
            o.shape_key_add(name="Basis")
            k = o.shape_key_add(name="Swell")
            for p in k.data:
                p.co.y, p.co.z = p.co.y * 1.5, p.co.z * 1.5
            k.value = 0.0
            k.keyframe_insert("value", frame=1)
            k.value = 1.0
            k.keyframe_insert("value", frame=10)
        pairs.append((kind, *both))
    camera = bpy.data.objects.new("RenderCamera", bpy.data.cameras.new("RenderCamera"))
    camera.data.type, camera.data.ortho_scale, camera.location = "ORTHO", 5.0, (1.0, -1.0, 6.0)
    scene.collection.objects.link(camera)
    scene.camera, scene.render.engine, scene.cycles.samples = camera, "CYCLES", 1
    scene.cycles.use_denoising = False  # (Debian's Blender has no OpenImageDenoise)
    scene.render.resolution_x = scene.render.resolution_y = 64
    scene.render.film_transparent, scene.render.image_settings.color_mode = True, "RGBA"
    scene.frame_set(1)
    for kind, obj, _ in pairs:
        activate(obj)
        obj.skn.mode = "GPU" if kind == "GPU" else "CPU"
        bpy.ops.skn.bind()
    shown = [o for _, a, b in pairs for o in (a, b)]
    with tempfile.TemporaryDirectory() as d:
        def silhouette(obj, frame):
            for o in bpy.data.objects:
                o.hide_render = o.type == "MESH" and o != obj
            scene.frame_start = scene.frame_end = frame
            scene.render.filepath = os.path.join(d, obj.name + "_")
            bpy.ops.render.render(animation=True)
            image = bpy.data.images.load(os.path.join(d, f"{obj.name}_{frame:04d}.png"))
            alpha = numpy.array(image.pixels[:])[3::4] > 0.5
            bpy.data.images.remove(image)
            return alpha

        for frame in (10, 5):
            for kind, obj, twin in pairs:
                ours, theirs = silhouette(obj, frame), silhouette(twin, frame)
                check(f"rendered at frame {frame}, the viewport at {scene.frame_current}: {kind} mode's mesh as the "
                      f"modifier's" if kind != "Mirror" else f"rendered at frame {frame}: with a Mirror above, as the "
                      f"modifier's", int((ours != theirs).sum()) == 0 and theirs.sum() > 50,
                      f"{int((ours != theirs).sum())} of {int(theirs.sum())} pixels differ")
        arm.hide_render = True  # a rig disabled in renders: the render poses it only for an enabled modifier
        kind, obj, twin = pairs[0]
        ours, theirs = silhouette(obj, 10), silhouette(twin, 10)
        check("rendered at frame 10, the armature disabled in renders: as the modifier's",
              int((ours != theirs).sum()) == 0 and theirs.sum() > 50 and obj.skn.bound and "skn" in obj.modifiers,
              f"{int((ours != theirs).sum())} of {int(theirs.sum())} pixels differ")
        arm.hide_render = False
    for o in shown:
        o.hide_render = False
    for _, obj, _ in pairs:
        activate(obj)
        bpy.ops.skn.unbind()


def exported():
    """glTF and FBX exports of a bound, posed mesh, read back by Blender's importers: each has its
    skin (an Armature modifier on the imported mesh) and the rest mesh as its coordinates, as without
    skn; the mesh is still bound after. (The exporters read the Armature modifier's Object, which
    skn holds while bound: before, the glTF's mesh had no skin.)"""
    scene = bpy.context.scene
    arm = rig("Exported")
    obj = mesh("Exported", arm)
    rest = world(obj, coords(obj))
    scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    scene.frame_set(10)
    with tempfile.TemporaryDirectory() as d:
        files = {"glTF": os.path.join(d, "exported.gltf"), "FBX": os.path.join(d, "exported.fbx")}
        for o in bpy.context.view_layer.objects:
            o.select_set(o in (obj, arm))
        bpy.ops.export_scene.gltf(filepath=files["glTF"], export_format="GLTF_SEPARATE", use_selection=True)
        bpy.ops.export_scene.fbx(filepath=files["FBX"], use_selection=True)
        check("exported: still bound after, skn deforming it", obj.skn.bound and "skn" in obj.modifiers and
              not obj.modifiers["Armature"].show_viewport and obj.modifiers["Armature"].object is None)
        for kind, path in files.items():
            bpy.ops.wm.read_homefile(use_empty=True)
            if kind == "glTF":
                bpy.ops.import_scene.gltf(filepath=path)
            else:
                bpy.ops.import_scene.fbx(filepath=path)
            got = [o for o in bpy.context.scene.objects if o.type == "MESH"]
            skinned = [o for o in got if any(m.type == "ARMATURE" and m.object for m in o.modifiers)]
            worst = math.inf
            if len(got) == 1:  # (an importer splits vertices at seams: each one matched with its nearest)
                dist = numpy.linalg.norm(world(got[0], coords(got[0]))[:, None, :] - rest[None, :, :], axis=2)
                worst = float(max(dist.min(axis=1).max(), dist.min(axis=0).max()))
            check(f"exported to {kind} while bound: the mesh skinned, its rest as the mesh's",
                  len(skinned) == 1 and worst < 1e-4, f"{len(got)} meshes, {len(skinned)} skinned, max {worst:.2e}")


def blenders_apply_refused():
    """Blender's own Apply, Apply as Shape Key and Save as Shape Key on a bound mesh's Armature
    modifier (its dropdown, Ctrl+A): Blender refuses each ("Modifier is disabled, skipping apply":
    skn holds the switched-off modifier's Object), and nothing changes: still bound, no key added,
    the modifier's deformation. skn's Apply and Save as Shape Key (the panel) are the ones that
    apply (saved_as_shape_key). (Holding the
    modifier's Bind To instead of its Object, tried: each then ran on a modifier that reads no bone,
    and Apply left the mesh at rest, 1.09 off, unbound; Save as Shape Key saved the rest.)"""
    scene = bpy.context.scene
    arm = rig("BlenderApply")
    obj = mesh("BlenderApply", arm)
    want = bound_posed(obj)
    for op, kw in (("modifier_apply", {}), ("modifier_apply_as_shapekey", {"keep_modifier": False}),
                   ("modifier_apply_as_shapekey", {"keep_modifier": True})):
        with bpy.context.temp_override(object=obj, active_object=obj):
            result, report = run(lambda: getattr(bpy.ops.object, op)(modifier="Armature", **kw))
        bpy.context.view_layer.update()
        scene.frame_set(10)
        worst = float(numpy.abs(evaluated(obj) - want).max())
        check(f"Blender's {op}{' (keep)' if kw.get('keep_modifier') else ''} on a bound mesh's modifier: refused "
              f"with Blender's words, nothing changed", result == {"CANCELLED"} and "Modifier is disabled" in report
              and obj.skn.bound and obj.data.shape_keys is None and "Armature" in obj.modifiers and worst < 1e-5,
              f"{report} max {worst:.2e}")


def saved_as_shape_key():
    """skn's Save as Shape Key on a bound, posed mesh beside a twin whose Armature modifier Blender
    saves as a shape key (keep the modifier): a mesh without keys (a Basis made first), one whose key
    is at 0.5 (the pose of the mix), and one with a Mirror above the Armature modifier (Blender saves
    the mesh itself deformed, and says the modifier was not first): the same keys, named after the
    modifier, at the twin's coordinates; the mesh still bound and deformed as the twin after."""
    scene = bpy.context.scene
    arm = rig("SavedKey")
    for how in ("no keys", "a key at 0.5", "a Mirror above"):
        obj, twin = mesh("SavedKey", arm), mesh("SavedKeyTwin", arm)
        for o in (obj, twin):
            if how == "a key at 0.5":
                o.shape_key_add(name="Basis")
                k = o.shape_key_add(name="Fat", from_mix=False)
                for p in k.data:
                    p.co.y *= 1.3
                k.value = 0.5
            elif how == "a Mirror above":
                o.modifiers.new("Mirror", "MIRROR").use_axis = (False, True, False)
                with bpy.context.temp_override(object=o):
                    bpy.ops.object.modifier_move_to_index(modifier="Mirror", index=0)
        bound_posed(obj)
        with bpy.context.temp_override(object=twin, active_object=twin):
            bpy.ops.object.modifier_apply_as_shapekey(keep_modifier=True, modifier="Armature")
        activate(obj)
        result = bpy.ops.skn.save_shape_key()
        keys = [[b.name for b in o.data.shape_keys.key_blocks] if o.data.shape_keys else [] for o in (obj, twin)]
        worst = math.inf
        if keys[0] == keys[1] and keys[0]:
            got, want = (numpy.array([p.co for p in o.data.shape_keys.key_blocks[keys[0][-1]].data]) for o in (obj, twin))
            worst = float(numpy.abs(got - want).max())
        bpy.context.view_layer.update()
        scene.frame_set(5)
        after = float(numpy.abs(evaluated(obj) - evaluated(twin)).max())
        check(f"Save as Shape Key (skn), {how}: the twin's keys, its new one at the twin's coordinates; still "
              f"bound, deformed as the twin", result == {"FINISHED"} and worst < 1e-5 and obj.skn.bound and
              after < 1e-5 and not obj.skn.error, f"{keys} max {worst:.2e}, after {after:.2e} {obj.skn.error}")
        for o in (obj, twin):
            bpy.data.objects.remove(o)


def result_helper(addon):
    """How skn's result reaches the stack (stack.py): the result helper's points, read by the "skn"
    modifier. After a frame skn skins straight into the points' coordinates in Blender's memory
    (points_view), and the mesh is the modifier's; the copy it makes where that layout is not
    checked gives the same mesh, bit for bit; a layout is not taken as checked from points that
    are all alike (the check could not fail), nor kept for another count of points; and a helper
    with other than one point a vertex (none, or one short: a mesh changed before the next frame)
    leaves the mesh as its input, not collapsed, until the next frame writes it again."""
    stack, scene = addon.stack, bpy.context.scene
    arm = rig("Result")
    obj = mesh("Result", arm)
    scene.frame_set(7)
    want7 = evaluated(obj)
    want = bound_posed(obj)
    o, n = stack.helpers(obj)[1], len(obj.data.vertices)
    scene.frame_set(9)
    scene.frame_set(10)
    worst = float(numpy.abs(evaluated(obj) - want).max())
    check("the result helper: skn skins into its points in Blender's memory, the mesh the modifier's",
          stack.points_view(o, n) is not None and worst < 1e-5, f"max {worst:.2e}")
    scene.frame_set(7)
    direct = evaluated(obj)
    stack._layouts.clear()  # (the copy's path, as for a helper just made)
    addon.live.refresh(obj, force=True)
    copied = evaluated(obj)
    check("... copied in instead (a layout not checked): the same mesh, bit for bit, the modifier's",
          numpy.array_equal(direct, copied) and float(numpy.abs(copied - want7).max()) < 1e-5 and
          stack.points_view(o, n) is not None, f"max {float(numpy.abs(copied - want7).max()):.2e}")
    stack._layouts.clear()
    alike = numpy.ones((n, 3), numpy.float32)
    stack.write(o, alike)
    refused = stack.points_view(o, n) is None
    stack.write(o, direct)
    check("... points all alike leave the layout unchecked; another count of points is not given the array",
          refused and stack.points_view(o, n) is not None and stack.points_view(o, n - 1) is None)
    rest = coords(obj)
    for label, points in (("no points", direct[:0]), ("a point short", direct[:-1])):
        stack.write(o, points)
        bpy.context.view_layer.update()
        got = evaluated(obj)
        check(f"... {label} in the helper: the mesh as its input (its rest), not collapsed",
              numpy.array_equal(got, rest), f"max {float(numpy.abs(got - rest).max()):.2e}")
    scene.frame_set(10)
    worst = float(numpy.abs(evaluated(obj) - want).max())
    check("... and the next frame the modifier's again", worst < 1e-5 and stack.points_view(o, n) is not None,
          f"max {worst:.2e}")
    bpy.ops.skn.unbind()


def keyed_arm(name, arm, below=()):
    """The arm's cylinder with a shape key keyed from 0 at frame 1 to 1 at frame 10 (it swells), and
    the modifiers `below` (types) after the Armature modifier."""
    obj = mesh(name, arm)
    obj.shape_key_add(name="Basis")
    swell = obj.shape_key_add(name="Swell", from_mix=False)
    for p in swell.data:
        p.co.y, p.co.z = 1.4 * p.co.y, 1.4 * p.co.z
    for frame, value in ((1, 0.0), (10, 1.0)):
        swell.value = value
        swell.keyframe_insert("value", frame=frame)
    for kind in below:
        m = obj.modifiers.new({"PARTICLE_SYSTEM": "Hair"}.get(kind, kind), kind)  # (hair_of's name)
        if kind == "SUBSURF":
            m.levels = 1
    return obj


def smoothed_arm(name, arm, bind):
    """keyed_arm with a Corrective Smooth below: its rest the original coordinates, or (`bind`) the
    coordinates bound at frame 1, by its Bind button."""
    obj = keyed_arm(name, arm, ("CORRECTIVE_SMOOTH",))
    if bind:
        obj.modifiers["CORRECTIVE_SMOOTH"].rest_source = "BIND"
        bpy.context.scene.frame_set(1)
        with bpy.context.temp_override(object=obj, active_object=obj):
            bpy.ops.object.correctivesmooth_bind(modifier="CORRECTIVE_SMOOTH")
    return obj


MOVED, REPARENTED = "Subdivision (the mesh under a moving Empty)", 6  # (given another moving parent by a script then)
SHIFTED = 9  # (each keyed mesh moved and turned by a script, then frame_set: skinned where it is now)
MISPLACED = "Corrective Smooth", 4  # (placed wrong inside the evaluation then: the handler skins it again)
FIRST_PASS_BELOW = {"Subdivision": lambda n, a: keyed_arm(n, a, ("SUBSURF",)),
                    "Corrective Smooth": lambda n, a: smoothed_arm(n, a, False),
                    "Corrective Smooth bound": lambda n, a: smoothed_arm(n, a, True),
                    MOVED: lambda n, a: parented_keyed_arm(n, a),
                    "Mirror above": lambda n, a: mirrored_keyed_arm(n, a)}
HANDLED = "Mirror above"  # (modifiers above: skinned by the frame's handler, not inside the evaluation)


def parented_keyed_arm(name, arm):
    """keyed_arm with a Subdivision Surface below, parented to an Empty that moves and turns from
    frame 1 to 10, its parent inverse not 1: the mesh moves and its armature stands, so its place
    in the armature's space (premat) changes every frame, as its parent places it (driven.placed)."""
    obj = keyed_arm(name, arm, ("SUBSURF",))
    obj.parent = moving_empty(f"{name} carrier", ((0.3, -0.2, 0.4), (0.3, 0.0, 0.5)))
    obj.matrix_parent_inverse = Matrix.Translation((0.1, 0.0, -0.05)) @ Matrix.Rotation(0.2, 4, "Z")
    return obj


def moving_empty(name, to):
    """An Empty keyed from the origin at frame 1 to `to` (location, rotation) at frame 10."""
    empty = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(empty)
    for frame, (location, rotation) in ((1, ((0, 0, 0), (0, 0, 0))), (10, to)):
        empty.location, empty.rotation_euler = location, rotation
        empty.keyframe_insert("location", frame=frame)
        empty.keyframe_insert("rotation_euler", frame=frame)
    return empty


def mirrored_keyed_arm(name, arm):
    """keyed_arm with a Mirror above the Armature modifier and a Subdivision Surface below."""
    obj = keyed_arm(name, arm, ("SUBSURF",))
    obj.modifiers.new("Mirror", "MIRROR").use_axis = (False, True, False)
    with bpy.context.temp_override(object=obj):
        bpy.ops.object.modifier_move_to_index(modifier="Mirror", index=0)
    return obj


def first_pass(addon):
    """The frame's first pass (stack.py, driven.py). A keyed mesh, which Blender evaluates in the
    frame's first pass, is skinned inside that evaluation (driven.py): there, at every frame, it is
    already the modifier's twin's, its result helper never scaled to 0 (Subdivision and Corrective
    Smooth below, its rest the original or bound coordinates; the mesh under a moving parent, which
    places it there before Blender does, and from the frame after a script gave it another; at a
    frame a script moved each mesh before); a frame where that fails, where the driver does not
    name the parent, or where it placed the mesh otherwise than Blender, is skinned
    by the frame's handler. One skinned by the handler (modifiers above) gives nothing in the first
    pass from the second frame played on (the modifiers below with nothing to do), and after the
    handler every frame the twin's, the helper at scale 1. Not for a mesh Blender does not evaluate
    there (no keys), nor one with hair below (its particles grown again from the pose at each
    change of the vertex count), whose hair stays where the modifier puts it; a frame whose refresh
    fails leaves the mesh with its last result."""
    scene = bpy.context.scene
    arm = rig("Pass")
    keyed = {label: (make(f"Pass {label}", arm), make(f"PassTwin {label}", arm))
             for label, make in FIRST_PASS_BELOW.items()}
    plain, hairy = mesh("PassPlain", arm), keyed_arm("PassHairy", arm, ("PARTICLE_SYSTEM",))
    settings = hairy.particle_systems[0].settings
    settings.type, settings.count, settings.hair_length = "HAIR", 100, 0.2
    scene.frame_set(1)  # (the hair grown here, in the rest pose: skn's stack, changed at Bind, regrows it here too)
    hair_want = {f: (scene.frame_set(f), hair_of(hairy))[1] for f in range(2, 11)}
    scene.frame_set(1)
    bound = [o for o, _ in keyed.values()] + [plain, hairy]
    for o in bound:
        activate(o)
        bpy.ops.skn.bind()
    first = {o.name: [] for o in bound}  # per frame: (its helper's scale, its vertex count) in pass 0
    early = {label: [] for label in keyed}  # per frame: the largest distance from the twin in pass 0

    def spy(scene, depsgraph):  # ahead of skn's handler: what the first pass left
        for o in bound:
            first[o.name].append((o.skn.stack_offsets.scale[0], len(o.evaluated_get(depsgraph).data.vertices)))
        for label, (o, twin) in keyed.items():
            got, want = (evaluated_in(x, depsgraph) for x in (o, twin))
            early[label].append(float(numpy.abs(got - want).max()) if len(got) == len(want) else numpy.inf)
    worst = {label: 0.0 for label in keyed}
    held = set()  # the meshes whose helper's own points were not its evaluated ones after a frame
    worst["hair"], scales, failing, refresh, in_frame, last = 0.0, set(), 7, addon.live.refresh, \
        addon.live.refresh_in_frame, None
    sub, inside = keyed[HANDLED][0], keyed["Subdivision"][0]

    def refresh_failing(o, *args, **kwargs):
        if o == sub and scene.frame_current == failing:
            raise RuntimeError("made to fail")
        return refresh(o, *args, **kwargs)

    def in_frame_failing(o, *args, **kwargs):
        if o == inside and scene.frame_current == failing:
            raise RuntimeError("made to fail inside the evaluation")
        return in_frame(o, *args, **kwargs)
    placed, misplaced = addon.driven.placed, keyed[MISPLACED[0]][0]

    def placed_wrong(o, checked=True, depsgraph=None):
        at = placed(o, checked, depsgraph)
        if o == misplaced and not checked and scene.frame_current == MISPLACED[1]:
            return addon.core.Placed(o, Matrix.Translation((0.5, 0.0, 0.0)) @ at.matrix_world)
        return at
    bpy.app.handlers.frame_change_post.insert(0, spy)
    addon.live.refresh, addon.live.refresh_in_frame, addon.driven.placed = refresh_failing, in_frame_failing, \
        placed_wrong
    try:
        for f in range(2, 11):
            if f == REPARENTED:  # (a script's, then frame_set: the handler skins it and names the new parent)
                for o in keyed[MOVED]:
                    o.parent = moving_empty(f"{o.name} second carrier", ((-0.2, 0.3, 0.1), (0.0, 0.4, -0.3)))
            if f == SHIFTED:
                for o in [o for pair in keyed.values() for o in pair]:
                    o.location.x, o.rotation_euler.z = o.location.x + 0.3, o.rotation_euler.z + 0.2
            scene.frame_set(f)
            if f == failing:  # the last frame's result, exactly (the helper's points hold it)
                kept = numpy.array_equal(evaluated(sub), last) and sub.skn.stack_offsets.scale[0] == 1.0 and \
                    "made to fail" in sub.skn.error
            else:
                last = evaluated(sub)
            for label, (o, twin) in keyed.items():
                if label == HANDLED and f == failing:
                    continue
                got, want = evaluated(o), evaluated(twin)
                worst[label] = max(worst[label], float(numpy.abs(got - want).max()) if len(got) == len(want)
                                   else numpy.inf)
            scales |= {tuple(o.skn.stack_offsets.scale) for o in bound}
            held.update(label for label, (o, _) in keyed.items()  # (the getter's copy: stack.copy_points)
                        if not numpy.array_equal(coords(o.skn.stack_offsets), evaluated(o.skn.stack_offsets)))
            worst["hair"] = max(worst["hair"], float(numpy.abs(hair_of(hairy) - hair_want[f]).max()))
    finally:
        addon.live.refresh, addon.live.refresh_in_frame, addon.driven.placed = refresh, in_frame, placed
        bpy.app.handlers.frame_change_post.remove(spy)
    _first_pass_checks(keyed, first, early, worst, scales, kept, failing, plain, hairy)
    off = early[MISPLACED[0]][MISPLACED[1] - 2]
    check(f"... placed inside the evaluation where Blender does not place it (made so at a frame, {MISPLACED[0]}): "
          "the frame's handler skins it again, the twin's after the frame (driven.placed_as_blender)",
          off > 0.1 and worst[MISPLACED[0]] < 1e-5, f"{off:.2e} in pass 0, after {worst[MISPLACED[0]]:.2e}")
    check("... every result helper's own points what was skinned into it as evaluated, bit for bit (a helper "
          "evaluated again from them holds the frame's result)", not held, ", ".join(sorted(held)))
    for o in bound:
        activate(o)
        bpy.ops.skn.unbind()


def evaluated_in(obj, depsgraph):
    m = obj.evaluated_get(depsgraph).data
    out = numpy.empty(len(m.vertices) * 3, numpy.float32)
    m.vertices.foreach_get("co", out)
    return out.reshape(-1, 3)


def _first_pass_checks(keyed, first, early, worst, scales, kept, failing, plain, hairy):
    sub = keyed[HANDLED][0]
    skipped = {label: [n == 0 and scale == 0.0 for scale, n in first[o.name]] for label, (o, _) in keyed.items()}
    for label in keyed:  # (frame 2, the first after Bind: the handler's, as Blender's depsgraph takes the driver in)
        if label != HANDLED:
            inside = [d for f, d in zip(range(2, 11), early[label]) if f > 2 and not (label == "Subdivision" and
                                                                                      f == failing) and
                      not (label == MOVED and f == REPARENTED) and (label, f) != MISPLACED]
            check(f"the frame's first pass: a keyed mesh, {label} below, skinned inside the frame's evaluation "
                  f"(driven.py): there already the modifier's twin's from the second frame played on, never given "
                  f"nothing", max(inside) < 1e-5 and not any(skipped[label]),
                  f"{' '.join(f'{d:.1e}' for d in early[label])}; {first[keyed[label][0].name]}")
    check("... where that fails, the frame's handler skins it: after the frame the twin's",
          worst["Subdivision"] < 1e-5, f"max {worst['Subdivision']:.2e}")
    check(f"... skinned by the frame's handler ({HANDLED}, Subdivision below): gives nothing there from the second "
          "frame played on (and the second after a frame that wrote nothing)",
          skipped[HANDLED] == [f not in (2, failing + 1) for f in range(2, 11)], str(first[sub.name]))
    for label, (o, _) in keyed.items():
        smooth = o.modifiers.get("CORRECTIVE_SMOOTH")
        check(f"... {label}: after skn's handler every frame the modifier's twin's",
              worst[label] < 1e-5 and (smooth is None or (smooth.rest_source != "BIND" or smooth.is_bind)),
              f"max {worst[label]:.2e}")
    check("... every result helper at scale 1 after the frame", scales == {(1.0, 1.0, 1.0)}, str(scales))
    check("... a frame whose refresh fails: the mesh keeps the last frame's result, the helper at scale 1, the panel "
          "says why", kept, sub.skn.error)
    check("... a mesh without keys (not evaluated there) and one with hair below: never",
          not any(scale == 0.0 for name in (plain.name, hairy.name) for scale, _ in first[name]),
          f"{first[plain.name]} {first[hairy.name]}")
    check("... the hair's roots and tips where the modifier puts them at every frame", worst["hair"] < 1e-5,
          f"max {worst['hair']:.2e}")


def rig_not_posed(addon):
    """An armature Blender does not pose of itself (disabled in the viewport, in an excluded
    collection) poses only for an enabled Armature modifier: there the modifier deforms the bound
    mesh, the panel saying why, and skn again once the armature is enabled. Hidden with H, Blender
    still poses it: skn's all along."""
    scene = bpy.context.scene
    arm = rig("Unposed")
    obj = mesh("Unposed", arm)
    want = {}
    for frame in (4, 10):
        scene.frame_set(frame)
        want[frame] = evaluated(obj)
    scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    rig_collection = bpy.data.collections.new("UnposedRig")
    scene.collection.children.link(rig_collection)
    layer = bpy.context.view_layer.layer_collection.children[rig_collection.name]

    def shown(label, skn_deforms):
        bpy.context.view_layer.update()  # (the UI's update after the change)
        worst = 0.0
        for frame in (4, 10):
            scene.frame_set(frame)
            worst = max(worst, float(numpy.abs(evaluated(obj) - want[frame]).max()))
        check(f"the armature {label}: the mesh follows it, {'skn' if skn_deforms else 'the modifier'} deforming it",
              worst < 1e-5 and obj.skn.bound and ("skn" in obj.modifiers) == skn_deforms and
              (skn_deforms or "poses it only for the Armature modifier" in addon.takeover.modifier_deforms(obj)),
              f"max {worst:.2e}")

    arm.hide_set(True)
    shown("hidden (H)", True)
    arm.hide_set(False)
    arm.hide_viewport = True
    shown("disabled in the viewport", False)
    arm.hide_viewport = False
    shown("enabled again", True)
    scene.collection.objects.unlink(arm)
    rig_collection.objects.link(arm)
    layer.exclude = True
    shown("in an excluded collection", False)
    layer.exclude = False
    shown("in the collection included again", True)
    bpy.ops.skn.unbind()


def armature_gone():
    """A bound mesh whose armature is gone from it, beside a twin given the same: converted to a mesh
    (Object > Convert > Mesh bakes the deformation in), or its Armature modifier removed. The binding
    ends, the mesh as the twin's, no "skn" modifier or helper left, the panel saying why. (Converted,
    skn put its modifier back and added the last offsets again: 1.19 off.)"""
    scene = bpy.context.scene
    arm = rig("Gone")
    for k, how in enumerate(("converted to a mesh", "with its Armature modifier removed")):
        obj, twin = mesh(f"Gone{k}", arm), mesh(f"Gone{k}Twin", arm)
        bound_posed(obj)
        for o in (obj, twin):
            if k == 0:
                for other in bpy.context.view_layer.objects:
                    other.select_set(other == o)
                bpy.context.view_layer.objects.active = o
                bpy.ops.object.convert(target="MESH")
            else:
                o.modifiers.remove(o.modifiers["Armature"])
        bpy.context.view_layer.update()
        scene.frame_set(5)
        scene.frame_set(10)
        worst = float(numpy.abs(evaluated(obj) - evaluated(twin)).max())
        check(f"a bound mesh {how}: unbound, as the twin, nothing of skn's left",
              worst < 1e-5 and not obj.skn.bound and "skn" not in obj.modifiers and
              not [o.name for o in bpy.data.objects if o.name.startswith(obj.name + " (skn")] and
              obj.skn.error.startswith("unbound: the mesh has no Armature modifier"), f"max {worst:.2e} {obj.skn.error}")


def scripted_edits(addon):
    """A script's changes, each followed by scene.frame_set with no update between: Blender
    evaluates them with the frame and reports them nowhere else (no depsgraph_update_post), and
    the modifier deforms by them (handlers.edited_meshes of a frame). Against a twin given the same
    change: weights set by VertexGroup.add, rest coordinates (with shape keys, a key's), a bone's
    Deform off, a bone's B-Bone segments, Preserve Volume on, a bone renamed, the bound mesh itself
    renamed (twice); on a mesh alone and on one with a keyed shape key, whose frames Blender reports as the mesh's and its Key's updates every
    frame: those frames bind nothing again."""
    scene = bpy.context.scene
    for keyed in (False, True):
        name = "ScriptedKeyed" if keyed else "Scripted"
        arm = rig(name)
        obj, twin = mesh(name, arm), mesh(name + "Twin", arm)
        if keyed:
            for o in (obj, twin):
                o.shape_key_add(name="Basis")
                swell = o.shape_key_add(name="Swell", from_mix=False)
                for p in swell.data:
                    p.co.x *= 1.3
                swell.value = 0.0
                swell.keyframe_insert("value", frame=1)
                swell.value = 1.0
                swell.keyframe_insert("value", frame=10)
        scene.frame_set(1)
        activate(obj)
        bpy.ops.skn.bind()
        frame = [2]
        label = "keyed: " if keyed else ""

        def alike(what):
            frame[0] += 1
            scene.frame_set(frame[0])  # the change evaluated with the frame, and only there
            ours, theirs = evaluated(obj), evaluated(twin)
            worst = float(numpy.abs(ours - theirs).max()) if ours.shape == theirs.shape else math.inf
            check(f"scripted, then frame_set: {label}{what}", worst < 1e-5 and obj.skn.bound and not obj.skn.error,
                  f"max {worst:.2e} at frame {frame[0]} {obj.skn.error}")

        scene.frame_set(2)
        bpy.context.view_layer.update()
        for o in (obj, twin):
            o.vertex_groups["fore"].add(list(range(60, 120)), 0.9, "REPLACE")
        alike("weights set by VertexGroup.add")
        for o in (obj, twin):
            points = o.data.shape_keys.key_blocks["Swell"].data if keyed else o.data.vertices
            for i in range(200, 236):
                points[i].co.z += 0.1
        alike("the shape key's coordinates set" if keyed else "rest coordinates set")
        arm.data.bones["upper"].use_deform = False
        alike("a bone's Deform off")
        arm.data.bones["upper"].use_deform = True
        arm.data.bones["fore"].bbone_segments = 4
        alike("a bone's B-Bone segments")
        for o in (obj, twin):
            o.modifiers["Armature"].use_deform_preserve_volume = True
        alike("Preserve Volume on")
        arm.data.bones["fore"].name = "forearm"  # Blender renames the twin's group, skn the bound mesh's
        alike("a bone renamed")
        check(f"scripted, then frame_set: {label}the bound mesh's group renamed with its bone",
              "forearm" in obj.vertex_groups and "fore" not in obj.vertex_groups)
        b = addon.state.bindings.get(obj.name)
        for f in (8, 9, 10, 9):
            scene.frame_set(f)
        same = addon.state.bindings.get(obj.name) is b
        check(f"scripted, then frame_set: {label}frames alone bind nothing again", b is not None and same)
        frame[0] = 4  # (frames the loop above did not end on)
        obj.name = name + " renamed"  # (live.bound_objects: the name it kept no longer names a bound mesh)
        alike("the bound mesh renamed")
        obj.name = name + " again"
        alike("renamed again")
        activate(obj)
        bpy.ops.skn.unbind()


def scripted_gpu_mode(addon):
    """GPU mode, a Subdivision Surface added below by a script and then scene.frame_set, no update
    between (handlers.edited_meshes' frames): skinned on the CPU and drawn by Blender, as the twin's
    modifier deforms it, saying why; the modifier removed so: the shader draws it again. Before,
    the shader's display stayed (the mesh drawn as its bounds, 0.81 off the twin's)."""
    scene = bpy.context.scene
    arm = rig("ScriptedGpu")
    obj, twin = mesh("ScriptedGpu", arm), mesh("ScriptedGpuTwin", arm)
    scene.frame_set(1)
    activate(obj)
    obj.skn.mode = "GPU"
    bpy.ops.skn.bind()
    scene.frame_set(3)
    bpy.context.view_layer.update()
    check("scripted, then frame_set: GPU mode, the shader draws it", addon.modes.gpu_drawn(obj) and
          bool(obj.skn.display_saved), obj.skn.error)
    for o in (obj, twin):
        o.modifiers.new("Subsurf", "SUBSURF").levels = 1
    scene.frame_set(5)
    ours, theirs = evaluated(obj), evaluated(twin)
    worst = float(numpy.abs(ours - theirs).max()) if ours.shape == theirs.shape else math.inf
    check("scripted, then frame_set: a modifier added below in GPU mode: on the CPU, Blender drawing it, saying why",
          not addon.modes.gpu_drawn(obj) and not obj.skn.display_saved and obj.display_type == "TEXTURED" and
          worst < 1e-5 and '"Subsurf"' in obj.skn.error, f"max {worst:.2e}, drawn as {obj.display_type}; {obj.skn.error}")
    for o in (obj, twin):
        o.modifiers.remove(o.modifiers["Subsurf"])
    scene.frame_set(7)
    check("scripted, then frame_set: ... removed: the shader draws it again",
          addon.modes.gpu_drawn(obj) and bool(obj.skn.display_saved) and not obj.skn.error, obj.skn.error)
    activate(obj)
    bpy.ops.skn.unbind()


def edit_mode_live():
    """Edit Mode with the modifier's Show In Edit Mode on, a bound mesh and a twin edited alike (both
    in Edit Mode): vertices moved on the bent forearm show where the modifier puts them, as the
    twin's (the Armature modifier deforms a mesh in Edit Mode: before, skn added the last frame's
    offsets to the edited vertices, 0.30 off), and skn's again after."""
    arm = rig("Edited")
    obj, twin = mesh("Edited", arm), mesh("EditedTwin", arm)
    for o in (obj, twin):
        o.modifiers["Armature"].show_in_editmode = True
    bound_posed(obj)
    for other in bpy.context.view_layer.objects:
        other.select_set(other in (obj, twin))
    bpy.ops.object.mode_set(mode="EDIT")  # both (Blender edits every selected mesh)
    for o in (obj, twin):
        bm = bmesh.from_edit_mesh(o.data)
        bm.verts.ensure_lookup_table()
        for i in range(200, 240):
            bm.verts[i].co.y += 0.3
        bmesh.update_edit_mesh(o.data)
    bpy.context.view_layer.update()
    worst = float(numpy.abs(evaluated(obj) - evaluated(twin)).max())
    check("Edit Mode, vertices moved on the bent forearm: shown where the modifier puts them, as the twin's",
          worst < 1e-5, f"max {worst:.2e}")
    bpy.ops.object.mode_set(mode="OBJECT")
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.update()
    worst = float(numpy.abs(evaluated(obj) - evaluated(twin)).max())
    check("... Edit Mode left: skn's again, as the twin's", worst < 1e-5 and "skn" in obj.modifiers and
          not obj.modifiers["Armature"].show_viewport, f"max {worst:.2e}")
    bpy.context.view_layer.objects.active = obj  # Sculpt Mode: Blender sculpts through the deform modifiers
    bpy.ops.object.mode_set(mode="SCULPT")
    stack = [(m.name, m.show_viewport, m.object is not None) for m in obj.modifiers]
    check("Sculpt Mode: the modifier deforms the mesh, the stack the twin's (Blender sculpts through it)",
          stack == [("Armature", True, True)] and float(numpy.abs(evaluated(obj) - evaluated(twin)).max()) < 1e-5,
          str(stack))
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    check("... Sculpt Mode left: skn's again", "skn" in obj.modifiers and not obj.modifiers["Armature"].show_viewport
          and float(numpy.abs(evaluated(obj) - evaluated(twin)).max()) < 1e-5)


def shared_mesh():
    """One mesh, two objects (a linked duplicate, Alt+D), each with its own Armature modifier and
    armature: each bound deforms as its modifier did, the other untouched, Bound or not; Apply
    refused with Blender's words for multi-user data; Unbind of one leaves the other skn's."""
    scene = bpy.context.scene
    arm, other_arm = rig("SharedA"), arm_rig("SharedB", Quaternion((0, 1, 0), math.radians(60)))
    obj = mesh("Shared", arm)
    other = bpy.data.objects.new("SharedOther", obj.data)
    scene.collection.objects.link(other)
    other.location.y = 2.0
    m = other.modifiers.new("Armature", "ARMATURE")
    m.object, m.use_deform_preserve_volume = other_arm, True
    scene.frame_set(10)
    want, want_other = evaluated(obj), evaluated(other)

    def both(label, bound):
        bpy.context.view_layer.update()
        worst = max(float(numpy.abs(evaluated(o) - w).max()) for o, w in ((obj, want), (other, want_other)))
        check(f"a shared mesh: {label}", worst < 1e-5 and [obj.skn.bound, other.skn.bound] == bound and
              not obj.skn.error and not other.skn.error, f"max {worst:.2e} {obj.skn.error} {other.skn.error}")

    stale = obj.data.attributes.new("skn_offset", "FLOAT_VECTOR", "POINT")  # an earlier add-on's offsets (an
    stale.data.foreach_set("vector", numpy.ones(3 * len(obj.data.vertices), numpy.float32))  # autosave of one)
    scene.frame_set(1)
    activate(obj)
    check("a shared mesh: Bind (an earlier version's offsets attribute removed)", bpy.ops.skn.bind() == {"FINISHED"}
          and "skn_offset" not in obj.data.attributes)
    scene.frame_set(10)
    both("one bound, each as its modifier", [True, False])
    scene.frame_set(1)
    activate(other)
    check("a shared mesh: Bind of the other (Preserve Volume)", bpy.ops.skn.bind() == {"FINISHED"} and
          other.skn.method == "DQS")
    scene.frame_set(10)
    both("both bound, each as its modifier", [True, True])
    result, report = run(bpy.ops.skn.apply)
    check("a shared mesh: Apply refused with Blender's words", result == {"CANCELLED"} and
          "Modifiers cannot be applied to multi-user data" in report and other.skn.error ==
          "Modifiers cannot be applied to multi-user data", report)
    other.skn.error = ""
    both("both still bound after the refusal", [True, True])
    activate(obj)
    bpy.ops.skn.unbind()
    both("one unbound, the other still skn's", [False, True])
    activate(other)
    bpy.ops.skn.unbind()
    both("both unbound", [False, False])


def workflows(mirror=False):
    """Edits, weights, shape keys, bones and topology changed while bound, against a twin that
    keeps the Armature modifier; `mirror`: both with a Mirror modifier above it (skn's input helper
    follows every change)."""
    scene = bpy.context.scene
    name = "WorkMirror" if mirror else "Work"
    arm = rig(name)
    obj, twin = mesh(name, arm), mesh(name + "Twin", arm)  # the twin keeps the Armature modifier
    if mirror:
        for o in (obj, twin):
            m = o.modifiers.new("Mirror", "MIRROR")
            m.use_axis = (False, True, False)  # across the arm: another arm beside it, the same groups
            m.mirror_offset_v = 0.0
            with bpy.context.temp_override(object=o):
                bpy.ops.object.modifier_move_to_index(modifier=m.name, index=0)
            for v in o.data.vertices:
                v.co.y += 0.5
    scene.frame_set(1)
    activate(obj)
    bpy.ops.skn.bind()
    scene.frame_set(10)

    def alike(label, what=""):
        bpy.context.view_layer.update()  # the change reported; skn writes its offsets (the UI's next redraw)
        ours, theirs = evaluated(obj), evaluated(twin)
        worst = float(numpy.abs(ours - theirs).max()) if ours.shape == theirs.shape else math.inf
        check(("Mirror above: " if mirror else "") + label, worst < 1e-5 and obj.skn.bound and not obj.skn.error,
              f"max {worst:.2e}, {len(ours)} and {len(theirs)} vertices {what}{obj.skn.error}")

    alike("bound: the twin's deformation")
    activate(obj)  # Edit Mode: the rest mesh is what is edited
    bpy.ops.object.mode_set(mode="EDIT")
    bm = bmesh.from_edit_mesh(obj.data)
    bm.verts.ensure_lookup_table()
    for i in range(12):
        bm.verts[i].co.z += 0.1
    bmesh.update_edit_mesh(obj.data)
    bpy.ops.object.mode_set(mode="OBJECT")
    for i in range(12):
        twin.data.vertices[i].co.z += 0.1
    twin.data.update()
    check("Edit Mode: the edit is in the rest mesh", abs(obj.data.vertices[0].co.z - twin.data.vertices[0].co.z) < 1e-7
          and abs(obj.data.vertices[0].co.z - 0.1) < 1e-6)  # (the twin's own coordinates: as edited)
    alike("Edit Mode: the edit deforms with the pose")
    scene.frame_set(5)
    alike("Edit Mode: ... at another frame too")
    scene.frame_set(10)

    for o in (obj, twin):  # weights changed by an operator (the fore group's weights up by 0.3)
        activate(o)
        o.vertex_groups.active_index = o.vertex_groups["fore"].index
        bpy.ops.object.vertex_group_levels(offset=0.3)
    alike("weights changed after Bind: shown at once")
    for o in (obj, twin):  # and in Weight Paint mode
        activate(o)
        bpy.ops.object.mode_set(mode="WEIGHT_PAINT")
        o.vertex_groups.active_index = o.vertex_groups["upper"].index
        bpy.ops.object.vertex_group_smooth(factor=0.8, repeat=3)
        bpy.context.view_layer.update()
        bpy.ops.object.mode_set(mode="OBJECT")
    alike("weights smoothed in Weight Paint mode: shown at once")
    painted = []
    for o in (obj, twin):  # Weight Paint with the armature selected: Blender's tools find the armature
        activate(o)
        arm.select_set(True)
        bpy.ops.paint.weight_paint_toggle()
        mod = o.modifiers["Armature"]
        painted.append((arm.mode, mod.show_viewport and mod.object == arm and "skn" not in o.modifiers))
        bpy.ops.object.vertex_group_limit_total(group_select_mode="BONE_DEFORM", limit=1)  # (a Deform Pose
        bpy.ops.paint.weight_paint_toggle()                                               # Bones subset)
        arm.select_set(False)
    check(("Mirror above: " if mirror else "") + "Weight Paint with the armature selected: the armature in Pose "
          "Mode and the modifier deforming the mesh while it is painted, as the twin's",
          painted[0] == painted[1] == ("POSE", True) and obj.skn.bound and arm.mode == "OBJECT", str(painted))
    check(("Mirror above: " if mirror else "") + "... skn deforms it again after",
          "skn" in obj.modifiers and not obj.modifiers["Armature"].show_viewport and
          obj.modifiers["Armature"].object is None)
    alike("Limit Total of the deform bones' groups, in Weight Paint mode: shown at once")
    for o in (obj, twin):  # Ctrl+P > With Automatic Weights again: Blender reuses the twin's modifier
        for other in bpy.context.view_layer.objects:
            other.select_set(other in (o, arm))
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    for other in bpy.context.view_layer.objects:  # (as the steps below had it: Edit Mode edits the selected)
        other.select_set(False)
    armatures = [[m.name for m in o.modifiers if m.type == "ARMATURE"] for o in (obj, twin)]
    check(("Mirror above: " if mirror else "") + "With Automatic Weights again while bound: one Armature "
          "modifier, as the twin's", armatures[0] == armatures[1] == ["Armature"], str(armatures))
    alike("With Automatic Weights again while bound: the new weights, deformed once")

    for o in (obj, twin):  # a shape key added while bound, then its value changed
        o.shape_key_add(name="Basis")
        k = o.shape_key_add(name="Wide", from_mix=False)
        for p in k.data:
            p.co.y *= 1.4
        k.value = 0.5
    alike("a shape key added while bound: shown at once")
    for o in (obj, twin):
        o.data.shape_keys.key_blocks["Wide"].value = 0.9
    alike("its value changed: shown at once")

    for o in (obj, twin):  # the bones edited: the fore bone longer, its envelope and segments changed
        o.modifiers["Armature"].use_bone_envelopes = True
    arm.data.bones["fore"].bbone_segments = 5
    bpy.context.view_layer.update()
    alike("B-Bone segments given to a bone while bound: shown at once")
    activate(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    arm.data.edit_bones["fore"].tail.x += 0.3
    bpy.ops.object.mode_set(mode="OBJECT")
    alike("the armature edited while bound: shown at once")

    def renamed(label):  # Blender renames the twin's group with its bone; skn, the bound mesh's
        alike(label)
        check(("Mirror above: " if mirror else "") + label + ": the groups' names are the twin's",
              [g.name for g in obj.vertex_groups] == [g.name for g in twin.vertex_groups],
              f"{[g.name for g in obj.vertex_groups]} {[g.name for g in twin.vertex_groups]}")

    arm.data.bones["fore"].name = "forearm"
    renamed("a bone renamed while bound")
    activate(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    arm.data.edit_bones["forearm"].name = "fore"
    bpy.context.view_layer.update()
    bpy.ops.object.mode_set(mode="OBJECT")
    renamed("a bone renamed in Edit Mode while bound")
    for _ in range(2):  # two bones swap names, between two updates (and back)
        bones = arm.data.bones
        bones["upper"].name, bones["fore"].name = "swapping", "upper"
        bones["swapping"].name = "fore"
        renamed("two bones' names swapped while bound")

    activate(obj)
    before = evaluated(obj)
    result, report = run(bpy.ops.skn.apply)
    check(("Mirror above: " if mirror else "") + "Apply on a mesh with shape keys: refused with Blender's words",
          result == {"CANCELLED"} and "Modifier cannot be applied to a mesh with shape keys" in report and
          obj.skn.bound and numpy.array_equal(evaluated(obj), before), report)
    for o in (obj, twin):
        activate(o)
        bpy.ops.object.shape_key_remove(all=True, apply_mix=False)
    alike("shape keys removed: shown at once")

    for o in (obj, twin):  # the topology changed: bound again, not an error
        activate(o)
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        bpy.ops.mesh.subdivide(number_cuts=1)
        bpy.ops.object.mode_set(mode="OBJECT")
    alike("subdivided while bound: bound again to the new mesh", f"(was {len(before)}) ")

    count = len(obj.data.vertices)
    for o in (obj, twin):  # the tip deleted in Edit Mode
        activate(o)
        bpy.ops.object.mode_set(mode="EDIT")
        bm = bmesh.from_edit_mesh(o.data)
        bmesh.ops.delete(bm, geom=[v for v in bm.verts if v.co.x > 1.8], context="VERTS")
        bmesh.update_edit_mesh(o.data)
        bpy.ops.object.mode_set(mode="OBJECT")
    alike("vertices deleted while bound: bound again to the new mesh", f"(was {count}) ")
    count = len(obj.data.vertices)
    for o in (obj, twin):  # another mesh joined in, its vertices in the upper group
        piece = bpy.data.objects.new(f"Piece{o.name}", bpy.data.meshes.new(f"Piece{o.name}"))
        piece.data.from_pydata([(0.5, 0.6, 0.0), (0.7, 0.6, 0.0), (0.7, 0.6, 0.2)], [], [(0, 1, 2)])
        bpy.context.scene.collection.objects.link(piece)
        piece.vertex_groups.new(name="upper").add([0, 1, 2], 1.0, "REPLACE")
        for other in bpy.context.selected_objects:
            other.select_set(False)
        activate(o)
        o.select_set(True)
        piece.select_set(True)
        bpy.ops.object.join()
    check(("Mirror above: " if mirror else "") + "a mesh joined in while bound: its vertices in both",
          len(obj.data.vertices) == count + 3 and
          len(twin.data.vertices) == count + 3, f"{count} and {len(obj.data.vertices)}")
    alike("a mesh joined in while bound: bound again to the new mesh", f"(was {count}) ")

    activate(obj)
    want = evaluated(twin)
    check(("Mirror above: " if mirror else "") + "Apply", bpy.ops.skn.apply() == {"FINISHED"} and not obj.skn.bound)
    if mirror:  # Blender's Apply of a modifier not first: the mesh itself deformed, the Mirror kept
        activate(twin)
        with bpy.context.temp_override(object=twin):
            bpy.ops.object.modifier_apply(modifier="Armature")
        check("Mirror above: Apply is Blender's (the mesh itself deformed; the Mirror modifier kept)",
              numpy.abs(coords(obj) - coords(twin)).max() < 1e-5 and [m.name for m in obj.modifiers] == ["Mirror"],
              f"{numpy.abs(coords(obj) - coords(twin)).max():.2e} {[m.name for m in obj.modifiers]}")
        return
    check("Apply: the mesh is the pose's, the modifiers gone",
          numpy.abs(coords(obj) - want).max() < 1e-5 and not len(obj.modifiers))


def main():
    zip_path = install_addon()
    import skn_blender
    obj, _ = parented_without_modifier(skn_blender)
    settings_after_bind(skn_blender)
    bind_refusals()
    preserve_volume_default(skn_blender)
    skin_object_names(skn_blender, obj)
    shared_mesh()
    modifier_toggles()
    custom_normals()
    driven_corrective()
    particle_hair()
    edit_mode_live()
    scripted_edits(skn_blender)
    scripted_gpu_mode(skn_blender)
    armature_gone()
    rig_not_posed(skn_blender)
    result_helper(skn_blender)
    first_pass(skn_blender)
    gpu_mode_readers(skn_blender)
    gpu_mode_instanced(skn_blender)
    rendered_animation()
    workflows()
    workflows(mirror=True)
    saved_while_bound(zip_path)
    exported()
    blenders_apply_refused()
    saved_as_shape_key()
    linked_characters(zip_path)
    finish("blender-setups")


main()
