"""A bound mesh's binding (core.Binding): made from the object's settings, kept while its
outline holds, bound again when Blender reports the mesh changed (weights painted, edits, shape
key changes); each frame skinned and written to the result helper (refresh). A setup skn can no
longer take over (shape keys made absolute, say) gives the modifier back, with the reason in the
panel. Bind and Unbind themselves, and the bound objects skn deforms.
"""

import bpy

from . import core, driven, modes, stack, state, takeover, workflows


def make_binding(obj, bare=False):
    """A binding by the object's settings; with modifiers above the armature's, of the input
    helper (stack.py; the "skn" modifier made first, naming it, so that Blender evaluates it).
    `bare`: of the mesh itself, the modifiers above left out (Apply)."""
    s = obj.skn
    if s.method == "BLEND" and not s.blend_group:
        raise ValueError("Blend mixes Linear and Dual Quaternion per vertex by a vertex group: pick the Blend Group")
    _, mod = core.find_armature(obj)
    source = None
    if not bare and core.rules.modifiers_above(obj, mod):
        takeover.keep_stack(obj, mod)
        source = stack.helpers(obj)[0]
    return core.Binding(obj, blend_group=s.blend_group if s.method == "BLEND" else None, centers=s.method == "COR",
                        normals=s.mode == "GPU" and not bare, source=source, bare=bare)


def _fits(obj, b):
    """Whether b reads the object's input helper (none without modifiers above) and that still
    gives the vertices b was bound with, weighted as then (the objects the modifiers above read
    as they were: rules.readers_key)."""
    h = stack.helpers(obj)[0]
    if h is None or b.source is None:
        return h is None and b.source is None
    try:
        return b.source == h and len(stack.input_mesh(h).vertices) == b.vertex_count and b.readers == \
            core.rules.readers_key(obj, core.rules.modifiers_above(obj, core.find_armature(obj)[1]),
                                   bpy.context.evaluated_depsgraph_get())
    except ReferenceError:  # (a helper removed under it: an undo)
        return False


def binding(obj):
    """The object's binding, made again when the mesh or the modifier changed under it (what a
    binding is made from, by its outline: counts, names, settings, and the input helper's vertices)
    or it cannot serve. A new one clears the panel's last error (or says why GPU mode skins this
    one on the CPU)."""
    b = state.bindings.get(obj.name)
    if b is None or b.outline != core.outline(obj) or not b.serves(obj.skn.method, normals=obj.skn.mode == "GPU") \
            or not _fits(obj, b):
        b = state.bindings[obj.name] = make_binding(obj)
        obj.skn.error = (modes.gpu_refusal(obj, b) if obj.skn.mode == "GPU" else "") or b.render_note
    return b


def refresh(obj, force=False, cpu=False, depsgraph=None):
    """Writes the result of a bound, live object where its frame changed; not where the shader
    draws it (unless `cpu`: Apply), nor in Edit Mode (the mesh is Blender's edit copy then) or where
    the modifier deforms it (takeover.modifier_deforms: Weight Paint mode, a rig Blender does not pose).
    `depsgraph`: the one whose frame changed; a render's (or any but the view layer's, an
    exporter's), whose frame is read from what it evaluated (core.Seen): Blender copies only the
    view layer's back to the originals.
    A setup skn can no longer take over gives the modifier back, saying why."""
    if obj is None or not obj.skn.bound or state.busy[0] or takeover.modifier_deforms(obj):
        return None
    arm, mod = core.find_armature(obj)
    if arm is None:
        return None
    if modes.gpu_drawn(obj) and not cpu:
        if obj.name in state.drivers:  # (the mesh is not evaluated for the shader's frames)
            driven.remove(obj)
        if obj.skn.stack_input is not None:  # the shader's binding reads the input helper: in step first
            state.busy[0] = True
            try:
                takeover.keep_stack(obj, mod)
            finally:
                state.busy[0] = False
        return None
    state.busy[0] = True
    try:
        why = core.rules.refusals(obj, arm, mod)
        if why:
            raise core.Unsupported(f"{obj.name}: " + "; ".join(why))
        takeover.keep_stack(obj, mod)
        b = binding(obj)
        render = depsgraph if depsgraph is not None and \
            depsgraph.as_pointer() != bpy.context.view_layer.depsgraph.as_pointer() else None  # (a render's too)
        seen, arm = (core.Seen(obj, render), arm.evaluated_get(render)) if render else (driven.placed(obj), arm)
        b.depsgraph = render
        try:
            posed = b.posed(arm, state.generation[0])  # (read once for all the armature's meshes)
            values = b.key_values(seen)
            key = b.frame_key(seen, arm, posed, values) + obj.skn.method.encode()
            if not force and state.last_key.get(obj.name) == key and not cpu:
                return None
            o = stack.helpers(obj)[1]
            into = stack.points_view(o, b.vertex_count) if not cpu else None  # (Apply keeps what it gets)
            deformed = b.deform(seen, arm, obj.skn.method, posed, depsgraph=render, out=into, values=values)
        finally:
            b.depsgraph = None
        stack.write(o, deformed)
        state.last_key[obj.name] = key
        if not cpu:
            driven.sync(obj, b, wanted=render is None and obj.mode == "OBJECT" and b.source is None and
                        not state.rendering[0] and driven.standing_still(obj) and
                        (obj.parent is None or seen is not obj))  # (placed where Blender places it)
        return deformed
    except core.Unsupported as e:
        state.busy[0] = False
        unbind(obj)
        obj.skn.error = f"unbound: {e}; the Armature modifier deforms it again"
        return None
    finally:
        state.busy[0] = False


