"""Blender's calls, and what each does to the bound meshes: a frame (on_frame), any change
(on_update), a save (the armature's own deformation in the file, skn again after), a render (the
CPU path, and the modifier for a rig the render does not pose), an export through the glTF or FBX
exporter (wrapped: Blender 3.4 has no export handlers), and a file opened (skn takes over again).
"""

import bpy

from . import core, driven, live, modes, stack, state, takeover, workflows


def _each_bound(fn):
    """fn(obj) for every bound object; an error goes to the object's panel, never a traceback a frame,
    and goes from it at the first call that succeeds (a pose skn could not take, left)."""
    for obj in live.bound_objects():
        try:
            fn(obj)
        except Exception as e:
            obj.skn.error = state.call_errors[obj.name] = str(e)
        else:
            said = state.call_errors.pop(obj.name, None)
            if said is not None and obj.skn.error == said:
                b = state.bindings.get(obj.name)
                obj.skn.error = b.render_note if b is not None else ""


def edited_meshes(depsgraph, frame=False):
    """("MESH", name) for each mesh whose geometry (coordinates, weights, topology) or shape keys
    changed in this update, ("ARMATURE", name) for each armature (data) that changed (a pose
    change too: the bones are compared).

    `frame`: of a frame's evaluation, which may hold what changed since the last update, no update
    of its own reported (a script's change, then scene.frame_set: Blender calls no
    depsgraph_update_post for it, and the modifier deforms by it). There Blender also reports what
    the animation moves: a mesh whose shape keys or own data are animated (an action, NLA strips,
    drivers) for its geometry, and its Key. An edit tags the mesh whole, its transform reported
    too (which a mesh has not: Blender 3.4's flags, seen for weights, coordinates and shape key
    coordinates set from Python), so that such a mesh counts as edited by that. Nothing walked
    where no mesh, key or armature changed (a frame of bones alone)."""
    if depsgraph is None or frame and not any(depsgraph.id_type_updated(t) for t in ("MESH", "KEY", "ARMATURE")):
        return set()
    out = set()
    for u in depsgraph.updates:
        if isinstance(u.id, bpy.types.Mesh) and u.is_updated_geometry:
            mesh = u.id.original
            if not frame or u.is_updated_transform or not (_animated(mesh) or _animated(mesh.shape_keys)):
                out.add(("MESH", mesh.name))
        elif isinstance(u.id, bpy.types.Key) and u.id.original.user is not None and \
                not (frame and _animated(u.id.original)):
            out.add(("MESH", u.id.original.user.name))
        elif isinstance(u.id, bpy.types.Armature):
            out.add(("ARMATURE", u.id.original.name))
    return out


def _renames_followed(edited):
    """Vertex groups renamed after the renamed bones of the bound meshes' armatures (workflows)."""
    armatures = {core.find_armature(o)[0] for o in live.bound_objects()} - {None}
    for arm in armatures:
        if ("ARMATURE", arm.data.name) in edited or arm.data.name not in state.bone_ids:
            workflows.follow_renames(arm)


def _gpu_mode_followed(obj):
    """A GPU-mode mesh drawn by the shader or skinned on the CPU as it can be now (a modifier added
    below, or removed; a reader come or gone), the panel saying why it is on the CPU."""
    if obj.skn.mode != "GPU":
        return
    if bool(obj.skn.display_saved) != modes.gpu_drawn(obj):
        modes.apply_mode(obj)
    elif not obj.skn.display_saved:  # still on the CPU: for the reason of now
        why = modes.gpu_refusal(obj, state.bindings.get(obj.name))  # (a reader of two gone, say)
        if why and obj.skn.error != why:
            obj.skn.error = why


