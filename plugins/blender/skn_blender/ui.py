"""The add-on's Blender UI: settings per object, Bind / Unbind / Apply, the
"skn Skinning" panel, and the handlers that keep a bound mesh deformed.

How skn's result reaches Blender. Blender 3.4 has no Python modifiers, so
Bind switches the Armature modifier off, holding its Object (a switched-off
modifier with an Object still makes Blender evaluate the mesh at every pose
change), with any Multi Modifier ones after it (or turns an Armature Deform
parent into a plain parent) and puts a Geometry Nodes modifier, "skn", in its slot:
it moves vertex i by point i of a helper mesh the add-on writes each frame
(skn's result less the modifier's input; stack.py). So the mesh itself
stays at rest: shape keys are evaluated by Blender before it and taken by
skn as morph targets, the modifiers below run on skn's result as on the
modifier's, Edit Mode edits the rest mesh, and a vertex without an offset
(a new one, before the next frame) stays as its input. With modifiers above
the armature's, the input has other vertices than the mesh, evaluated on a
second helper (stack.py). Weight painting, edits and shape key changes
rebind when Blender reports the mesh changed; a setup skn cannot take over
any more (shape keys made absolute, say) gives the modifier back, with the
reason in the panel.

The armature's own deformation is given back, and the "skn" modifier
removed, at Unbind, before every save (so that a file opened without the
add-on deforms as Blender does; skn takes over again after the save and
when the file is opened with the add-on), and when the add-on is disabled.
Apply keeps the current shape and removes the armature's deformation, as
Blender's own Apply does (with modifiers above: the mesh itself deformed,
and Blender's note), and refuses, as Blender does, on a mesh with shape
keys and on override data (and on a mesh linked from a library, whose
applied shape the file would not keep).

What skn's hold on the modifier's Object costs, and where it gives it back.
Blender finds a mesh's armature through that Object: exporters, Weight Paint
tools, bone renames, Ctrl+P, and the posing of an armature nothing else
needs. skn gives the Object back around saves and exports (wrap_exporters),
lets the modifier deform for a while where Blender needs it to
(modifier_deforms: Weight Paint, an armature Blender does not pose of
itself), and does the rest itself (follow_renames, merge_reparented).

Linked characters. An object linked from a library, or a Library Override
Blender made for another's sake, is not bound (Blender's words say why:
the file would keep nothing of it); an editable Library Override is, and
keeps its binding and skn's settings when saved (SknSettings). A library
saved with a bound mesh gives the files that link it a bound mesh: skn
takes it over when they open, as in the library.

Two modes. CPU (the default) writes the offsets, so everything in Blender
sees the deformed mesh. GPU (viewport) skins in the viewport's vertex shader
(viewport.py): per pose only the palette goes to the GPU, and Blender's own
draw of the object is hidden (Display As: Bounds, so it can still be
clicked, outlined and saved) until the deformation is given back. Render and
Apply take the CPU path in both modes, and so does a mesh GPU mode cannot
draw as the modifier would (modifiers below the armature's, more than 16
joints a vertex), saying so; with modifiers above, the shader draws their
result, skinned. Shape keys and the mask it draws (viewport.py).
"""
import json

import bpy
import gpu
import mathutils
import numpy

from . import core, stack, viewport

GROUP = "skn Deform"  # the node group of the "skn" modifier
MODIFIER = "skn"
_bindings = {}       # object name -> core.Binding (not saved: rebuilt on demand)
_last_key = {}       # object name -> the frame key of the offsets last written
_own_changes = set()  # meshes whose objects' stacks skn changed: Blender's next report of them is skn's
_busy = [False]      # writing the mesh triggers depsgraph updates: don't recurse
_saving = [False]    # between save_pre and save_post the armature deforms as saved: leave it
_rendering = [False]  # between render_init and render_complete/cancel GPU mode skins on the CPU
_draw_handler = [None]
_draw_failures = {}  # object name -> (binding, why): the shader failed to draw that binding
_bone_ids = {}  # armature (data) name -> its bones' identities at the last update (follow_renames)
_readers = {}  # object name -> (generation, what reads its deformed mesh): geometry_readers
_stacks = {}  # object name -> its modifiers' names at the last update (merge_reparented)
_render_handed = set()  # objects the modifier deforms during the render running (before_render)
_generation = [0]  # counts updates and frames: a change anywhere may add a reader or disable a rig
_rigs_seen = {}  # (armature name, render) -> (generation, whether Blender poses it): rig_evaluated
OVERRIDE = {"LIBRARY_OVERRIDABLE"}  # skn's settings, kept by a Library Override (SknSettings)


def _method_changed(self, ctx):
    obj = self.id_data
    self.method_chosen = True
    if self.bound and not _busy[0]:
        rebind(obj, previous_method=self.bound_method)


def _mode_changed(self, ctx):
    if self.bound and not _busy[0]:
        try:
            self.error = ""
            apply_mode(self.id_data)  # (which says why GPU mode skins on the CPU, where it does)
        except Exception as e:
            self.error = str(e)