def refresh_in_frame(obj, helper):
    """refresh inside Blender's evaluation of a frame (driven.getter), before the mesh's stack:
    skn's result skinned into `helper` (the result helper as the view layer evaluates it; the
    "skn" modifier reads it next) and copied to the original helper; where written, or already
    there, the matrix the object was placed at (the frame handler checks it against Blender's:
    driven.placed_as_blender). Only where nothing of Blender's data must change: a live mesh in
    Object Mode drawn from the CPU, no modifiers above, its object standing still (placed by its
    parent where it has one, which the driver names), its binding made and fitting (None
    otherwise: the frame handler refreshes it, and Blender evaluates it again after). The
    armature and the parent are read as the view layer evaluates them, the object placed as
    Blender will (driven.placed)."""
    if obj is None or not obj.skn.bound or not obj.skn.live or obj.mode != "OBJECT" or state.saving[0] or \
            state.rendering[0] or obj.skn.stack_input is not None or takeover.modifier_deforms(obj) or \
            modes.gpu_drawn(obj) or not driven.standing_still(obj) or not driven.names_parent(obj):
        return None
    b = state.bindings.get(obj.name)
    arm, mod = core.find_armature(obj)
    if b is None or arm is None or b.source is not None or b.outline != core.outline(obj) or \
            not b.serves(obj.skn.method) or core.rules.refusals(obj, arm, mod):
        return None
    o = obj.skn.stack_offsets
    original = stack.points_view(o, b.vertex_count) if o is not None else None
    if original is None or len(helper.data.vertices) != b.vertex_count:
        return None
    depsgraph = bpy.context.view_layer.depsgraph  # (as evaluated: the originals are copied back in steps of their own)
    seen, arm = driven.placed(obj, checked=False, depsgraph=depsgraph), arm.evaluated_get(depsgraph)
    if seen is obj:  # (placed where Blender places it, which it has not yet)
        return None
    posed = b.posed(arm, ("in frame", state.generation[0]))  # (this evaluation's: before_frame counts)
    values = b.key_values(seen)
    key = b.frame_key(seen, arm, posed, values) + obj.skn.method.encode()
    if state.last_key.get(obj.name) == key:
        return seen.matrix_world.copy()  # (the original holds it, and so does a helper evaluated from it)
    into = stack.points_view(helper, b.vertex_count)
    deformed = b.deform(seen, arm, obj.skn.method, posed, out=into, values=values)
    if into is None:
        stack.write_evaluated(helper, deformed)
    elif deformed is not into:
        stack.copy_points(into, deformed)
    stack.copy_points(original, deformed)
    state.last_key[obj.name] = key
    return seen.matrix_world.copy()


def rebind(obj, previous_method=None, previous_group=None):
    """A setting changed after Bind: the binding again, or the setting set back with the reason shown."""
    s = obj.skn
    old = state.bindings.pop(obj.name, None)
    try:
        state.bindings[obj.name] = make_binding(obj)
        modes.apply_mode(obj)
        s.bound_method, s.bound_group = s.method, s.blend_group
        s.error = state.bindings[obj.name].render_note if obj.name in state.bindings else ""
    except Exception as e:  # keep what was bound, and say why
        if old is not None:
            state.bindings[obj.name] = old
        state.busy[0] = True
        try:
            if previous_method is not None:
                s.method = previous_method
            if previous_group is not None:
                s.blend_group = previous_group
        finally:
            state.busy[0] = False
        s.error = str(e)


