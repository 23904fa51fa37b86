"""What Blender does for the meshes an armature deforms, done by skn for bound ones where
Blender no longer sees the tie: vertex groups renamed after their bones for an Armature Deform
parent (a plain parent while bound, takeover.suppress), and Preserve Volume followed until the user
picks a method. Each runs from handlers.on_update. (A bound mesh's Armature modifier keeps its
Object: Blender renames its groups and Ctrl+P reuses it, as for any.)
"""


from . import core, live, state


def _bone_ids_of(arm):
    """(in Edit Mode, {bone pointer: name}): the bones by an identity a rename keeps (Edit Mode's
    edit bones while it lasts; leaving it makes new bones, under the same names)."""
    edit = arm.mode == "EDIT"
    return edit, {b.as_pointer(): b.name for b in (arm.data.edit_bones if edit else arm.data.bones)}


def follow_renames(arm):
    """Renames the vertex groups of the meshes bound to `arm` through an Armature Deform parent
    after its renamed bones, as Blender does for an armature's children of that parent type and
    for the meshes an Armature modifier names it in. While bound such a parent is a plain one
    (takeover.suppress), whose children Blender leaves alone: the weights stayed under the old
    name, out of skn's binding at once and out of the parent's deformation at Unbind. A rename is
    found by the bone's identity between two updates (the first only takes a look)."""
    now = _bone_ids_of(arm)
    before = state.bone_ids.get(arm.data.name)
    state.bone_ids[arm.data.name] = now
    if before is None or before[0] != now[0]:
        return
    renamed = [(before[1][p], name) for p, name in now[1].items() if p in before[1] and before[1][p] != name]
    for obj in live.bound_objects() if renamed else ():
        if not obj.skn.parent_deform or core.find_armature(obj)[0] != arm:
            continue
        moved = [(obj.vertex_groups[old], new) for old, new in renamed if old in obj.vertex_groups]
        for g, _ in moved:  # through names no group has, so that bones that swapped names swap groups
            g.name = f"skn renaming {g.index}"
        for g, new in moved:
            g.name = new


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