def _group_changed(self, ctx):
    if self.bound and not _busy[0]:
        rebind(self.id_data, previous_group=self.bound_group)


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
    # the Armature modifier skn stands in for, and its Object, held while bound (suppress)
    modifier_name: bpy.props.StringProperty(override=OVERRIDE)
    modifier_object: bpy.props.PointerProperty(type=bpy.types.Object, override=OVERRIDE)
    multi_saved: bpy.props.StringProperty(override=OVERRIDE)  # JSON: the Multi modifiers skn switched off,
                                                              # {name: [viewport, render]}
    parent_deform: bpy.props.BoolProperty(default=False, override=OVERRIDE)  # the object's parent_type was ARMATURE
    parent_inverse: bpy.props.FloatVectorProperty(size=16, override=OVERRIDE)  # its matrix_parent_inverse, by rows
    display_saved: bpy.props.StringProperty(override=OVERRIDE)  # GPU mode: the display_type it hid ("" if none)
    stack_input: bpy.props.PointerProperty(type=bpy.types.Object, override=OVERRIDE)  # the helpers (stack.py):
    stack_offsets: bpy.props.PointerProperty(type=bpy.types.Object, override=OVERRIDE)  # input, offsets


# ---- the "skn" modifier: skn's result into Blender's stack ----

def node_group():
    """The node group that moves vertex i by point i of the offsets helper (stack.py): Object Info
    of its "Offsets" input, Sample Index by Index (0, no move, past its points). Its "Input" names
    the input helper where there are modifiers above, unused but for the depsgraph: Blender
    evaluates it because it is named. (Made once; "skn" 2 tells it from the group of earlier
    versions of the add-on, which read an attribute of the mesh.)"""
    ng = bpy.data.node_groups.get(GROUP)
    if ng is not None and ng.bl_idname == "GeometryNodeTree" and ng.get("skn") == 2:
        return ng
    ng = bpy.data.node_groups.new(GROUP, "GeometryNodeTree")
    ng["skn"] = 2
    ng.inputs.new("NodeSocketGeometry", "Geometry")
    ng.inputs.new("NodeSocketObject", "Offsets")
    ng.inputs.new("NodeSocketObject", "Input")
    ng.outputs.new("NodeSocketGeometry", "Geometry")
    nodes, links = ng.nodes, ng.links
    given, result = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    offsets, read = nodes.new("GeometryNodeObjectInfo"), nodes.new("GeometryNodeObjectInfo")
    offsets.transform_space = read.transform_space = "ORIGINAL"
    sample = nodes.new("GeometryNodeSampleIndex")
    sample.data_type, sample.domain = "FLOAT_VECTOR", "POINT"
    move = nodes.new("GeometryNodeSetPosition")
    links.new(given.outputs["Offsets"], offsets.inputs["Object"])
    links.new(given.outputs["Input"], read.inputs["Object"])
    links.new(offsets.outputs["Geometry"], sample.inputs["Geometry"])
    vector = next(i for i in sample.inputs if i.type == "VECTOR")  # (Value: one socket a data type)
    links.new(nodes.new("GeometryNodeInputPosition").outputs[0], vector)
    links.new(nodes.new("GeometryNodeInputIndex").outputs[0], sample.inputs["Index"])
    links.new(given.outputs["Geometry"], move.inputs["Geometry"])
    links.new(next(o for o in sample.outputs if o.type == "VECTOR"), move.inputs["Offset"])
    links.new(move.outputs["Geometry"], result.inputs[0])
    return ng


def _input_id(ng, name):
    return next(i.identifier for i in ng.inputs if i.name == name)


def transport(obj):
    """The object's "skn" modifier, by its node group (renamed or not); None when it has none."""
    return next((m for m in obj.modifiers if m.type == "NODES" and m.node_group is not None and
                 "skn" in m.node_group), None)


def add_transport(obj, armature_mod):
    """The "skn" modifier in the armature's slot (just below its modifier, or first for a parent),
    moving the vertices by the offsets helper's points, naming the helpers (stack.py)."""
    mod = transport(obj)
    group = node_group()
    if mod is None:
        mod = obj.modifiers.new(MODIFIER, "NODES")
        mod.node_group = group
        mod.show_viewport, mod.show_render = obj.skn.modifier_viewport, obj.skn.modifier_render  # the modifier's
        index = list(obj.modifiers).index(armature_mod) + 1 if armature_mod is not None else 0
        if index != len(obj.modifiers) - 1:
            with bpy.context.temp_override(object=obj):
                bpy.ops.object.modifier_move_to_index(modifier=mod.name, index=index)
    elif mod.node_group != group:
        mod.node_group = group
    if "skn_offset" in obj.data.attributes:  # the offsets of earlier versions (an autosave of one)
        obj.data.attributes.remove(obj.data.attributes["skn_offset"])
    h, o = stack.ensure(obj, armature_mod)
    for name, helper in (("Offsets", o), ("Input", h)):
        if mod.get(_input_id(group, name)) != helper:
            mod[_input_id(group, name)] = helper
            obj.update_tag()
    _own_changes.add(obj.data.name)
    source = armature_mod
    for prop in ("show_in_editmode", "show_on_cage"):  # (set only to change: a set makes Blender evaluate again)
        if getattr(mod, prop) != (getattr(source, prop) if source else False):
            setattr(mod, prop, getattr(source, prop) if source else False)
    return mod


