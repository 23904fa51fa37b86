"""The add-on's Blender UI: settings per object, Bind / Unbind / Apply, the
"skn Skinning" panel, and the handlers that keep a bound mesh deformed.

While a mesh is bound, skn alone deforms it: the armature's own deformation
is suppressed — an Armature modifier switched off, or a parent with Armature
Deform turned into a plain parent — and given back at Unbind, before every
save (so that a file opened without the add-on deforms as Blender does),
and when the add-on is disabled.

The rest mesh is never lost: Bind copies the mesh's coordinates into a point
attribute, "skn_rest", saved with the file; the deformed coordinates are
written over the mesh's own only while bound, and the rest is put back on
Unbind, before every save (and the deformation again after it), and when the
add-on is disabled. Apply keeps the current shape and removes the armature's
deformation for good, as Blender's own Apply does.

Two modes. CPU (the default) writes the deformed coordinates into the mesh,
so everything in Blender sees them. GPU (viewport) leaves the mesh at rest and
skins in the viewport's vertex shader (viewport.py): per pose only the
palette goes to the GPU. Blender's own draw of the object is hidden then
(Display As: Bounds, so it can still be clicked, outlined and saved) and
given back whenever the armature's deformation is: Unbind, saving, disabling
the add-on, and switching to CPU. Render and Apply take the CPU path in both
modes: while a render runs, a GPU-mode mesh holds its CPU-skinned
coordinates and draws as itself, so the render matches the viewport.

Errors reach the user in the panel and, from the operators, in Blender's
report area; a setting changed after Bind rebuilds the binding, or is
refused (set back) with the reason in the panel.
"""
import bpy
import gpu
import numpy

from . import core, viewport

REST = core.REST
_bindings = {}       # object name -> core.Binding (not saved: rebuilt on demand)
_last_pose = {}      # object name -> bytes of the pose last written
_busy = [False]      # writing the mesh triggers depsgraph updates: don't recurse
_saving = [False]    # between save_pre and save_post the armature deforms as saved: leave it
_rendering = [False]  # between render_init and render_complete/cancel GPU mode skins on the CPU
_draw_handler = [None]


def _method_changed(self, ctx):
    obj = self.id_data
    self.method_chosen = True
    if self.bound and not _busy[0]:
        rebind(obj, previous_method=self.bound_method)


def _mode_changed(self, ctx):
    if self.bound and not _busy[0]:
        try:
            apply_mode(self.id_data)
            self.error = ""
        except Exception as e:
            self.error = str(e)


def _group_changed(self, ctx):
    if self.bound and not _busy[0]:
        rebind(self.id_data, previous_group=self.bound_group)


class SknSettings(bpy.types.PropertyGroup):
    method: bpy.props.EnumProperty(
        name="Method", default="LINEAR", update=_method_changed,
        items=[("LINEAR", "Linear", "Linear blend skinning (Armature modifier, Preserve Volume off)"),
               ("DQS", "Dual Quaternion", "Dual quaternion skinning (Preserve Volume on)"),
               ("BLEND", "Blend", "Per vertex, Linear and Dual Quaternion mixed by a vertex group"),
               ("COR", "Centers of Rotation", "Optimized centers of rotation (Le & Hodgins 2016)")])
    blend_group: bpy.props.StringProperty(name="Blend Group", update=_group_changed,
                                          description="Vertex group: 0 Linear, 1 Dual Quaternion")
    mode: bpy.props.EnumProperty(
        name="Mode", default="CPU", update=_mode_changed,
        items=[("CPU", "CPU (mesh)", "Skin into the mesh's coordinates: everything in Blender sees the deformed mesh"),
               ("GPU", "GPU (viewport)", "Skin in the viewport's vertex shader: the mesh stays at rest and only the "
                                         "palette is uploaded per pose; render and Apply skin on the CPU")])
    live: bpy.props.BoolProperty(name="Live", default=True, description="Follow pose edits and frame changes")
    bound: bpy.props.BoolProperty(name="Bound", default=False)
    error: bpy.props.StringProperty(name="Error", description="Why skn could not do the last thing asked")
    # the state Bind found and Unbind restores
    method_chosen: bpy.props.BoolProperty(default=False)  # else Bind follows the modifier's Preserve Volume
    bound_method: bpy.props.StringProperty()
    bound_group: bpy.props.StringProperty()
    modifier_viewport: bpy.props.BoolProperty(default=True)
    modifier_render: bpy.props.BoolProperty(default=True)
    parent_deform: bpy.props.BoolProperty(default=False)  # the object's parent_type was ARMATURE
    display_saved: bpy.props.StringProperty()  # GPU mode: the display_type it hid ("" when not hidden)


