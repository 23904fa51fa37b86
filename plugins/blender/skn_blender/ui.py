"""The add-on's Blender UI: skn's settings on each object, Bind / Unbind / Apply, the
"skn Skinning" panel, and registration. What they set in motion lives beside it:

  live.py       a bound mesh's binding: made, bound again when its mesh changes, and each frame
                skinned and written (refresh); Bind and Unbind
  takeover.py   skn in the Armature modifier's place in the mesh's stack, the modifier back
                where Blender needs it (Weight Paint, Edit and Sculpt Mode, rigs it does not pose)
  modes.py      CPU or GPU (viewport) mode, and Blender's own draw hidden while the shader draws
  workflows.py  what Blender does for the meshes an Armature modifier ties to an armature (bone
                renames, Ctrl+P, Preserve Volume), done for bound ones, whose modifier skn holds
  handlers.py   Blender's calls (frames, updates, saves, renders, exports, file loads)
  state.py      what the add-on keeps between those calls (nothing of it is saved)

Linked characters. An object linked from a library, or a Library Override Blender made for
another's sake, is not bound (Blender's words say why: the file would keep nothing of it); an
editable Library Override is, and keeps its binding and skn's settings when saved (SknSettings).
A library saved with a bound mesh gives the files that link it a bound mesh: skn takes it over
when they open, as in the library.

Apply keeps the current shape and removes the armature's deformation, as Blender's own Apply does
(with modifiers above: the mesh itself deformed, and Blender's note), and refuses, as Blender
does, on a mesh with shape keys and on override data (and on a mesh linked from a library, whose
applied shape the file would not keep).
"""

import bpy
import numpy

from . import core, handlers, live, modes, stack, state, takeover, viewport


OVERRIDE = {"LIBRARY_OVERRIDABLE"}  # skn's settings, kept by a Library Override (SknSettings)


def _method_changed(self, ctx):
    obj = self.id_data
    self.method_chosen = True
    if self.bound and not state.busy[0]:
        live.rebind(obj, previous_method=self.bound_method)


def _mode_changed(self, ctx):
    if self.bound and not state.busy[0]:
        try:
            self.error = ""
            modes.apply_mode(self.id_data)  # (which says why GPU mode skins on the CPU, where it does)
        except Exception as e:
            self.error = str(e)


def _group_changed(self, ctx):
    if self.bound and not state.busy[0]:
        live.rebind(self.id_data, previous_group=self.bound_group)


class SknSettings(bpy.types.PropertyGroup):
    """skn's settings of an object and the state Bind found. Each is overridable: a Library
    Override of a linked character keeps its binding and settings in the file that overrides it
    (without, the override would reopen as the library has it, unbound)."""
    method: bpy.props.EnumProperty(
        name="Method", default="LINEAR", update=_method_changed, override=OVERRIDE,
        items=[("LINEAR", "Linear", "Linear blend skinning (Armature modifier, Preserve Volume off)"),
               ("DQS", "Dual Quaternion", "Dual quaternion skinning (Preserve Volume on)"),
               ("BLEND", "Blend", "Per vertex, Linear and Dual Quaternion mixed by a vertex group"),
               ("COR", "Centers of Rotation", "Optimized centers of rotation (Le & Hodgins 2016)")])
    blend_group: bpy.props.StringProperty(name="Blend Group", update=_group_changed, override=OVERRIDE,
                                          description="Vertex group: 0 Linear, 1 Dual Quaternion")
    mode: bpy.props.EnumProperty(
        name="Mode", default="CPU", update=_mode_changed, override=OVERRIDE,
        items=[("CPU", "CPU (mesh)", "Skin into the mesh's coordinates: everything in Blender sees the deformed mesh"),
               ("GPU", "GPU (viewport)", "Skin in the viewport's vertex shader: the mesh stays at rest and only the "
                                         "palette is uploaded per pose; render and Apply skin on the CPU")])
    live: bpy.props.BoolProperty(name="Live", default=True, override=OVERRIDE,
                                 description="Follow pose edits and frame changes")
    bound: bpy.props.BoolProperty(name="Bound", default=False, override=OVERRIDE)
    error: bpy.props.StringProperty(name="Error", override=OVERRIDE,
                                    description="Why skn could not do the last thing asked")
    # the state Bind found and Unbind restores
    method_chosen: bpy.props.BoolProperty(default=False, override=OVERRIDE)  # else Bind follows Preserve Volume
    bound_method: bpy.props.StringProperty(override=OVERRIDE)
    bound_group: bpy.props.StringProperty(override=OVERRIDE)
    modifier_viewport: bpy.props.BoolProperty(default=True, override=OVERRIDE)
    modifier_render: bpy.props.BoolProperty(default=True, override=OVERRIDE)
    # the Armature modifier skn stands in for, and its Object, held while bound (takeover.suppress)
    modifier_name: bpy.props.StringProperty(override=OVERRIDE)
    modifier_object: bpy.props.PointerProperty(type=bpy.types.Object, override=OVERRIDE)
    multi_saved: bpy.props.StringProperty(override=OVERRIDE)  # JSON: the Multi modifiers skn switched off,
                                                              # {name: [viewport, render]}
    parent_deform: bpy.props.BoolProperty(default=False, override=OVERRIDE)  # the object's parent_type was ARMATURE
    parent_inverse: bpy.props.FloatVectorProperty(size=16, override=OVERRIDE)  # its matrix_parent_inverse, by rows
    display_saved: bpy.props.StringProperty(override=OVERRIDE)  # GPU mode: the display_type it hid ("" if none)
    stack_input: bpy.props.PointerProperty(type=bpy.types.Object, override=OVERRIDE)  # the helpers (stack.py):
    stack_offsets: bpy.props.PointerProperty(type=bpy.types.Object, override=OVERRIDE)  # input, offsets