def keep_stack(obj, armature_mod):
    """At a refresh: the input helper's modifiers in step with those above, and the "skn" modifier
    and its helpers made over where they are not the object's own (a duplicate's), or modifiers
    above came or went while bound (nothing set that did not change)."""
    above = core.rules.modifiers_above(obj, armature_mod)
    mod, (h, o) = transport(obj), stack.helpers(obj)
    group = node_group()
    if mod is None or mod.node_group != group or o is None or bool(above) != (h is not None) or \
            (not above and obj.skn.stack_input is not None) or (h is not None and h.data != obj.data) or \
            mod.get(_input_id(group, "Offsets")) != o:
        add_transport(obj, armature_mod)
    elif above:
        stack.in_step(obj, armature_mod, h)


def remove_transport(obj):
    mod = transport(obj)
    if mod is not None:
        obj.modifiers.remove(mod)
    if obj.skn.stack_input is not None:
        _bindings.pop(obj.name, None)  # it reads the input helper
    if obj.skn.stack_input is not None or obj.skn.stack_offsets is not None:
        stack.remove(obj)


# ---- the armature's own deformation, suppressed while skn deforms ----

def suppress(obj):
    """Switches off the armature's own deformation, remembering how it was, and puts skn's in."""
    _, mod = core.find_armature(obj)
    s = obj.skn
    if mod:
        if mod.show_viewport or mod.show_render:  # not already ours (a file saved while bound gives it back)
            s.modifier_viewport, s.modifier_render = mod.show_viewport, mod.show_render
        mod.show_viewport = mod.show_render = False
        _own_changes.add(obj.data.name)
        if mod.object is not None:  # held: a switched-off modifier still ties the mesh to the pose
            s.modifier_object, s.modifier_name, mod.object = mod.object, mod.name, None
        saved = json.loads(s.multi_saved) if s.multi_saved else {}
        for m in core.rules.multi_chain(obj, mod):  # the Multi modifiers after it: skn's too
            if m.show_viewport or m.show_render:
                saved[m.name] = [m.show_viewport, m.show_render]
            m.show_viewport = m.show_render = False
        s.multi_saved = json.dumps(saved) if saved else ""
    elif obj.parent_type == "ARMATURE":
        s.parent_deform = True
        s.parent_inverse = [x for row in obj.matrix_parent_inverse for x in row]
        obj.parent_type = "OBJECT"  # the same parent, without Blender's deform
        _parent_inverse_back(obj)  # setting parent_type resets it (the object would jump)
    add_transport(obj, mod)


def _parent_inverse_back(obj):
    p = obj.skn.parent_inverse
    obj.matrix_parent_inverse = mathutils.Matrix([p[4 * r:4 * r + 4] for r in range(4)])  # rows


def deform_active(obj):
    """Whether the armature's own deformation is on (a file saved while bound, opened)."""
    _, mod = core.find_armature(obj)
    if mod is None:
        return obj.parent_type == "ARMATURE"
    return any(m.show_viewport or m.show_render for m in [mod] + core.rules.multi_chain(obj, mod))


def take_over(obj):
    """A bound object whose armature deforms it again: skn's once more (where modifier_deforms says
    nothing against it)."""
    if modifier_deforms(obj):
        return
    if core.find_armature(obj)[0] is None:  # nothing to stand in for any more
        lost(obj)
        return
    if deform_active(obj) or transport(obj) is None:
        suppress(obj)
        apply_mode(obj)


def lost(obj):
    """A bound mesh whose armature is gone from it: its Armature modifier removed, applied, or the
    mesh converted (Object > Convert > Mesh, which bakes skn's deformation in). The binding ends,
    the mesh kept as it is: skn's modifier and helpers go (put back, they added the last offsets to
    a converted mesh again: 1.19 off), and the panel says why."""
    unbind(obj, keep_shape=True, forget_armature=True)
    obj.skn.error = "unbound: the mesh has no Armature modifier (or armature parent) any more"


def give_back(obj):
    """The armature's own deformation, and the object's own draw, as they were before Bind."""
    _, mod = core.find_armature(obj)
    s = obj.skn
    remove_transport(obj)
    if mod:
        mod.show_viewport, mod.show_render = s.modifier_viewport, s.modifier_render
        if mod.object is None:  # (one the user set while bound stays)
            mod.object = s.modifier_object
    s.modifier_object, s.modifier_name = None, ""
    for name, (shown, rendered) in (json.loads(s.multi_saved) if s.multi_saved else {}).items():
        m = obj.modifiers.get(name)
        if m is not None:
            m.show_viewport, m.show_render = shown, rendered
    s.multi_saved = ""
    if not mod and s.parent_deform:
        obj.parent_type = "ARMATURE"
        _parent_inverse_back(obj)
        s.parent_deform = False
    _last_key.pop(obj.name, None)
    show_draw(obj)


# ---- where the Armature modifier deforms a bound mesh for a while ----

def painting(obj):
    return obj.mode == "WEIGHT_PAINT"


def rig_evaluated(arm, render=False):
    """Whether Blender poses `arm` of itself, in the view layer's depsgraph (or a render's): the
    object not disabled there, and in the view layer through a collection neither excluded nor
    disabled there (hidden with H, or by a collection's eye, it still is). Otherwise Blender poses it
    only for what depends on it, an enabled Armature modifier, which a bound mesh's is not."""
    seen = _rigs_seen.get((arm.name, render))
    if seen is not None and seen[0] == _generation[0]:
        return seen[1]

    def enabled_in(lc):
        if lc.exclude or (lc.collection.hide_render if render else lc.collection.hide_viewport):
            return False
        return arm.name in lc.collection.objects or any(enabled_in(c) for c in lc.children)
    posed = not (arm.hide_render if render else arm.hide_viewport) and \
        enabled_in(bpy.context.view_layer.layer_collection)
    _rigs_seen[(arm.name, render)] = (_generation[0], posed)  # (once an update or frame: the draws ask too)
    return posed


