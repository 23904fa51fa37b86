"""skn's result written inside Blender's evaluation of a frame, by a driver (docs/blender.md, Speed:
the result written inside the frame's evaluation).

The frame handler (handlers.on_frame) runs after Blender evaluated the frame, so the result it
writes has Blender evaluate the bound mesh a second time (the frame's pass 1): about the Armature
modifier's whole frame again. A driver is evaluated inside the frame's evaluation, after what its
variables name and before what it drives: here a driver on the "skn" modifier's "Driven" input
(which no node reads) whose variables are each bone the mesh follows (a B-Bone's segments by a
`bbone_` property of its pose bone), the shape keys' values, the armature object's transform and
its parent's (the mesh's own stands still but for its parent: standing_still, placed), the result
helper's `dimensions` (Blender orders those after the helper's geometry: the helper, evaluated
again in the same pass, would replace what the getter wrote) and the helper's SKIN property, whose
getter skins into the helper's evaluated mesh (live.refresh_in_frame). Its expression, `0`, is one
Blender evaluates without Python, so it runs with Python auto-execution off, as users have it; the
getter is the add-on's own property. The mesh is then evaluated once a frame, as with the modifier.

The getter does only what writes nothing of Blender's data (a binding that still fits, the view
layer's depsgraph, the mesh drawn from the CPU, no modifiers above, its object standing still:
standing_still, placed by its parent where it has one: placed): anything else it leaves to the
frame handler, which does it as before (and Blender's pass 1 after it). The driver is made where
that can happen (sync), and goes with the "skn" modifier (takeover.remove_transport).
"""
import bpy

from . import core, state

SKIN = "skn_skin"  # an Object property: its getter skins the mesh whose result helper it is read on
INPUT = "Driven"   # the "skn" node group's input the driver drives (takeover.node_group)


def getter(helper):
    """SKIN's getter: `helper` is a result helper as a depsgraph evaluates it; the view layer's one
    skins its mesh there (never a render's: Blender copies only the view layer's pose back)."""
    name = state.in_frame.get(helper.as_pointer()) if helper.is_evaluated else None
    if name is not None and not state.busy[0]:
        from . import live
        try:
            at = live.refresh_in_frame(bpy.data.objects.get(name), helper)
            if at is not None:
                state.skinned_in_frame[name] = at
        except Exception:  # (the frame handler skins it, and says what went wrong)
            state.skinned_in_frame.pop(name, None)
    return 0.0


def _path(obj):
    from . import takeover
    ng = takeover.node_group()
    return f'modifiers["{takeover.transport(obj).name}"]["{takeover.input_id(ng, INPUT)}"]'


def _variables(obj, b):
    """What the driver names, as (type, id_type, id, bone or data path) tuples."""
    arm, _ = core.find_armature(obj)
    out = [("TRANSFORMS", "OBJECT", arm, "")]  # (not obj's own: it stands still, standing_still)
    armatures = [(arm, b)] + [(p.armature(obj), p.binding) for p in b.multi]
    if obj.parent is not None and obj.parent not in [a for a, _ in armatures]:  # (what places it: placed)
        out.append(("TRANSFORMS", "OBJECT", obj.parent, ""))
    for a, binding in armatures:
        if a is not arm:
            out.append(("TRANSFORMS", "OBJECT", a, ""))
        names, segments = binding.skeleton.signature
        for bone, count in zip(names, segments):
            if count > 1:  # (a bbone_ property: after its segments)
                out.append(("SINGLE_PROP", "OBJECT", a, f'pose.bones["{bone}"].bbone_easein'))
            else:
                out.append(("TRANSFORMS", "OBJECT", a, bone))
    keys = obj.data.shape_keys
    if b.targets and keys is not None:
        out += [("SINGLE_PROP", "KEY", keys, f'key_blocks["{k.name}"].value') for k in keys.key_blocks]
    o = obj.skn.stack_offsets
    out += [("SINGLE_PROP", "OBJECT", o, "dimensions[0]"), ("SINGLE_PROP", "OBJECT", o, SKIN)]
    return out


def standing_still(obj):
    """Whether nothing but a parent that places it as an object (parent_places) moves obj's object
    within an evaluation: no constraint, action, NLA strip or driver of the user's. Blender orders no
    driver after its own object's transform, so the getter could read a moving object's matrix
    before the frame moved it: such an object is skinned by the frame's handler, as before. A
    parent's move the getter reads after it (a variable on the parent), and places the object
    itself (placed)."""
    ad = obj.animation_data
    return (obj.parent is None or parent_places(obj)) and not obj.constraints and (ad is None or (
        ad.action is None and not ad.nla_tracks and all(_ours(fc) for fc in ad.drivers)))


def parent_places(obj):
    """Whether obj's parent places it as Blender places an object under an object: its world
    matrix the parent's × the parent inverse × its own (parent type Object; not a curve's path,
    which Blender follows instead). An Armature Deform parent is one while bound (takeover.py)."""
    p = obj.parent
    return p is not None and obj.parent_type == "OBJECT" and p.type != "CURVE"


