"""skn in the Armature modifier's place in a bound mesh's stack, and the modifier back.

How skn's result reaches Blender. Blender 3.4 has no Python modifiers, so Bind switches the
Armature modifier off, holding its Object (a switched-off modifier with an Object still makes
Blender evaluate the mesh at every pose change), with any Multi Modifier ones after it (or turns
an Armature Deform parent into a plain parent) and puts a Geometry Nodes modifier, "skn", in its
slot: it puts vertex i at point i of a helper mesh the add-on writes each frame (skn's result;
stack.py). So the mesh itself stays at rest: shape keys are evaluated by Blender before it and
taken by skn as morph targets, the modifiers below run on skn's result as on the modifier's, Edit
Mode edits the rest mesh, and a mesh whose vertices changed (before the next frame binds it
again) stays as its input. With modifiers above the armature's, the input has other vertices
than the mesh, evaluated on a second helper (stack.py).

The armature's own deformation is given back, and the "skn" modifier removed, at Unbind, before
every save (so that a file opened without the add-on deforms as Blender does; skn takes over again
after the save and when the file is opened with the add-on), and when the add-on is disabled.

What skn's hold on the modifier's Object costs, and where it gives it back. Blender finds a mesh's
armature through that Object: exporters, Weight Paint tools, bone renames, Ctrl+P, and the posing
of an armature nothing else needs. skn gives the Object back around saves and exports
(handlers.wrap_exporters), lets the modifier deform for a while where Blender needs it to
(modifier_deforms: Weight Paint, Edit and Sculpt Mode, an armature Blender does not pose of
itself), and does the rest itself (workflows.py).
"""
import json

import bpy
import mathutils

from . import core, driven, live, modes, stack, state


GROUP = "skn Deform"  # the node group of the "skn" modifier
MODIFIER = "skn"


# ---- the "skn" modifier: skn's result into Blender's stack ----

def node_group():
    """The node group that puts vertex i at point i of the result helper (stack.py): Object Info
    of its "Result" input, Sample Index by Index, Set Position, on every vertex where the helper
    has as many points as the mesh has vertices here, on none otherwise (a helper with no points
    yet, or a mesh whose vertices changed before the next refresh: it stays as its input). Its
    "Input" names the input helper where there are modifiers above, unused but for the depsgraph:
    Blender evaluates it because it is named. A result helper scaled to 0 gives no geometry at all
    (a Switch on its Scale): the frame's first pass, which skn's result follows (stack.skip_pass).
    Its "Driven" input is read by no node: driven.py's driver drives it, so that Blender evaluates
    the driver (and skn skins) before the mesh's stack. (Made once; "skn" 5 tells it from the
    groups of earlier versions of the add-on: 4 had no "Driven", 3 no Switch, 2 added offsets from
    the helper, 1 read an attribute.)"""
    ng = bpy.data.node_groups.get(GROUP)
    if ng is not None and ng.bl_idname == "GeometryNodeTree" and ng.get("skn") == 5:
        return ng
    ng = bpy.data.node_groups.new(GROUP, "GeometryNodeTree")
    ng["skn"] = 5
    ng.inputs.new("NodeSocketGeometry", "Geometry")
    ng.inputs.new("NodeSocketObject", "Result")
    ng.inputs.new("NodeSocketObject", "Input")
    ng.inputs.new("NodeSocketFloat", driven.INPUT)
    ng.outputs.new("NodeSocketGeometry", "Geometry")
    nodes, links = ng.nodes, ng.links
    given, result = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    points, read = nodes.new("GeometryNodeObjectInfo"), nodes.new("GeometryNodeObjectInfo")
    points.transform_space = read.transform_space = "ORIGINAL"
    links.new(given.outputs["Result"], points.inputs["Object"])
    links.new(given.outputs["Input"], read.inputs["Object"])
    sample = nodes.new("GeometryNodeSampleIndex")
    sample.data_type, sample.domain = "FLOAT_VECTOR", "POINT"
    links.new(points.outputs["Geometry"], sample.inputs["Geometry"])
    vector = next(i for i in sample.inputs if i.type == "VECTOR")  # (Value: one socket a data type)
    links.new(nodes.new("GeometryNodeInputPosition").outputs[0], vector)
    links.new(nodes.new("GeometryNodeInputIndex").outputs[0], sample.inputs["Index"])
    counts = []
    for source in (given.outputs["Geometry"], points.outputs["Geometry"]):
        size = nodes.new("GeometryNodeAttributeDomainSize")
        size.component = "MESH"
        links.new(source, size.inputs["Geometry"])
        counts.append(size.outputs["Point Count"])
    same = nodes.new("FunctionNodeCompare")
    same.data_type, same.operation = "INT", "EQUAL"
    for count, name in zip(counts, ("A_INT", "B_INT")):
        links.new(count, next(i for i in same.inputs if i.identifier == name))
    move = nodes.new("GeometryNodeSetPosition")
    links.new(given.outputs["Geometry"], move.inputs["Geometry"])
    links.new(same.outputs["Result"], move.inputs["Selection"])
    links.new(next(o for o in sample.outputs if o.type == "VECTOR"), move.inputs["Position"])
    links.new(_shown(ng, points, move), result.inputs[0])
    return ng