def modifier_deforms(obj):
    """Why the Armature modifier deforms the bound mesh now instead of skn ("" where skn does),
    in the panel's words:

      - Weight Paint mode: Blender's weight tools find the armature through the modifier, which skn
        holds otherwise: clicking a bone picks its group, Auto Normalize and the Deform Pose Bones
        subsets (Limit Total, Clean, ...) know the deform bones.
      - Edit Mode: the modifier deforms the edited vertices live (Show In Edit Mode, On Cage);
        skn's offsets, written before, would be the last frame's (0.30 off for a moved vertex).
      - Sculpt Mode: Blender sculpts a posed mesh through its deform-only modifiers (a corrective
        shape key sculpted in the pose), which skn's Geometry Nodes modifier is not.
      - an armature Blender does not pose of itself (rig_evaluated: disabled in viewports, or in a
        collection excluded or disabled): it poses it only for an enabled Armature modifier, and
        with skn's the mesh stood still (0.45-0.57 off at the tests' frames).
      - a render whose depsgraph does not pose the armature (disabled in renders): before_render.
    In each case skn deforms the mesh again, bound anew, once it no longer applies."""
    if obj.name in _render_handed:
        return "the armature is disabled in renders: the Armature modifier deforms it for the render"
    if painting(obj):
        return "Weight Paint: the Armature modifier deforms it while you paint"
    if obj.mode == "EDIT":
        return "Edit Mode: the Armature modifier deforms it while you edit"
    if obj.mode == "SCULPT":
        return "Sculpt Mode: the Armature modifier deforms it while you sculpt"
    arm = obj.skn.modifier_object or core.find_armature(obj)[0]
    if arm is not None and not rig_evaluated(arm):
        return (f"{arm.name} is disabled in the viewport (or its collection): Blender poses it only for the "
                f"Armature modifier, which deforms the mesh until it is enabled again")
    return ""


def handed_over(obj):
    """Whether the modifier deforms obj now (modifier_deforms), handing it over where skn did."""
    if not modifier_deforms(obj):
        return False
    if not deform_active(obj):
        hand_over(obj)
    return True


def hand_over(obj):
    """The Armature modifier, its Object given back, deforms the mesh (modifier_deforms says why).
    Blender puts a selected armature in Pose Mode as Weight Paint starts, looking for it before skn
    could give the Object back: done here."""
    give_back(obj)
    forget(obj)
    arm = core.find_armature(obj)[0]
    if painting(obj) and arm is not None and arm.mode != "POSE" and arm.name in bpy.context.view_layer.objects \
            and arm.select_get():
        with bpy.context.temp_override(active_object=arm, object=arm, selected_objects=[arm]):
            bpy.ops.object.posemode_toggle()


# ---- GPU mode: Blender's own draw of the object, hidden while the shader draws it ----

def gpu_drawn(obj):
    """Whether the viewport shader draws obj now (GPU mode, no render running, and a binding the
    shader can draw as the modifier would)."""
    if not (obj.skn.bound and obj.skn.mode == "GPU" and not _rendering[0]) or modifier_deforms(obj) or \
            not obj.skn.modifier_viewport:  # (the user's modifier off in the viewport: nothing deformed drawn)
        return False
    return not gpu_refusal(obj, _bindings.get(obj.name))


def gpu_refusal(obj, b):
    """Why GPU mode skins obj on the CPU ("" where the shader draws it as the modifier would):
    what the binding cannot draw, or modifiers below skn's, which the shader's draw would skip."""
    why = b.gpu_refusal() if b is not None else ""
    failed = _draw_failures.get(obj.name)
    if not why and failed is not None and failed[0] is b:
        why = failed[1]
    mods = list(obj.modifiers)
    mod = transport(obj)
    below = [m.name for m in mods[mods.index(mod) + 1:] if m.show_viewport] if mod is not None else []
    if not why and below:
        why = (f'GPU mode draws the mesh without the modifiers below the armature\'s ("{below[0]}"'
               f'{" and more" if len(below) > 1 else ""}): skinned on the CPU')
    readers = geometry_readers(obj)
    if not why and readers:
        more = f" and {len(readers) - 1} more" if len(readers) > 1 else ""
        why = (f"GPU mode leaves the mesh at rest for Blender, and {readers[0]}{more} read{'' if more else 's'} "
               f"it: skinned on the CPU")
    return why


# Modifiers that read the Object a setting names as a mesh (its evaluated vertices), by setting
GEOMETRY_SETTINGS = {"SURFACE_DEFORM": ("target",), "SHRINKWRAP": ("target", "auxiliary_target"),
                     "MESH_DEFORM": ("object",), "DATA_TRANSFER": ("object",), "BOOLEAN": ("object",),
                     "ARRAY": ("start_cap", "end_cap"), "PARTICLE_INSTANCE": ("object",),
                     "VERTEX_WEIGHT_PROXIMITY": ("target",)}