def _edits_followed(obj, edited):
    """A bound mesh's binding forgotten, made again from the mesh at its next refresh, where the
    mesh was edited (not in Edit Mode, whose mesh is Blender's copy until it ends) or the bones of
    an armature it follows changed (their envelopes, Deform, B-Bone shape; the Multi modifiers'
    armatures too)."""
    if ("MESH", obj.data.name) in edited and obj.mode != "EDIT":
        live.forget(obj)
    arm, _ = core.find_armature(obj)
    b = state.bindings.get(obj.name)
    if b is not None and arm is not None and any(
            ("ARMATURE", a.data.name) in edited and a.mode != "EDIT" and part.bones != core.bones_outline(a)
            for a, part in [(arm, b)] + [(p.armature(obj), p.binding) for p in b.multi]):
        live.forget(obj)


@bpy.app.handlers.persistent
def before_frame(scene, *_):
    """Before a frame's first pass: the bound meshes the last frame found evaluated there by their
    own animation (_first_passes) give nothing in it (stack.py, the frame's first pass), where
    nothing below them keeps state. Not for a render's frames, nor while saving."""
    state.generation[0] += 1  # (a new pose for what the frame's evaluation reads: live.refresh_in_frame)
    state.skinned_in_frame.clear()
    if state.saving[0] or state.rendering[0]:
        state.skip_next.clear()
        return
    for name in state.skip_next:
        obj = bpy.data.objects.get(name)
        o = stack.helpers(obj)[1] if obj is not None and obj.skn.bound else None
        if o is not None and obj.skn.live and obj.mode == "OBJECT" and not modes.gpu_drawn(obj) and \
                name not in state.drivers and stack.skippable(obj, takeover.below(obj)):  # (driven: skinned in it)
            stack.skip_pass(o)
            state.skipped[name] = o
    state.skip_next.clear()


def _unskip_all():
    """Every result helper before_frame scaled to 0 back at 1: first thing in a frame's handler,
    whatever happens after (an empty helper would leave its mesh with nothing to show)."""
    for o in state.skipped.values():
        try:
            stack.unskip(o)
        except ReferenceError:  # (removed since)
            pass
    state.skipped.clear()


def _first_passes(depsgraph, written, keys):
    """The bound meshes (names) of `written`, those skn skinned this frame, that Blender evaluated
    in the frame's first pass for reasons of their own: their shape keys animated (a Key updated
    there: Depsgraph.id_type_updated, no walk of the updates) or their input helper updated (the
    modifiers above). `keys`: whether a Key was updated, read as the frame's handler began (a
    refresh that evaluates the depsgraph, as one with modifiers above does, clears Blender's report).
    Frames run on, so the next is taken to do the same (before_frame); a wrong guess costs one
    evaluation, never a wrong mesh."""
    if depsgraph is None or not written:
        return set()
    out = {o.name for o in written if keys and _animated(o.data.shape_keys)}
    helpers = [(o.name, o.skn.stack_input.as_pointer()) for o in written
               if o.name not in out and o.skn.stack_input is not None]
    if helpers:
        updated = {u.id.original.as_pointer() for u in depsgraph.updates if isinstance(u.id, bpy.types.Object)}
        out |= {name for name, h in helpers if h in updated}
    return out


def _animated(key):
    """Whether a mesh's Key (None: no keys) moves by itself: an action, NLA strips or drivers."""
    ad = key.animation_data if key is not None else None
    return ad is not None and (ad.action is not None or len(ad.nla_tracks) > 0 or len(ad.drivers) > 0)