def _editable(op, obj):
    """An operator's poll: whether obj can be changed in this file, else Blender's words why (shown
    on the greyed-out button and raised to a script)."""
    why = live.not_editable(obj)
    if why:
        op.poll_message_set(why)
    return not why


class SKN_OT_bind(bpy.types.Operator):
    """Bind this mesh to its armature with skn"""
    bl_idname, bl_label, bl_options = "skn.bind", "Bind", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        o = ctx.object
        return o is not None and o.type == "MESH" and not o.skn.bound and core.find_armature(o)[0] is not None \
            and _editable(cls, o)

    def execute(self, ctx):
        obj = ctx.object
        try:
            live.bind(obj)
        except Exception as e:  # the object stays as it was
            obj.skn.error = str(e)
            self.report({"ERROR"}, f"skn: {e}")
            return {"CANCELLED"}
        return {"FINISHED"}


class SKN_OT_unbind(bpy.types.Operator):
    """Unbind: give the deformation back to the Armature modifier (or parent)"""
    bl_idname, bl_label, bl_options = "skn.unbind", "Unbind", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return ctx.object is not None and ctx.object.type == "MESH" and ctx.object.skn.bound and \
            _editable(cls, ctx.object)

    def execute(self, ctx):
        live.unbind(ctx.object)
        return {"FINISHED"}


def _apply_refusal(obj, action, shape_key=False):
    """Why Apply (or Save as Shape Key, `shape_key`) is refused for a bound mesh, in Blender's words
    where Blender's own refuses ("" where it is not). Blender saves a shape key of a mesh that has
    keys, or that other objects share (the key is the mesh's), and applies to neither."""
    why = takeover.modifier_deforms(obj)
    if why:
        return f"{why}: {action} then"
    if obj.override_library is not None or obj.data.override_library is not None:
        return "Modifiers cannot be applied on override data"
    if not shape_key and stack.mesh_users(obj.data) > 1:  # (the mesh is the other objects' rest too)
        return "Modifiers cannot be applied to multi-user data"
    if not shape_key and obj.data.shape_keys is not None:
        return "Modifier cannot be applied to a mesh with shape keys"
    if obj.data.library is not None:  # (Blender's Apply writes it, and the file would not keep it)
        return (f"the mesh {obj.data.name} is linked from {obj.data.library.filepath}, and the file would not "
                f"keep its applied shape: make it local first (Object > Relations > Make Local)")
    return ""


def _deformed_shape(op, obj, action, shape_key=False):
    """(deformed, mod): the mesh's coordinates as the Armature modifier outputs them now (object
    space; GPU mode's too, from the CPU), and the modifier (None for a parent), for `action`
    (_apply_refusal); None, reported and in the panel, where it is refused or the binding failed.
    Blender applies a modifier that is not first to the mesh itself, the modifiers above left out
    (their result has other vertices), and says so: skn too."""
    why = _apply_refusal(obj, action, shape_key)
    if why:
        obj.skn.error = why
        op.report({"ERROR"}, f"skn: {why}")
        return None
    try:
        state.last_key.pop(obj.name, None)
        deformed = live.refresh(obj, force=True, cpu=True)
        arm, mod = core.find_armature(obj)
        if deformed is not None and core.rules.modifiers_above(obj, mod):
            deformed = live.make_binding(obj, bare=True).deform(obj, arm, obj.skn.method)
            op.report({"INFO"}, "Applied modifier was not first, result may not be as expected")
    except Exception as e:
        op.report({"ERROR"}, f"skn: {e}")
        return None
    if deformed is None:  # unbound on the way (the reason is in the panel)
        op.report({"ERROR"}, f"skn: {obj.skn.error or 'nothing to apply'}")
        return None
    return numpy.ascontiguousarray(deformed, numpy.float32), mod


class SKN_OT_apply(bpy.types.Operator):
    """Apply: keep the current deformed shape as the mesh and remove the armature's deformation (the
    Armature modifier, and the Multi modifiers after it that skn stood in for)"""
    bl_idname, bl_label, bl_options = "skn.apply", "Apply", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return SKN_OT_unbind.poll(ctx)

    def execute(self, ctx):
        obj = ctx.object
        shape = _deformed_shape(self, obj, "Apply")
        if shape is None:
            return {"CANCELLED"}
        deformed, mod = shape
        chain = [m.name for m in core.rules.multi_chain(obj, mod)]  # skn stood in for them too: applied
        live.unbind(obj, keep_shape=True, forget_armature=True)  # (a parent stays a plain one: its deform is applied)
        obj.data.vertices.foreach_set("co", deformed.ravel())
        obj.data.update()
        for m in ([mod] if mod else []) + [obj.modifiers[name] for name in chain]:
            obj.modifiers.remove(m)
        return {"FINISHED"}