def geometry_readers(obj):
    """What outside obj reads its deformed mesh, in the panel's words: objects parented to its
    vertices; other objects' modifiers that take it as a mesh (GEOMETRY_SETTINGS, a Geometry Nodes
    modifier's Object input); constraints on objects or bones that target its vertex groups or its
    surface (Shrinkwrap). GPU mode leaves the mesh at rest for Blender, so these would read the
    rest (a vertex-parented earring left where the rest puts it, 0.98 off on the tests' arm).
    Found among the IDs that use obj (bpy.data.user_map), once per update (on_update)."""
    seen = _readers.get(obj.name)
    if seen is not None and seen[0] == _generation[0]:
        return seen[1]
    out = []
    for user in sorted(bpy.data.user_map(subset=[obj]).get(obj, ()), key=lambda u: u.name):  # (a set)
        if not isinstance(user, bpy.types.Object) or user == obj or user.get(stack.OWNER) is not None:
            continue
        if user.parent == obj and user.parent_type in ("VERTEX", "VERTEX_3"):
            out.append(f"{user.name} (parented to its vertices)")
        for m in user.modifiers:
            if any(getattr(m, name, None) == obj for name in GEOMETRY_SETTINGS.get(m.type, ())) or \
                    (m.type == "NODES" and any(m[k] == obj for k in m.keys())):
                out.append(f'{user.name}\'s "{m.name}" modifier')
        bones = [(f"{user.name}'s bone {pb.name}", pb.constraints) for pb in user.pose.bones] if user.pose else []
        for owner, constraints in [(user.name, user.constraints)] + bones:
            out += [f'{owner}\'s "{c.name}" constraint' for c in constraints if getattr(c, "target", None) == obj
                    and (c.type == "SHRINKWRAP" or getattr(c, "subtarget", ""))]
    _readers[obj.name] = (_generation[0], out)
    return out


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
    """A bound object as its mode says: GPU, the rest mesh drawn by the shader; CPU (or a render
    running, or a mesh GPU mode cannot draw), the offsets written, drawn by Blender."""
    s = obj.skn
    if s.mode == "GPU":
        b = binding(obj)  # now, not in a draw callback: a binding for GPU mode reads the mesh's faces
        why = gpu_refusal(obj, b)
        if why and s.error != why:
            s.error = why
        elif not why and s.error.startswith("GPU mode"):
            s.error = ""
    mod = transport(obj)
    if gpu_drawn(obj):
        h, o = stack.helpers(obj)
        if h is not None and o is not None:  # it names the input helper, which Blender then evaluates:
            stack.write(o, numpy.zeros((0, 3), numpy.float32))  # on, moving nothing
        elif mod is not None and mod.show_viewport:
            mod.show_viewport = False  # the shader draws the deformation; the mesh bounds stay its rest
            _own_changes.add(obj.data.name)  # (only for a change: a mark Blender never reports would hide an edit)
        hide_draw(obj)
    else:
        if mod is not None and mod.show_viewport != s.modifier_viewport:  # (as the user had the modifier's)
            mod.show_viewport = s.modifier_viewport
            _own_changes.add(obj.data.name)
        show_draw(obj)
        refresh(obj, force=True)
    _redraw()


def _redraw():
    for window in getattr(bpy.context.window_manager, "windows", ()):
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()


# ---- the binding ----

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
        keep_stack(obj, mod)
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
    b = _bindings.get(obj.name)
    if b is None or b.outline != core.outline(obj) or not b.serves(obj.skn.method, normals=obj.skn.mode == "GPU") \
            or not _fits(obj, b):
        b = _bindings[obj.name] = make_binding(obj)
        obj.skn.error = (gpu_refusal(obj, b) if obj.skn.mode == "GPU" else "") or b.render_note
    return b


def refresh(obj, force=False, cpu=False, depsgraph=None):
    """Writes the offsets of a bound, live object where its frame changed; not where the shader
    draws it (unless `cpu`: Apply), nor in Edit Mode (the mesh is Blender's edit copy then) or where
    the modifier deforms it (modifier_deforms: Weight Paint mode, a rig Blender does not pose).
    `depsgraph`: the one whose frame changed; a render's (or any but the view layer's, an
    exporter's), whose frame is read from what it evaluated (core.Seen): Blender copies only the
    view layer's back to the originals.
    A setup skn can no longer take over gives the modifier back, saying why."""
    if obj is None or not obj.skn.bound or _busy[0] or modifier_deforms(obj):
        return None
    arm, mod = core.find_armature(obj)
    if arm is None:
        return None
    if gpu_drawn(obj) and not cpu:
        if obj.skn.stack_input is not None:  # the shader's binding reads the input helper: in step first
            _busy[0] = True
            try:
                keep_stack(obj, mod)
            finally:
                _busy[0] = False
        return None
    _busy[0] = True
    try:
        why = core.rules.refusals(obj, arm, mod)
        if why:
            raise core.Unsupported(f"{obj.name}: " + "; ".join(why))
        keep_stack(obj, mod)
        b = binding(obj)
        render = depsgraph if depsgraph is not None and \
            depsgraph.as_pointer() != bpy.context.view_layer.depsgraph.as_pointer() else None  # (a render's too)
        seen, arm = (core.Seen(obj, render), arm.evaluated_get(render)) if render else (obj, arm)
        b.depsgraph = render
        try:
            posed = b.posed(arm)
            key = b.frame_key(seen, arm, posed) + obj.skn.method.encode()
            if not force and _last_key.get(obj.name) == key and not cpu:
                return None
            deformed, given = b.deform(seen, arm, obj.skn.method, posed, depsgraph=render)
        finally:
            b.depsgraph = None
        stack.write(stack.helpers(obj)[1], deformed - given)
        _last_key[obj.name] = key
        return deformed
    except core.Unsupported as e:
        _busy[0] = False
        unbind(obj)
        obj.skn.error = f"unbound: {e}; the Armature modifier deforms it again"
        return None
    finally:
        _busy[0] = False