def placed(obj, checked=True, depsgraph=None):
    """obj, or a stand-in (core.Placed) placed where Blender places a standing_still object in this
    frame: inside the frame's evaluation (not `checked`) Blender has not placed obj yet, so its
    matrix_world may be the last frame's (a script moved it, then frame_set). Without a parent, at
    its own matrix (matrix_basis: Blender's matrix_world for it, bit for bit). Under a parent that
    places it (parent_places), where its parent places it: the parent, which the driver names, is
    moved by then. That stand-in also for the handler's frame key and result, so that both skin the
    same mesh; where `checked`, after the frame, only where its matrix is Blender's to float rounding
    (otherwise obj itself: what was skinned inside the evaluation is skinned again). Not for a
    matrix with no inverse (an axis scaled to 0: the modifier's premat is then exactly 0 from
    Blender's own matrix, core.inverse), whose object is skinned from Blender's matrix.
    `depsgraph`: the parent as evaluated there (inside the evaluation, the original's matrix is
    copied back from it in a step of its own, which the driver does not wait for)."""
    if obj.parent is None:
        return obj if checked else core.Placed(obj, obj.matrix_basis)
    if not parent_places(obj):
        return obj
    parent = obj.parent.evaluated_get(depsgraph) if depsgraph is not None else obj.parent
    m = parent.matrix_world @ obj.matrix_parent_inverse @ obj.matrix_basis
    linear = m.to_3x3()
    columns = [c.length for c in linear.col]
    if min(columns) == 0.0 or abs(linear.determinant()) < 1e-6 * columns[0] * columns[1] * columns[2]:
        return obj
    if checked and not _blenders(m, obj):
        return obj
    return core.Placed(obj, m)


def placed_as_blender(obj):
    """Whether the getter placed obj where Blender placed it in this frame (within float rounding:
    _blenders), so that the frame handler may leave what it skinned: a placement gone wrong costs a
    frame's second evaluation, never a wrong mesh."""
    at = state.skinned_in_frame.get(obj.name)
    return at is not None and _blenders(at, obj)


def _blenders(m, obj):
    """Whether matrix m is obj's matrix_world to float rounding (10^-5 of its largest entry)."""
    size = max(max(abs(x) for x in row) for row in m)
    return all(abs(a - b) <= 1e-5 * size for r, w in zip(m, obj.matrix_world) for a, b in zip(r, w))


def names_parent(obj):
    """Whether obj's driver names its parent (None: nothing to name), so that the getter reads the
    parent after Blender moved it: a parent set since the driver was made is not, until the
    handler makes the driver again (sync)."""
    p, variables = obj.parent, state.drivers.get(obj.name, (None,))[0]
    return p is None or (variables is not None and ("TRANSFORMS", "OBJECT", p.name, "") in variables)


def _ours(fc):
    return fc.data_path.startswith("modifiers[") and fc.data_path.endswith(f'["{_input_name_id()}"]')


def _signature(variables):
    return tuple((t, it, i.name, p) for t, it, i, p in variables)


def sync(obj, b, wanted):
    """The driver made, in step with the binding `b`, where the getter can skin obj (`wanted`);
    removed otherwise. The view layer's evaluated helper told to the getter."""
    if not wanted:
        remove(obj)
        return
    variables = _variables(obj, b)
    sig = _signature(variables)
    if state.drivers.get(obj.name, (None,))[0] != sig or _driver(obj) is None:
        remove(obj)
        made = obj.animation_data is None
        fc = obj.driver_add(_path(obj))
        driver = fc.driver
        driver.type, driver.expression = "SCRIPTED", "0"
        for kind, id_type, target, where in variables:
            v = driver.variables.new()
            v.type = kind
            t = v.targets[0]
            if kind == "TRANSFORMS":
                t.id, t.bone_target, t.transform_type, t.transform_space = target, where, "LOC_X", "WORLD_SPACE"
            else:
                t.id_type, t.id, t.data_path = id_type, target, where
        state.drivers[obj.name] = (sig, made)
    evaluated = obj.skn.stack_offsets.evaluated_get(bpy.context.view_layer.depsgraph)
    _untell(obj)
    if evaluated.is_evaluated:
        state.in_frame[evaluated.as_pointer()] = obj.name


def _untell(obj):
    """The getter no longer told which evaluated helper is obj's (sync tells it again)."""
    for ptr in [p for p, n in state.in_frame.items() if n == obj.name]:
        del state.in_frame[ptr]


def _driver(obj):
    ad = obj.animation_data
    return next(filter(_ours, ad.drivers), None) if ad is not None else None


def remove(obj):
    """The object's driver gone (and the animation data sync made for it, where nothing else is
    there now)."""
    _, made = state.drivers.pop(obj.name, (None, False))
    _untell(obj)
    ad = obj.animation_data
    if ad is None:
        return
    for fc in [fc for fc in ad.drivers if _ours(fc)]:
        ad.drivers.remove(fc)
    if made and not ad.drivers and ad.action is None and not ad.nla_tracks:
        obj.animation_data_clear()


def _input_name_id():
    from . import takeover
    ng = bpy.data.node_groups.get(takeover.GROUP)
    try:
        return takeover.input_id(ng, INPUT) if ng is not None else "\0"
    except StopIteration:
        return "\0"


def register():
    bpy.types.Object.skn_skin = bpy.props.FloatProperty(get=getter, options={"HIDDEN", "SKIP_SAVE"})


def unregister():
    del bpy.types.Object.skn_skin
