"""What Blender does for the meshes an Armature modifier ties to an armature, done by skn for
bound ones, whose modifier's Object skn holds (takeover.suppress): vertex groups renamed after
their bones, Ctrl+P's reuse of the mesh's Armature modifier, and Preserve Volume followed until
the user picks a method. Each runs from handlers.on_update.
"""


from . import core, live, state


def _bone_ids_of(arm):
    """(in Edit Mode, {bone pointer: name}): the bones by an identity a rename keeps (Edit Mode's
    edit bones while it lasts; leaving it makes new bones, under the same names)."""
    edit = arm.mode == "EDIT"
    return edit, {b.as_pointer(): b.name for b in (arm.data.edit_bones if edit else arm.data.bones)}


def follow_renames(arm):
    """Renames the vertex groups of the meshes bound to `arm` after its renamed bones, as Blender
    does for the meshes an Armature modifier (or an Armature Deform parent) ties to it. Blender
    does not for a bound one, whose modifier's Object skn holds (takeover.suppress): its weights would stay
    under the old name, out of skn's binding at once and out of the modifier's at Unbind. A rename
    is found by the bone's identity between two updates (the first only takes a look)."""
    now = _bone_ids_of(arm)
    before = state.bone_ids.get(arm.data.name)
    state.bone_ids[arm.data.name] = now
    if before is None or before[0] != now[0]:
        return
    renamed = [(before[1][p], name) for p, name in now[1].items() if p in before[1] and before[1][p] != name]
    for obj in live.bound_objects() if renamed else ():
        if core.find_armature(obj)[0] != arm:
            continue
        moved = [(obj.vertex_groups[old], new) for old, new in renamed if old in obj.vertex_groups]
        for g, _ in moved:  # through names no group has, so that bones that swapped names swap groups
            g.name = f"skn renaming {g.index}"
        for g, new in moved:
            g.name = new


def merge_reparented(obj):
    """Ctrl+P's armature parenting (With Automatic Weights, With Envelope Weights, With Empty
    Groups) on a bound mesh: Blender looks for an Armature modifier of that armature to reuse,
    does not see the bound one (skn holds its Object), and adds another, which deformed the mesh a
    second time (1.27 off on the tests' arm). skn removes that one, as Blender would have reused the
    bound one; the weights Blender computed rebind (handlers.on_update). Found as the one modifier added
    since the last update, an Armature modifier of the held armature (a renamed one keeps the count)."""
    names = [m.name for m in obj.modifiers]
    before = state.stacks.get(obj.name)
    state.stacks[obj.name] = names
    held = obj.skn.modifier_object
    if before is None or held is None or len(names) != len(before) + 1:
        return
    added = [obj.modifiers[n] for n in names if n not in before]
    if len(added) == 1 and added[0].type == "ARMATURE" and added[0].object == held:
        obj.modifiers.remove(added[0])
        state.stacks[obj.name] = before
        live.forget(obj)


def follow_preserve_volume(obj):
    """Until the user picks a method, a bound mesh follows the Armature modifier's Preserve Volume,
    as Bind does (live.bind): switched while bound, Linear becomes Dual Quaternion and back."""
    s = obj.skn
    _, mod = core.find_armature(obj)
    if s.method_chosen or mod is None or s.method not in ("LINEAR", "DQS"):
        return
    want = "DQS" if mod.use_deform_preserve_volume else "LINEAR"
    if s.method != want:
        s["method"] = 1 if want == "DQS" else 0  # a raw write, as Bind's: not the user's choice
        s.bound_method = want