def rebind(obj, previous_method=None, previous_group=None):
    """A setting changed after Bind: the binding again, or the setting set back with the reason shown."""
    s = obj.skn
    old = _bindings.pop(obj.name, None)
    try:
        _bindings[obj.name] = make_binding(obj)
        apply_mode(obj)
        s.bound_method, s.bound_group = s.method, s.blend_group
        s.error = _bindings[obj.name].render_note if obj.name in _bindings else ""
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


def bound_objects():
    """The bound meshes skn deforms: not those linked from a library saved with them bound, which
    Blender deforms as the library saved them (not_editable; an editable override of one is skn's)."""
    return [o for o in bpy.data.objects if o.type == "MESH" and o.skn.bound and not not_editable(o)]


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
        _bindings[obj.name] = make_binding(obj)
    except Exception:  # as it was: no "skn" modifier, no helpers (make_binding's, with modifiers above)
        remove_transport(obj)
        raise
    if mod is not None:  # where the user shows the deformation, skn's shows (its "skn" modifier's eyes)
        s.modifier_viewport, s.modifier_render = mod.show_viewport, mod.show_render
    suppress(obj)
    follow_renames(arm)  # (a look at its bones: renames are followed from now on)
    s.bound, s.bound_method, s.bound_group, s.error = True, s.method, s.blend_group, _bindings[obj.name].render_note
    apply_mode(obj)


def unbind(obj, keep_shape=False, forget_armature=False):
    """The armature's deformation given back (or, `keep_shape`, the skinned shape kept as the mesh;
    `forget_armature`: and what Bind held of the armature's deformation dropped, Apply's and lost's)."""
    if keep_shape:
        remove_transport(obj)
    else:
        give_back(obj)
    show_draw(obj)
    obj.skn.bound = False
    if forget_armature:
        s = obj.skn
        s.modifier_object, s.modifier_name, s.multi_saved, s.parent_deform = None, "", "", False
    _bindings.pop(obj.name, None)
    _last_key.pop(obj.name, None)


def _editable(op, obj):
    """An operator's poll: whether obj can be changed in this file, else Blender's words why (shown
    on the greyed-out button and raised to a script)."""
    why = not_editable(obj)
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
            bind(obj)
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
        unbind(ctx.object)
        return {"FINISHED"}


class SKN_OT_apply(bpy.types.Operator):
    """Apply: keep the current deformed shape as the mesh and remove the armature's deformation (the
    Armature modifier, and the Multi modifiers after it that skn stood in for)"""
    bl_idname, bl_label, bl_options = "skn.apply", "Apply", {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, ctx):
        return SKN_OT_unbind.poll(ctx)

    def execute(self, ctx):
        obj = ctx.object
        why = modifier_deforms(obj)  # else where Blender's own Apply refuses, with its words
        if why:
            why += ": Apply then"
        elif obj.override_library is not None or obj.data.override_library is not None:
            why = "Modifiers cannot be applied on override data"
        elif stack.mesh_users(obj.data) > 1:  # (the mesh is the other objects' rest too)
            why = "Modifiers cannot be applied to multi-user data"
        elif obj.data.shape_keys is not None:
            why = "Modifier cannot be applied to a mesh with shape keys"
        elif obj.data.library is not None:  # (Blender's Apply writes it, and the file would not keep it)
            why = (f"the mesh {obj.data.name} is linked from {obj.data.library.filepath}, and the file would not "
                   f"keep its applied shape: make it local first (Object > Relations > Make Local)")
        if why:
            obj.skn.error = why
            self.report({"ERROR"}, f"skn: {why}")
            return {"CANCELLED"}
        try:
            _last_key.pop(obj.name, None)
            deformed = refresh(obj, force=True, cpu=True)  # GPU mode too: the CPU's coordinates, kept
            arm, mod = core.find_armature(obj)
            if deformed is not None and core.rules.modifiers_above(obj, mod):
                # Blender applies a modifier that is not first to the mesh itself, the modifiers above
                # left out (their result has other vertices), and says so: skn too
                deformed, _ = make_binding(obj, bare=True).deform(obj, arm, obj.skn.method)
                self.report({"INFO"}, "Applied modifier was not first, result may not be as expected")
        except Exception as e:
            self.report({"ERROR"}, f"skn: {e}")
            return {"CANCELLED"}
        if deformed is None:  # unbound on the way (the reason is in the panel)
            self.report({"ERROR"}, f"skn: {obj.skn.error or 'nothing to apply'}")
            return {"CANCELLED"}
        chain = [m.name for m in core.rules.multi_chain(obj, mod)]  # skn stood in for them too: applied
        unbind(obj, keep_shape=True, forget_armature=True)  # (a parent stays a plain one: its deform is applied)
        obj.data.vertices.foreach_set("co", numpy.ascontiguousarray(deformed, numpy.float32).ravel())
        obj.data.update()
        for m in ([mod] if mod else []) + [obj.modifiers[name] for name in chain]:
            obj.modifiers.remove(m)
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
        why = not_editable(ctx.object)  # (linked: Blender deforms it as its library saved it, bound or not)
        col.label(text=f"{'Bound to' if s.bound and not why else 'Armature'}: {arm.name} ({how})",
                  icon="ARMATURE_DATA")
        if s.error:
            col.label(text=s.error, icon="ERROR")
        deforming = modifier_deforms(ctx.object) if s.bound else ""
        if deforming:
            col.label(text=deforming, icon="INFO")
        if why:
            col.label(text=why, icon="LIBRARY_DATA_DIRECT")


