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

Errors reach the user in the panel and, from the operators, in Blender's
report area; a setting changed after Bind rebuilds the binding, or is
refused (set back) with the reason in the panel.
"""
import bpy
import numpy

from . import core

REST = core.REST
_bindings = {}       # object name -> core.Binding (not saved: rebuilt on demand)
_last_pose = {}      # object name -> bytes of the pose last written
_busy = [False]      # writing the mesh triggers depsgraph updates: don't recurse
_saving = [False]    # between save_pre and save_post the armature deforms as saved: leave it


def _method_changed(self, ctx):
    obj = self.id_data
    self.method_chosen = True
    if self.bound and not _busy[0]:
        rebind(obj, previous_method=self.bound_method)


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
        refresh(obj, force=True)


def give_back(obj):
    """The armature's own deformation as it was before Bind."""
    _, mod = core.find_armature(obj)
    s = obj.skn
    if mod:
        mod.show_viewport, mod.show_render = s.modifier_viewport, s.modifier_render
    elif s.parent_deform:
        obj.parent_type = "ARMATURE"


# ---- the binding ----

def make_binding(obj):
    s = obj.skn
    if s.method == "BLEND" and not s.blend_group:
        raise ValueError("Blend mixes Linear and Dual Quaternion per vertex by a vertex group: pick the Blend Group")
    return core.Binding(obj, rest=_rest(obj), blend_group=s.blend_group if s.method == "BLEND" else None,
                        centers=s.method == "COR")


def binding(obj):
    """The object's binding, rebuilt from its saved rest coordinates when needed."""
    b = _bindings.get(obj.name)
    if b is None or not b.serves(obj.skn.method):
        b = _bindings[obj.name] = make_binding(obj)
    return b


def refresh(obj, force=False):
    """Writes the deformed coordinates of a bound, live object (when its pose changed)."""
    if obj is None or not obj.skn.bound or _busy[0]:
        return
    arm, _ = core.find_armature(obj)
    if arm is None:
        return
    key = numpy.array([pb.matrix for pb in arm.pose.bones]).tobytes() + obj.skn.method.encode()
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
    refresh(obj, force=True)


def unbind(obj, keep_shape=False):
    if not keep_shape:
        restore(obj)
        give_back(obj)
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
            refresh(obj, force=True)
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
            (bpy.app.handlers.load_post, after_load))


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Object.skn = bpy.props.PointerProperty(type=SknSettings)
    for handlers, fn in HANDLERS:
        handlers.append(fn)
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
    del bpy.types.Object.skn
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