def _mesh_co(mesh, co):
    mesh.vertices.foreach_set("co", numpy.ascontiguousarray(co, numpy.float32).ravel())
    mesh.update()


def _rest(obj):
    attr = obj.data.attributes.get(REST)
    co = numpy.empty(len(obj.data.vertices) * 3, numpy.float32)
    attr.data.foreach_get("vector", co)
    return co.reshape(-1, 3)


# ---- the armature's own deformation, suppressed while skn deforms ----

def suppress(obj):
    """Switches off the armature's own deformation, remembering how it was."""
    _, mod = core.find_armature(obj)
    s = obj.skn
    if mod:
        if mod.show_viewport or mod.show_render:  # not already ours (a file saved while bound gives it back)
            s.modifier_viewport, s.modifier_render = mod.show_viewport, mod.show_render
        mod.show_viewport = mod.show_render = False
    elif obj.parent_type == "ARMATURE":
        s.parent_deform = True
        obj.parent_type = "OBJECT"  # the same parent and transform, without Blender's deform


def deform_active(obj):
    """Whether the armature's own deformation is on (a file saved while bound, opened)."""
    _, mod = core.find_armature(obj)
    return (mod.show_viewport or mod.show_render) if mod else obj.parent_type == "ARMATURE"


def take_over(obj):
    """A bound object whose armature deforms it again: skn's once more."""
    if deform_active(obj):
        suppress(obj)
        apply_mode(obj)


def give_back(obj):
    """The armature's own deformation, and the object's own draw, as they were before Bind."""
    _, mod = core.find_armature(obj)
    s = obj.skn
    if mod:
        mod.show_viewport, mod.show_render = s.modifier_viewport, s.modifier_render
    elif s.parent_deform:
        obj.parent_type = "ARMATURE"
    show_draw(obj)


# ---- GPU mode: Blender's own draw of the object, hidden while the shader draws it ----

def gpu_drawn(obj):
    """Whether the viewport shader draws obj now (GPU mode, and no render running)."""
    return obj.skn.bound and obj.skn.mode == "GPU" and not _rendering[0]


def hide_draw(obj):
    """Blender draws only the object's bounds (still selectable, outlined when selected)."""
    s = obj.skn
    if not s.display_saved:
        s.display_saved = obj.display_type
    obj.display_type = "BOUNDS"


def show_draw(obj):
    s = obj.skn
    if s.display_saved:
        obj.display_type = s.display_saved
        s.display_saved = ""


def apply_mode(obj):
    """A bound object as its mode says: GPU, the rest mesh drawn by the shader; CPU (or a
    render running), the deformed coordinates in the mesh, drawn by Blender."""
    if gpu_drawn(obj):
        binding(obj)  # now, not in a draw callback: a binding for GPU mode reads the mesh's faces
        restore(obj)
        hide_draw(obj)
    else:
        show_draw(obj)
        refresh(obj, force=True)
    _redraw()


def _redraw():
    for window in getattr(bpy.context.window_manager, "windows", ()):
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()


# ---- the binding ----

def make_binding(obj):
    s = obj.skn
    if s.method == "BLEND" and not s.blend_group:
        raise ValueError("Blend mixes Linear and Dual Quaternion per vertex by a vertex group: pick the Blend Group")
    return core.Binding(obj, rest=_rest(obj), blend_group=s.blend_group if s.method == "BLEND" else None,
                        centers=s.method == "COR", normals=s.mode == "GPU")


def binding(obj):
    """The object's binding, rebuilt from its saved rest coordinates when needed."""
    b = _bindings.get(obj.name)
    if b is None or not b.serves(obj.skn.method, normals=obj.skn.mode == "GPU"):
        b = _bindings[obj.name] = make_binding(obj)
    return b


def refresh(obj, force=False, cpu=False):
    """Writes the deformed coordinates of a bound, live object (when its pose changed); not in
    GPU mode, whose mesh stays at rest (the viewport's draw poses it), unless `cpu` (Apply)."""
    if obj is None or not obj.skn.bound or _busy[0] or (gpu_drawn(obj) and not cpu):
        return
    arm, _ = core.find_armature(obj)
    if arm is None:
        return
    key = core.pose_key(arm) + obj.skn.method.encode()
    if not force and _last_pose.get(obj.name) == key:
        return
    _busy[0] = True
    try:
        b = binding(obj)
        _mesh_co(obj.data, b.to_object(b.skin(arm, obj.skn.method)))
        _last_pose[obj.name] = key
    finally:
        _busy[0] = False