def _each_bound(fn):
    """fn(obj) for every bound object; an error goes to the object's panel, never a traceback a frame."""
    for obj in bound_objects():
        try:
            fn(obj)
        except Exception as e:
            obj.skn.error = str(e)


def edited_meshes(depsgraph):
    """("MESH", name) for each mesh whose geometry (coordinates, weights, topology) or shape keys
    changed in this update, ("ARMATURE", name) for each armature (data) that changed."""
    if depsgraph is None:
        return set()
    out = set()
    for u in depsgraph.updates:
        if isinstance(u.id, bpy.types.Mesh) and u.is_updated_geometry:
            out.add(("MESH", u.id.original.name))
        elif isinstance(u.id, bpy.types.Key) and u.id.original.user is not None:
            out.add(("MESH", u.id.original.user.name))
        elif isinstance(u.id, bpy.types.Armature):  # a pose change too: the bones are compared
            out.add(("ARMATURE", u.id.original.name))
    return out


def _bone_ids_of(arm):
    """(in Edit Mode, {bone pointer: name}): the bones by an identity a rename keeps (Edit Mode's
    edit bones while it lasts; leaving it makes new bones, under the same names)."""
    edit = arm.mode == "EDIT"
    return edit, {b.as_pointer(): b.name for b in (arm.data.edit_bones if edit else arm.data.bones)}


def follow_renames(arm):
    """Renames the vertex groups of the meshes bound to `arm` after its renamed bones, as Blender
    does for the meshes an Armature modifier (or an Armature Deform parent) ties to it. Blender
    does not for a bound one, whose modifier's Object skn holds (suppress): its weights would stay
    under the old name, out of skn's binding at once and out of the modifier's at Unbind. A rename
    is found by the bone's identity between two updates (the first only takes a look)."""
    now = _bone_ids_of(arm)
    before = _bone_ids.get(arm.data.name)
    _bone_ids[arm.data.name] = now
    if before is None or before[0] != now[0]:
        return
    renamed = [(before[1][p], name) for p, name in now[1].items() if p in before[1] and before[1][p] != name]
    for obj in bound_objects() if renamed else ():
        if core.find_armature(obj)[0] != arm:
            continue
        moved = [(obj.vertex_groups[old], new) for old, new in renamed if old in obj.vertex_groups]
        for g, _ in moved:  # through names no group has, so that bones that swapped names swap groups
            g.name = f"skn renaming {g.index}"
        for g, new in moved:
            g.name = new


def forget(obj):
    """The binding made again from the object at its next refresh."""
    _bindings.pop(obj.name, None)
    _last_key.pop(obj.name, None)


@bpy.app.handlers.persistent
def on_frame(scene, depsgraph=None):
    """A frame (the viewport's, or a render's: its depsgraph's, which the original objects do not show)."""
    def one(obj):
        if not handed_over(obj):
            take_over(obj)
            if obj.skn.live:
                refresh(obj, depsgraph=depsgraph)
    if not _saving[0]:
        _generation[0] += 1
        _each_bound(one)


@bpy.app.handlers.persistent
def on_update(scene, depsgraph=None):
    """A change anywhere: bound meshes follow; one whose mesh the user changed (weights painted,
    edited, keys changed, topology) is bound again from it, its settings kept."""
    if _saving[0]:
        return
    _generation[0] += 1
    wrap_exporters()  # (one enabled since)
    edited = edited_meshes(depsgraph) - {("MESH", name) for name in _own_changes}
    _own_changes.clear()  # (those skn makes now are reported in the next update)
    armatures = {core.find_armature(o)[0] for o in bound_objects()} - {None}
    for arm in armatures:
        if ("ARMATURE", arm.data.name) in edited or arm.data.name not in _bone_ids:
            follow_renames(arm)

    def one(obj):
        merge_reparented(obj)
        if handed_over(obj):  # for a while (the weights, the pose read again after)
            forget(obj)
            return
        take_over(obj)
        if ("MESH", obj.data.name) in edited:
            if obj.mode != "EDIT":
                forget(obj)
        arm, _ = core.find_armature(obj)
        b = _bindings.get(obj.name)
        if b is not None and arm is not None and any(
                ("ARMATURE", a.data.name) in edited and a.mode != "EDIT" and part.bones != core.bones_outline(a)
                for a, part in [(arm, b)] + [(p.armature(obj), p.binding) for p in b.multi]):
            forget(obj)  # bones edited, or their envelopes or B-Bone shape (the Multi modifiers' armatures too)
        if obj.skn.mode == "GPU" and bool(obj.skn.display_saved) != gpu_drawn(obj):
            apply_mode(obj)  # a modifier added below, or removed: the shader draws it, or the CPU skins it
        follow_preserve_volume(obj)
        if obj.skn.live:
            refresh(obj)
    _each_bound(one)