@bpy.app.handlers.persistent
def on_frame(scene, depsgraph=None):
    """A frame (the viewport's, or a render's: its depsgraph's, which the original objects do not
    show). The viewport's follows the changes Blender evaluated with it, as on_update would
    (edited_meshes of a frame: a script's change, then frame_set)."""
    _unskip_all()
    written = []
    if state.saving[0]:
        return
    # (read before the refreshes: one that asks for the evaluated depsgraph, as a mesh with modifiers
    # above does, has Blender evaluate again, which clears what this evaluation updated)
    keys = depsgraph is not None and depsgraph.id_type_updated("KEY")
    viewport = depsgraph is not None and depsgraph.as_pointer() == bpy.context.view_layer.depsgraph.as_pointer() \
        and not state.rendering[0]
    edited = set()
    if viewport:
        edited = edited_meshes(depsgraph, frame=True) - {("MESH", name) for name in state.own_changes}
        state.own_changes.clear()  # (reported in this frame's evaluation, or not at all)
        if edited:
            _renames_followed(edited)

    def one(obj):
        if viewport:
            workflows.merge_reparented(obj)
        if not takeover.handed_over(obj):
            takeover.take_over(obj)
            if viewport:
                _edits_followed(obj, edited)
                _gpu_mode_followed(obj)
                workflows.follow_preserve_volume(obj)
            if viewport and obj.name in state.bindings and driven.placed_as_blender(obj):
                return  # skinned inside the frame's evaluation (driven.py), its binding and its place right
            if obj.skn.live and live.refresh(obj, depsgraph=depsgraph) is not None:
                written.append(obj)
    state.generation[0] += 1
    state.framing[0] = True
    try:
        _each_bound(one)
    finally:
        state.framing[0] = False
    state.skinned_in_frame.clear()
    state.skip_next = _first_passes(depsgraph, written, keys) if viewport else set()


@bpy.app.handlers.persistent
def on_update(scene, depsgraph=None):
    """A change anywhere: bound meshes follow; one whose mesh the user changed (weights painted,
    edited, keys changed, topology) is bound again from it, its settings kept."""
    if state.saving[0] or state.framing[0]:  # (an evaluation a frame's refresh asked for: the frame's own)
        return
    state.generation[0] += 1
    live.forget_bound()  # (an undo may have bound a mesh again)
    wrap_exporters()  # (one enabled since)
    edited = edited_meshes(depsgraph) - {("MESH", name) for name in state.own_changes}
    state.own_changes.clear()  # (those skn makes now are reported in the next update)
    _renames_followed(edited)

    def one(obj):
        workflows.merge_reparented(obj)
        if takeover.handed_over(obj):  # for a while (the weights, the pose read again after)
            live.forget(obj)
            return
        takeover.take_over(obj)
        _edits_followed(obj, edited)
        _gpu_mode_followed(obj)
        workflows.follow_preserve_volume(obj)
        if obj.skn.live:
            live.refresh(obj)
    _each_bound(one)
    state.skinned_in_frame.clear()


@bpy.app.handlers.persistent
def before_save(*_):
    """The file keeps the armature's own deformation and no "skn" modifier: opened without the
    add-on, it deforms as Blender does."""
    state.saving[0] = True
    _each_bound(takeover.give_back)


@bpy.app.handlers.persistent
def after_save(*_):
    state.saving[0] = False
    _each_bound(takeover.take_over)


def gpu_on_cpu(on):
    """GPU-mode meshes skinned on the CPU and drawn by Blender (`on`), as a render needs them, or
    drawn by the shader again."""
    state.rendering[0] = on
    state.generation[0] += 1
    _each_bound(lambda obj: modes.apply_mode(obj) if obj.skn.mode == "GPU" else None)


@bpy.app.handlers.persistent
def before_render(*_):
    """Render takes the CPU path: a GPU-mode mesh holds its skinned coordinates, drawn by Blender."""
    gpu_on_cpu(True)
    for obj in live.bound_objects():  # a rig the render does not pose of itself: the modifier's, for the render
        arm = obj.skn.modifier_object
        if arm is not None and not takeover.rig_evaluated(arm, render=True):
            state.render_handed.add(obj.name)
            takeover.give_back(obj)


@bpy.app.handlers.persistent
def after_render(*_):
    state.rendering[0] = False
    for name in list(state.render_handed):
        obj = bpy.data.objects.get(name)
        if obj is not None and obj.skn.bound:
            takeover.take_over(obj)
    state.render_handed.clear()
    gpu_on_cpu(False)