def rebind(obj, previous_method=None, previous_group=None):
    """A setting changed after Bind: the binding again, or the setting set back with the reason shown."""
    s = obj.skn
    old = _bindings.pop(obj.name, None)
    try:
        _bindings[obj.name] = make_binding(obj)
        refresh(obj, force=True)
        _redraw()
        s.bound_method, s.bound_group, s.error = s.method, s.blend_group, ""
    except Exception as e:  # keep what was bound, and say why
        if old is not None:
            _bindings[obj.name] = old
        _busy[0] = True
        try:
            if previous_method is not None:
                s.method = previous_method
            if previous_group is not None:
                s.blend_group = previous_group
        finally:
            _busy[0] = False
        s.error = str(e)


def restore(obj):
    """Puts the rest coordinates back (the object stays bound)."""
    if obj.skn.bound and REST in obj.data.attributes:
        _busy[0] = True
        try:
            _mesh_co(obj.data, _rest(obj))
            _last_pose.pop(obj.name, None)
        finally:
            _busy[0] = False


def bound_objects():
    return [o for o in bpy.data.objects if o.type == "MESH" and o.skn.bound]


def bind(obj):
    """Binds obj (raises ValueError with the reason, leaving it as it was)."""
    s = obj.skn
    arm, mod = core.find_armature(obj)
    if arm is None:
        raise ValueError(f"{obj.name} has no armature to follow: add an Armature modifier or parent it to an armature")
    if not s.method_chosen and mod is not None:  # the modifier's Preserve Volume, until the user chooses
        s["method"] = 1 if mod.use_deform_preserve_volume else 0  # DQS, LINEAR: a raw write, not a choice
    rest = core.rest_coordinates(obj.data)  # the vertices' own: an object not bound keeps no skn_rest
    attr = obj.data.attributes.get(REST) or obj.data.attributes.new(REST, "FLOAT_VECTOR", "POINT")
    attr.data.foreach_set("vector", rest.ravel())
    try:
        b = make_binding(obj)
    except Exception:
        obj.data.attributes.remove(obj.data.attributes[REST])
        raise
    _bindings[obj.name] = b
    suppress(obj)
    s.bound, s.bound_method, s.bound_group, s.error = True, s.method, s.blend_group, ""
    apply_mode(obj)


def unbind(obj, keep_shape=False):
    if not keep_shape:
        restore(obj)
        give_back(obj)
    show_draw(obj)
    if REST in obj.data.attributes:
        obj.data.attributes.remove(obj.data.attributes[REST])
    obj.skn.bound = False
    _bindings.pop(obj.name, None)
    _last_pose.pop(obj.name, None)


class SKN_OT_bind(bpy.types.Operator):
    """Bind this mesh to its armature with skn"""
    bl_idname, bl_label, bl_options = "skn.bind", "Bind", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        o = ctx.object
        return o is not None and o.type == "MESH" and not o.skn.bound and core.find_armature(o)[0] is not None

    def execute(self, ctx):
        obj = ctx.object
        try:
            bind(obj)
        except Exception as e:  # the object stays as it was
            obj.skn.error = str(e)
            self.report({"ERROR"}, f"skn: {e}")
            return {"CANCELLED"}
        return {"FINISHED"}


class SKN_OT_unbind(bpy.types.Operator):
    """Unbind: restore the rest mesh and give the deformation back to the armature"""
    bl_idname, bl_label, bl_options = "skn.unbind", "Unbind", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return ctx.object is not None and ctx.object.type == "MESH" and ctx.object.skn.bound

    def execute(self, ctx):
        unbind(ctx.object)
        return {"FINISHED"}


class SKN_OT_apply(bpy.types.Operator):
    """Apply: keep the current deformed shape as the mesh and remove the armature's deformation"""
    bl_idname, bl_label, bl_options = "skn.apply", "Apply", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return SKN_OT_unbind.poll(ctx)

    def execute(self, ctx):
        obj = ctx.object
        try:
            refresh(obj, force=True, cpu=True)  # GPU mode too: the CPU's coordinates, kept
        except Exception as e:
            self.report({"ERROR"}, f"skn: {e}")
            return {"CANCELLED"}
        _, mod = core.find_armature(obj)
        unbind(obj, keep_shape=True)
        if mod:
            obj.modifiers.remove(mod)  # a parent keeps parent_type OBJECT: its deform is applied too
        return {"FINISHED"}


