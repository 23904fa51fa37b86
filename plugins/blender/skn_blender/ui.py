"""The add-on's Blender UI: settings per object, Bind / Unbind / Apply, the
"skn Skinning" panel, and the handlers that keep a bound mesh deformed.

The rest mesh is never lost: Bind copies the mesh's coordinates into a point
attribute, "skn_rest", saved with the file; the deformed coordinates are
written over the mesh's own only while bound, and the rest is put back on
Unbind, before every save (and the deformation again after it), and when
the add-on is disabled. The Armature modifier is switched off while skn
deforms the mesh, and back on at Unbind. Apply keeps the current shape and
removes the modifier, as Blender's own Apply does.
"""
import bpy
import numpy

from . import core

REST = "skn_rest"
_bindings = {}       # object name -> core.Binding (not saved: rebuilt on demand)
_last_pose = {}      # object name -> bytes of the pose last written
_busy = [False]      # writing the mesh triggers depsgraph updates: don't recurse


class SknSettings(bpy.types.PropertyGroup):
    method: bpy.props.EnumProperty(
        name="Method", default="LINEAR", update=lambda self, ctx: refresh(ctx.object, force=True),
        items=[("LINEAR", "Linear", "Linear blend skinning (Armature modifier, Preserve Volume off)"),
               ("DQS", "Dual Quaternion", "Dual quaternion skinning (Preserve Volume on)"),
               ("BLEND", "Blend", "Per vertex, Linear and Dual Quaternion mixed by a vertex group"),
               ("COR", "Centers of Rotation", "Optimized centers of rotation (Le & Hodgins 2016)")])
    blend_group: bpy.props.StringProperty(name="Blend Group", description="Vertex group: 0 Linear, 1 Dual Quaternion")
    live: bpy.props.BoolProperty(name="Live", default=True, description="Follow pose edits and frame changes")
    bound: bpy.props.BoolProperty(name="Bound", default=False)
    modifier_viewport: bpy.props.BoolProperty(default=True)
    modifier_render: bpy.props.BoolProperty(default=True)


def _mesh_co(mesh, co):
    mesh.vertices.foreach_set("co", numpy.ascontiguousarray(co, numpy.float32).ravel())
    mesh.update()


def _rest(obj):
    attr = obj.data.attributes.get(REST)
    co = numpy.empty(len(obj.data.vertices) * 3, numpy.float32)
    attr.data.foreach_get("vector", co)
    return co.reshape(-1, 3)


def binding(obj):
    """The object's binding, rebuilt from its saved rest coordinates when needed."""
    b = _bindings.get(obj.name)
    if b is None:
        s = obj.skn
        b = core.Binding(obj, rest=_rest(obj), blend_group=s.blend_group or None, centers=s.method == "COR")
        _bindings[obj.name] = b
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


class SKN_OT_bind(bpy.types.Operator):
    """Bind this mesh to its armature with skn"""
    bl_idname, bl_label, bl_options = "skn.bind", "Bind", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        o = ctx.object
        return o is not None and o.type == "MESH" and not o.skn.bound and core.find_armature(o)[0] is not None

    def execute(self, ctx):
        obj = ctx.object
        rest = core.rest_coordinates(obj.data)
        attr = obj.data.attributes.get(REST) or obj.data.attributes.new(REST, "FLOAT_VECTOR", "POINT")
        attr.data.foreach_set("vector", rest.ravel())
        _, mod = core.find_armature(obj)
        if mod:  # skn deforms the mesh now: the modifier would do it twice
            obj.skn.modifier_viewport, obj.skn.modifier_render = mod.show_viewport, mod.show_render
            mod.show_viewport = mod.show_render = False
        _bindings.pop(obj.name, None)
        obj.skn.bound = True
        try:
            refresh(obj, force=True)
        except Exception as e:  # leave the object as it was
            unbind(obj)
            self.report({"ERROR"}, f"skn: {e}")
            return {"CANCELLED"}
        return {"FINISHED"}


def unbind(obj, keep_shape=False):
    if not keep_shape:
        restore(obj)
    _, mod = core.find_armature(obj)
    if mod and not keep_shape:
        mod.show_viewport, mod.show_render = obj.skn.modifier_viewport, obj.skn.modifier_render
    if REST in obj.data.attributes:
        obj.data.attributes.remove(obj.data.attributes[REST])
    obj.skn.bound = False
    _bindings.pop(obj.name, None)
    _last_pose.pop(obj.name, None)


class SKN_OT_unbind(bpy.types.Operator):
    """Unbind: restore the rest mesh and give the deformation back to the Armature modifier"""
    bl_idname, bl_label, bl_options = "skn.unbind", "Unbind", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return ctx.object is not None and ctx.object.type == "MESH" and ctx.object.skn.bound

    def execute(self, ctx):
        unbind(ctx.object)
        return {"FINISHED"}


class SKN_OT_apply(bpy.types.Operator):
    """Apply: keep the current deformed shape as the mesh and remove the Armature modifier"""
    bl_idname, bl_label, bl_options = "skn.apply", "Apply", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return SKN_OT_unbind.poll(ctx)

    def execute(self, ctx):
        obj = ctx.object
        refresh(obj, force=True)
        _, mod = core.find_armature(obj)
        unbind(obj, keep_shape=True)
        if mod:
            obj.modifiers.remove(mod)
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
        arm, _ = core.find_armature(ctx.object)
        col.label(text=f"{'Bound to' if s.bound else 'Armature'}: {arm.name}", icon="ARMATURE_DATA")


@bpy.app.handlers.persistent
def on_change(scene, depsgraph=None):
    for obj in bound_objects():
        if obj.skn.live:
            refresh(obj)


@bpy.app.handlers.persistent
def before_save(*_):
    for obj in bound_objects():
        restore(obj)


@bpy.app.handlers.persistent
def after_save(*_):
    for obj in bound_objects():
        refresh(obj, force=True)


@bpy.app.handlers.persistent
def after_load(*_):
    _bindings.clear()
    _last_pose.clear()
    on_change(None)


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


def unregister():
    for obj in bound_objects():  # disabling the add-on gives every mesh its rest back
        unbind(obj)
    for handlers, fn in HANDLERS:
        if fn in handlers:
            handlers.remove(fn)
    del bpy.types.Object.skn
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