def merge_reparented(obj):
    """Ctrl+P's armature parenting (With Automatic Weights, With Envelope Weights, With Empty
    Groups) on a bound mesh: Blender looks for an Armature modifier of that armature to reuse,
    does not see the bound one (skn holds its Object), and adds another, which deformed the mesh a
    second time (1.27 off on the tests' arm). skn removes that one, as Blender would have reused the
    bound one; the weights Blender computed rebind (on_update). Found as the one modifier added
    since the last update, an Armature modifier of the held armature (a renamed one keeps the count)."""
    names = [m.name for m in obj.modifiers]
    before = _stacks.get(obj.name)
    _stacks[obj.name] = names
    held = obj.skn.modifier_object
    if before is None or held is None or len(names) != len(before) + 1:
        return
    added = [obj.modifiers[n] for n in names if n not in before]
    if len(added) == 1 and added[0].type == "ARMATURE" and added[0].object == held:
        obj.modifiers.remove(added[0])
        _stacks[obj.name] = before
        forget(obj)


def follow_preserve_volume(obj):
    """Until the user picks a method, a bound mesh follows the Armature modifier's Preserve Volume,
    as Bind does (bind): switched while bound, Linear becomes Dual Quaternion and back."""
    s = obj.skn
    _, mod = core.find_armature(obj)
    if s.method_chosen or mod is None or s.method not in ("LINEAR", "DQS"):
        return
    want = "DQS" if mod.use_deform_preserve_volume else "LINEAR"
    if s.method != want:
        s["method"] = 1 if want == "DQS" else 0  # a raw write, as Bind's: not the user's choice
        s.bound_method = want


@bpy.app.handlers.persistent
def before_save(*_):
    """The file keeps the armature's own deformation and no "skn" modifier: opened without the
    add-on, it deforms as Blender does."""
    _saving[0] = True
    _each_bound(give_back)


@bpy.app.handlers.persistent
def after_save(*_):
    _saving[0] = False
    _each_bound(take_over)


@bpy.app.handlers.persistent
def before_render(*_):
    """Render takes the CPU path: a GPU-mode mesh holds its skinned coordinates, drawn by Blender."""
    _rendering[0] = True
    _generation[0] += 1
    _each_bound(lambda obj: apply_mode(obj) if obj.skn.mode == "GPU" else None)
    for obj in bound_objects():  # a rig the render does not pose of itself: the modifier's, for the render
        arm = obj.skn.modifier_object
        if arm is not None and not rig_evaluated(arm, render=True):
            _render_handed.add(obj.name)
            give_back(obj)


@bpy.app.handlers.persistent
def after_render(*_):
    _rendering[0] = False
    for name in list(_render_handed):
        obj = bpy.data.objects.get(name)
        if obj is not None and obj.skn.bound:
            take_over(obj)
    _render_handed.clear()
    _each_bound(lambda obj: apply_mode(obj) if obj.skn.mode == "GPU" else None)


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
        if not bound_objects():
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
        except Exception as e:  # the CPU skins it from now on (until bound again), saying why once
            _draw_failures[obj.name] = (_bindings.get(obj.name), f"GPU mode could not draw it ({e}): skinned on the CPU")
            bpy.app.timers.register(lambda name=obj.name: _fall_back(name))


def _fall_back(name):
    """After a failed draw, outside the draw callback (which may not change Blender's data)."""
    obj = bpy.data.objects.get(name)
    if obj is not None and obj.skn.bound:
        apply_mode(obj)


@bpy.app.handlers.persistent
def after_load(*_):
    """A file saved while bound: skn takes the deformation over again."""
    _bindings.clear()
    _last_key.clear()
    _own_changes.clear()
    _bone_ids.clear()
    _stacks.clear()
    _saving[0] = False
    _each_bound(take_over)


def _after_enable():
    after_load()
    wrap_exporters()
    return None  # a timer that runs once


CLASSES = (SknSettings, SKN_OT_bind, SKN_OT_unbind, SKN_OT_apply, SKN_PT_panel)
HANDLERS = ((bpy.app.handlers.frame_change_post, on_frame), (bpy.app.handlers.depsgraph_update_post, on_update),
            (bpy.app.handlers.save_pre, before_save), (bpy.app.handlers.save_post, after_save),
            (bpy.app.handlers.load_post, after_load), (bpy.app.handlers.render_init, before_render),
            (bpy.app.handlers.render_complete, after_render), (bpy.app.handlers.render_cancel, after_render))


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Object.skn = bpy.props.PointerProperty(type=SknSettings, override=OVERRIDE)
    for handlers, fn in HANDLERS:
        handlers.append(fn)
    wrap_exporters()
    _draw_handler[0] = bpy.types.SpaceView3D.draw_handler_add(draw_viewport, (), "WINDOW", "POST_VIEW")
    # enabled in a session whose file was saved while bound: take the deformation over again, once
    # bpy.data is open (it is not while an add-on registers; the change handlers do it too)
    bpy.app.timers.register(_after_enable, first_interval=0.0)


def unregister():
    if bpy.app.timers.is_registered(_after_enable):
        bpy.app.timers.unregister(_after_enable)
    unwrap_exporters()
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