# ---- exporters: they read the Armature modifier's Object, which skn holds while bound ----

# The exporters whose skin comes from a mesh's Armature modifier (its Object: glTF's gather_skin,
# FBX's armature lookup), by their operators' class names (both Python add-ons bundled with Blender)
EXPORTERS = ("EXPORT_SCENE_OT_gltf", "EXPORT_SCENE_OT_fbx")


def wrap_exporters():
    """Wraps the exporters' execute so that each export sees the stack as before Bind, as a save
    does: a bound mesh's Armature modifier on with its Object, no "skn" modifier (exported while
    skn held the Object, a glTF's mesh had no skin, and an FBX's rest was the posed mesh). Blender
    3.4 has no export handlers, and the glTF exporter's pre-export callback has no counterpart on
    failure; skn takes the meshes over again after the export, however it ends. An exporter enabled
    later is wrapped at the next update (on_update)."""
    for name in EXPORTERS:
        cls = getattr(bpy.types, name, None)
        if cls is not None and not getattr(cls.execute, "skn_wrapped", False):
            cls.execute = _given_back_for(cls.execute)


def _given_back_for(original):
    """An exporter's execute, the bound meshes given back around it. (Exactly (self, context):
    Blender checks an operator method's parameters when it calls it.)"""
    def execute(self, context):
        if not live.bound_objects():
            return original(self, context)
        before_save()
        try:
            return original(self, context)
        finally:
            after_save()
    execute.skn_wrapped, execute.skn_original = True, original
    return execute


def unwrap_exporters():
    for name in EXPORTERS:
        cls = getattr(bpy.types, name, None)
        if cls is not None and getattr(cls.execute, "skn_wrapped", False):
            cls.execute = cls.execute.skn_original


@bpy.app.handlers.persistent
def after_load(*_):
    """A file saved while bound: skn takes the deformation over again."""
    state.bindings.clear()
    state.last_key.clear()
    state.skip_next.clear()
    state.skipped.clear()
    state.own_changes.clear()
    state.bone_ids.clear()
    state.stacks.clear()
    state.call_errors.clear()
    live.forget_bound()
    state.in_frame.clear()
    state.skinned_in_frame.clear()
    state.drivers.clear()
    state.saving[0] = False
    _each_bound(takeover.take_over)


def _after_enable():
    after_load()
    wrap_exporters()
    return None  # a timer that runs once


HANDLERS = ((bpy.app.handlers.frame_change_pre, before_frame), (bpy.app.handlers.frame_change_post, on_frame),
            (bpy.app.handlers.depsgraph_update_post, on_update),
            (bpy.app.handlers.save_pre, before_save), (bpy.app.handlers.save_post, after_save),
            (bpy.app.handlers.load_post, after_load), (bpy.app.handlers.render_init, before_render),
            (bpy.app.handlers.render_complete, after_render), (bpy.app.handlers.render_cancel, after_render))


def register():
    for hooks, fn in HANDLERS:
        hooks.append(fn)
    wrap_exporters()
    state.draw_handler[0] = bpy.types.SpaceView3D.draw_handler_add(modes.draw_viewport, (), "WINDOW", "POST_VIEW")
    # enabled in a session whose file was saved while bound: take the deformation over again, once
    # bpy.data is open (it is not while an add-on registers; the change handlers do it too)
    bpy.app.timers.register(_after_enable, first_interval=0.0)


def unregister():
    if bpy.app.timers.is_registered(_after_enable):
        bpy.app.timers.unregister(_after_enable)
    unwrap_exporters()
    for obj in live.bound_objects():  # disabling the add-on gives every mesh its rest and its armature back
        live.unbind(obj)
    for hooks, fn in HANDLERS:
        if fn in hooks:
            hooks.remove(fn)
    if state.draw_handler[0] is not None:
        bpy.types.SpaceView3D.draw_handler_remove(state.draw_handler[0], "WINDOW")
        state.draw_handler[0] = None