def _shown(ng, points, move):
    """The group's output: Set Position's geometry where the result helper's scale is 1, nothing
    (an empty geometry: the Switch's False left unlinked) where it is 0 (stack.skip_pass). The
    geometry Switch of Blender 3.4 reads its second Switch socket (the first is for fields)."""
    nodes, links = ng.nodes, ng.links
    axes = nodes.new("ShaderNodeSeparateXYZ")
    links.new(points.outputs["Scale"], axes.inputs[0])
    shown = nodes.new("FunctionNodeCompare")
    shown.data_type, shown.operation = "FLOAT", "GREATER_THAN"
    links.new(axes.outputs["X"], shown.inputs[0])
    shown.inputs[1].default_value = 0.5
    switch = nodes.new("GeometryNodeSwitch")
    switch.input_type = "GEOMETRY"
    links.new(shown.outputs["Result"], next(i for i in switch.inputs if i.identifier == "Switch_001"))
    links.new(move.outputs["Geometry"], next(i for i in switch.inputs if i.identifier == "True_006"))
    return next(o for o in switch.outputs if o.type == "GEOMETRY" and o.enabled)


def input_id(ng, name):
    return next(i.identifier for i in ng.inputs if i.name == name)


def transport(obj):
    """The object's "skn" modifier, by its node group (renamed or not); None when it has none."""
    return next((m for m in obj.modifiers if m.type == "NODES" and m.node_group is not None and
                 "skn" in m.node_group), None)


def add_transport(obj, armature_mod):
    """The "skn" modifier in the armature's slot (just below its modifier, or first for a parent),
    putting the vertices at the result helper's points, naming the helpers (stack.py)."""
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
    for name, helper in (("Result", o), ("Input", h)):
        if mod.get(input_id(group, name)) != helper:
            mod[input_id(group, name)] = helper
            obj.update_tag()
    state.own_changes.add(obj.data.name)
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
            mod.get(input_id(group, "Result")) != o:
        add_transport(obj, armature_mod)
    elif above:
        stack.in_step(obj, armature_mod, h)


def remove_transport(obj):
    driven.remove(obj)
    mod = transport(obj)
    if mod is not None:
        obj.modifiers.remove(mod)
    if obj.skn.stack_input is not None:
        state.bindings.pop(obj.name, None)  # it reads the input helper
    if obj.skn.stack_input is not None or obj.skn.stack_offsets is not None:
        stack.remove(obj)


# ---- the armature's own deformation, switched off while skn deforms ----

def suppress(obj):
    """Switches off the armature's own deformation, remembering how it was, and puts skn's in."""
    _, mod = core.find_armature(obj)
    s = obj.skn
    if mod:
        if mod.show_viewport or mod.show_render:  # not already ours (a file saved while bound gives it back)
            s.modifier_viewport, s.modifier_render = mod.show_viewport, mod.show_render
        mod.show_viewport = mod.show_render = False
        state.own_changes.add(obj.data.name)
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
        modes.apply_mode(obj)


def lost(obj):
    """A bound mesh whose armature is gone from it: its Armature modifier removed, applied, or the
    mesh converted (Object > Convert > Mesh, which bakes skn's deformation in). The binding ends,
    the mesh kept as it is: skn's modifier and helpers go (put back, they added the last offsets to
    a converted mesh again: 1.19 off), and the panel says why."""
    live.unbind(obj, keep_shape=True, forget_armature=True)
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
    state.last_key.pop(obj.name, None)
    modes.show_draw(obj)


# ---- where the Armature modifier deforms a bound mesh for a while ----

def painting(obj):
    return obj.mode == "WEIGHT_PAINT"


def rig_evaluated(arm, render=False):
    """Whether Blender poses `arm` of itself, in the view layer's depsgraph (or a render's): the
    object not disabled there, and in the view layer through a collection neither excluded nor
    disabled there (hidden with H, or by a collection's eye, it still is). Otherwise Blender poses it
    only for what depends on it, an enabled Armature modifier, which a bound mesh's is not."""
    seen = state.rigs_seen.get((arm.name, render))
    if seen is not None and seen[0] == state.generation[0]:
        return seen[1]

    def enabled_in(lc):
        if lc.exclude or (lc.collection.hide_render if render else lc.collection.hide_viewport):
            return False
        return arm.name in lc.collection.objects or any(enabled_in(c) for c in lc.children)
    posed = not (arm.hide_render if render else arm.hide_viewport) and \
        enabled_in(bpy.context.view_layer.layer_collection)
    state.rigs_seen[(arm.name, render)] = (state.generation[0], posed)  # (once an update or frame: the draws ask too)
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
      - a render whose depsgraph does not pose the armature (disabled in renders): handlers.before_render.
    In each case skn deforms the mesh again, bound anew, once it no longer applies."""
    if obj.name in state.render_handed:
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
    live.forget(obj)
    arm = core.find_armature(obj)[0]
    if painting(obj) and arm is not None and arm.mode != "POSE" and arm.name in bpy.context.view_layer.objects \
            and arm.select_get():
        with bpy.context.temp_override(active_object=arm, object=arm, selected_objects=[arm]):
            bpy.ops.object.posemode_toggle()


def below(obj):
    """The modifiers after the "skn" modifier (none without one): they run on skn's result."""
    mods, mod = list(obj.modifiers), transport(obj)
    return mods[mods.index(mod) + 1:] if mod is not None else []


def regrown_hair(obj):
    """The names of obj's hair particle systems that Blender grows again from the mesh as it is
    whenever a modifier above them changes (those not edited in Particle Edit mode), where they
    come after the armature's slot. skn changes the stack at Bind and Unbind, around every save
    and while a mesh is painted, edited or sculpted, where the modifier alone changes nothing, so
    such hair regrows from the pose at that moment: after a save at a posed frame its tips were
    0.2 off the modifier's twin on the tests' arm (the twin regrows alike when its own modifier is
    toggled there). Grown and saved in the rest pose, it stays as grown. The panel says so."""
    return [m.particle_system.name for m in below(obj)
            if m.type == "PARTICLE_SYSTEM" and m.show_viewport and m.particle_system.settings.type == "HAIR"
            and not m.particle_system.is_edited]