class SKN_PT_panel(bpy.types.Panel):
    bl_label, bl_space_type, bl_region_type, bl_context = "skn Skinning", "PROPERTIES", "WINDOW", "data"

    @classmethod
    def poll(cls, ctx):
        return ctx.object is not None and ctx.object.type == "MESH" and core.find_armature(ctx.object)[0] is not None

    def draw(self, ctx):
        s, col = ctx.object.skn, self.layout.column()
        col.prop(s, "mode")
        col.prop(s, "method")
        if s.method == "BLEND":
            col.prop_search(s, "blend_group", ctx.object, "vertex_groups")
        col.prop(s, "live")
        row = col.row(align=True)
        if s.bound:
            row.operator("skn.apply")
            row.operator("skn.unbind")
        else:
            row.operator("skn.bind")
        arm, mod = core.find_armature(ctx.object)
        how = "modifier" if mod else "parent"
        col.label(text=f"{'Bound to' if s.bound else 'Armature'}: {arm.name} ({how})", icon="ARMATURE_DATA")
        if s.error:
            col.label(text=s.error, icon="ERROR")


def _each_bound(fn):
    """fn(obj) for every bound object; an error goes to the object's panel, never a traceback a frame."""
    for obj in bound_objects():
        try:
            fn(obj)
        except Exception as e:
            obj.skn.error = str(e)


@bpy.app.handlers.persistent
def on_change(scene, depsgraph=None):
    if _saving[0]:
        return
    def one(obj):
        take_over(obj)
        if obj.skn.live:
            refresh(obj)
    _each_bound(one)


@bpy.app.handlers.persistent
def before_save(*_):
    """The file keeps the rest mesh and the armature's own deformation: opened without the
    add-on, it deforms as Blender does."""
    _saving[0] = True
    def one(obj):
        restore(obj)
        give_back(obj)
    _each_bound(one)


@bpy.app.handlers.persistent
def after_save(*_):
    _saving[0] = False
    _each_bound(take_over)


@bpy.app.handlers.persistent
def before_render(*_):
    """Render takes the CPU path: a GPU-mode mesh holds its skinned coordinates, drawn by Blender."""
    _rendering[0] = True
    _each_bound(lambda obj: apply_mode(obj) if obj.skn.mode == "GPU" else None)


@bpy.app.handlers.persistent
def after_render(*_):
    _rendering[0] = False
    _each_bound(lambda obj: apply_mode(obj) if obj.skn.mode == "GPU" else None)


def draw_viewport():
    """The 3D viewport's draw callback: every bound GPU-mode object, skinned by the shader."""
    view, projection = gpu.matrix.get_model_view_matrix(), gpu.matrix.get_projection_matrix()
    shading = getattr(bpy.context.space_data, "shading", None)
    cull = bool(shading and shading.show_backface_culling)  # solid mode's Backface Culling, honoured
    for obj in bound_objects():
        if not gpu_drawn(obj) or not obj.visible_get():
            continue
        try:
            viewport.draw_object(obj, binding(obj), view, projection, live=obj.skn.live, cull=cull)
        except Exception as e:  # said once in the panel, not a traceback a redraw
            if obj.skn.error != str(e):
                obj.skn.error = str(e)


@bpy.app.handlers.persistent
def after_load(*_):
    """A file saved while bound: skn takes the deformation over again."""
    _bindings.clear()
    _last_pose.clear()
    _saving[0] = False
    _each_bound(take_over)


def _after_enable():
    after_load()
    return None  # a timer that runs once


CLASSES = (SknSettings, SKN_OT_bind, SKN_OT_unbind, SKN_OT_apply, SKN_PT_panel)
HANDLERS = ((bpy.app.handlers.frame_change_post, on_change), (bpy.app.handlers.depsgraph_update_post, on_change),
            (bpy.app.handlers.save_pre, before_save), (bpy.app.handlers.save_post, after_save),
            (bpy.app.handlers.load_post, after_load), (bpy.app.handlers.render_init, before_render),
            (bpy.app.handlers.render_complete, after_render), (bpy.app.handlers.render_cancel, after_render))


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Object.skn = bpy.props.PointerProperty(type=SknSettings)
    for handlers, fn in HANDLERS:
        handlers.append(fn)
    _draw_handler[0] = bpy.types.SpaceView3D.draw_handler_add(draw_viewport, (), "WINDOW", "POST_VIEW")
    # enabled in a session whose file was saved while bound: take the deformation over again, once
    # bpy.data is open (it is not while an add-on registers; the change handlers do it too)
    bpy.app.timers.register(_after_enable, first_interval=0.0)


def unregister():
    if bpy.app.timers.is_registered(_after_enable):
        bpy.app.timers.unregister(_after_enable)
    for obj in bound_objects():  # disabling the add-on gives every mesh its rest and its armature back
        unbind(obj)
    for handlers, fn in HANDLERS:
        if fn in handlers:
            handlers.remove(fn)
    if _draw_handler[0] is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_draw_handler[0], "WINDOW")
        _draw_handler[0] = None
    del bpy.types.Object.skn
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