def bound_objects():
    """The bound meshes skn deforms: not those linked from a library saved with them bound, which
    Blender deforms as the library saved them (not_editable; an editable override of one is skn's).
    Every object is looked at again only where the last look may be out of date (state.bound_seen):
    an object added or removed since (their count), one of those it found no longer a bound mesh by
    its name (renamed, removed, unbound: by Unbind or an undo), or an update, a Bind or a load since
    (forget_bound): a frame of a scene of thousands of objects does not walk them all (2,000
    objects: 0.33 ms, each frame and each redraw)."""
    objects = bpy.data.objects
    count, names = state.bound_seen
    found = [objects.get(n) for n in names] if count == len(objects) else None
    if found is None or not all(o is not None and o.type == "MESH" and o.skn.bound for o in found):
        found = [o for o in objects if o.type == "MESH" and o.skn.bound]
        state.bound_seen[:] = [len(objects), tuple(o.name for o in found)]
    return [o for o in found if not not_editable(o)]


def forget_bound():
    """bound_objects looks at every object again at its next call (a mesh may have been bound)."""
    state.bound_seen[:] = [None, ()]


def not_editable(obj):
    """Why Blender keeps `obj` as its library has it ("" where it can be bound): linked from a
    library, or a Library Override Blender made for another's sake (a system override). Python may
    change such an object, but the file saves none of it: a binding made there would be gone at the
    next open. Blender's words, and what to do."""
    ol = obj.override_library
    if obj.library is None and (ol is None or not ol.is_system_override):
        return ""
    lib = obj.library or ol.reference.library
    where = f" (linked from {lib.filepath})" if lib is not None else ""
    return (f"{obj.name}{where}: Cannot edit library linked or non-editable override object: bind an "
            f"editable Library Override of it (Object > Library Override > Make)")


def bind(obj):
    """Binds obj (raises ValueError with the reason, leaving it as it was)."""
    why = not_editable(obj)
    if why:
        raise ValueError(why)
    s = obj.skn
    arm, mod = core.find_armature(obj)
    if arm is None:
        raise ValueError(f"{obj.name} has no armature to follow: add an Armature modifier or parent it to an armature")
    if not s.method_chosen and mod is not None:  # the modifier's Preserve Volume, until the user chooses
        s["method"] = 1 if mod.use_deform_preserve_volume else 0  # DQS, LINEAR: a raw write, not a choice
    try:
        state.bindings[obj.name] = make_binding(obj)
    except Exception:  # as it was: no "skn" modifier, no helpers (make_binding's, with modifiers above)
        takeover.remove_transport(obj)
        raise
    if mod is not None:  # where the user shows the deformation, skn's shows (its "skn" modifier's eyes)
        s.modifier_viewport, s.modifier_render = mod.show_viewport, mod.show_render
    takeover.suppress(obj)
    workflows.follow_renames(arm)  # (a look at its bones: renames are followed from now on)
    s.bound, s.bound_method, s.bound_group, s.error = True, s.method, s.blend_group, state.bindings[obj.name].render_note
    forget_bound()
    try:
        modes.apply_mode(obj)  # (its first frame skinned: a pose skn cannot take fails here)
    except Exception:  # as it was: the modifier given back
        unbind(obj)
        raise


def unbind(obj, keep_shape=False, forget_armature=False):
    """The armature's deformation given back (or, `keep_shape`, the skinned shape kept as the mesh;
    `forget_armature`: and what Bind held of the armature's deformation dropped, Apply's and lost's)."""
    if keep_shape:
        takeover.remove_transport(obj)
        modes.show_draw(obj)  # (give_back does, with the rest)
    else:
        takeover.give_back(obj)
    obj.skn.bound = False
    if forget_armature:
        s = obj.skn
        s.modifier_object, s.modifier_name, s.multi_saved, s.parent_deform = None, "", "", False
    forget(obj)


def forget(obj):
    """The binding made again from the object at its next refresh."""
    state.bindings.pop(obj.name, None)
    state.last_key.pop(obj.name, None)