class SKN_OT_save_shape_key(bpy.types.Operator):
    """Save as Shape Key: the current deformed shape as a new shape key of the mesh, named after the
    Armature modifier, the mesh still bound (Blender's own refuses on the modifier skn switched off)"""
    bl_idname, bl_label, bl_options = "skn.save_shape_key", "Save as Shape Key", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return SKN_OT_unbind.poll(ctx)

    def execute(self, ctx):
        obj = ctx.object
        shape = _deformed_shape(self, obj, "Save as Shape Key", shape_key=True)
        if shape is None:
            return {"CANCELLED"}
        deformed, mod = shape
        if obj.data.shape_keys is None:  # as Blender's: the mesh becomes the Basis first
            obj.shape_key_add(name="Basis", from_mix=False)
        key = obj.shape_key_add(name=mod.name if mod is not None else "Armature", from_mix=False)
        key.data.foreach_set("co", deformed.ravel())  # (value 0, as Blender's: nothing moves)
        obj.data.update()
        return {"FINISHED"}


class SKN_OT_viewport_render(bpy.types.Operator):
    """Viewport Render with the meshes skn draws in GPU mode: Blender draws no add-on's drawing in a
    viewport render (render.opengl), so for its duration they are skinned on the CPU and drawn by
    Blender, as for a render"""
    bl_idname, bl_label = "skn.viewport_render", "Viewport Render (skn)"
    animation: bpy.props.BoolProperty(name="Animation", description="Render the scene's frame range")
    write_still: bpy.props.BoolProperty(name="Write Image", description="Save the image (Output Properties' path)")

    @classmethod
    def poll(cls, ctx):
        return ctx.area is not None and ctx.area.type == "VIEW_3D"

    def execute(self, ctx):
        handlers.gpu_on_cpu(True)
        try:  # (its exec: the animation rendered before it returns, then the shader again)
            done = bpy.ops.render.opengl("EXEC_DEFAULT", animation=self.animation, write_still=self.write_still)
        except RuntimeError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        finally:
            handlers.gpu_on_cpu(False)
        if self.options.is_invoke and not self.animation:  # from the menu: the image shown, as Blender's shows it
            bpy.ops.render.view_show("INVOKE_DEFAULT")
        return done


def view_menu(self, ctx):
    """Beside Blender's Viewport Render (View menu), while a bound mesh is in GPU mode."""
    if any(o.skn.mode == "GPU" for o in live.bound_objects()):
        self.layout.separator()
        self.layout.operator(SKN_OT_viewport_render.bl_idname, text="Viewport Render Image (skn)", icon="RENDER_STILL")
        self.layout.operator(SKN_OT_viewport_render.bl_idname, text="Viewport Render Animation (skn)",
                             icon="RENDER_ANIMATION").animation = True


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
            col.operator("skn.save_shape_key")
        else:
            row.operator("skn.bind")
        arm, mod = core.find_armature(ctx.object)
        how = "modifier" if mod else "parent"
        why = live.not_editable(ctx.object)  # (linked: Blender deforms it as its library saved it, bound or not)
        col.label(text=f"{'Bound to' if s.bound and not why else 'Armature'}: {arm.name} ({how})",
                  icon="ARMATURE_DATA")
        if s.error:
            col.label(text=s.error, icon="ERROR")
        deforming = takeover.modifier_deforms(ctx.object) if s.bound else ""
        if deforming:
            col.label(text=deforming, icon="INFO")
        hair = takeover.regrown_hair(ctx.object) if s.bound else []
        if hair:  # (takeover.regrown_hair: why)
            col.label(text=f"Hair ({hair[0]}) regrows from the pose at Bind, Unbind and saves: do them in rest pose",
                      icon="INFO")
        if why:
            col.label(text=why, icon="LIBRARY_DATA_DIRECT")
        if s.bound and s.mode == "GPU":
            col.label(text="Viewport Render shows no GPU-mode mesh: View > Viewport Render (skn)", icon="INFO")


CLASSES = (SknSettings, SKN_OT_bind, SKN_OT_unbind, SKN_OT_apply, SKN_OT_save_shape_key, SKN_OT_viewport_render,
           SKN_PT_panel)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Object.skn = bpy.props.PointerProperty(type=SknSettings, override=OVERRIDE)
    bpy.types.VIEW3D_MT_view.append(view_menu)
    handlers.register()


def unregister():
    handlers.unregister()  # (every bound mesh given back first: it reads skn's settings)
    bpy.types.VIEW3D_MT_view.remove(view_menu)
    del bpy.types.Object.skn
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
