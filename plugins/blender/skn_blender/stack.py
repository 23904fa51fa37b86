"""Modifiers above the Armature modifier (Mirror, Solidify, Displace, a Geometry Nodes modifier, ...).

The Armature modifier deforms the mesh as they leave it: other vertices than the mesh's own
(Mirror doubles them, with its flipped vertex groups), moved by the shape keys before them. Blender
3.4 cannot run part of a modifier stack from Python, so while skn stands in for such a modifier
the bound mesh has two helper objects, linked to no scene (never drawn, in no view layer), which
Blender evaluates because the "skn" modifier names them:

  - the input: an object of the same mesh, placed where the mesh is, with copies of the
    modifiers above, kept in step with them at every refresh; its evaluated mesh is what the
    Armature modifier receives, coordinates and vertex groups, the shape keys applied, and what
    skn binds (and GPU mode draws);
  - the offsets: a mesh of loose points, point i at skn's result less the input for the input's
    vertex i; the "skn" modifier adds point i to vertex i (Object Info, Sample Index), so the
    modifiers below run on skn's result as they do on the modifier's. In GPU mode it has no
    points, and the "skn" modifier stays on: switched off, it would no longer make Blender
    evaluate the input.

Both go with the binding (ui.remove_transport): at Unbind, before every save, when the add-on is
disabled. Settings of the modifiers above that are animated or driven reach the copies when the
frame's refresh finds them changed (a rebind: skn evaluates the copies again then). A render
reads the input as the viewport evaluates it; the panel says where a modifier above renders
otherwise (rules.render_note).
"""
import bpy
import numpy

from . import rules

OWNER = "skn_owner"  # the input helper's ID property: the bound object it serves (a duplicate's is another's)


def helpers(obj):
    """The object's (input, offsets) helpers where they are its own, else (None, None)."""
    s = obj.skn
    h, o = s.stack_input, s.stack_offsets
    if h is None or o is None or h.get(OWNER) != obj or o.get(OWNER) != obj:
        return None, None
    return h, o


def _copy(src, dst):
    """dst's settings made src's (a modifier of the same type)."""
    for p in rules.setting_properties(src):
        try:
            setattr(dst, p.identifier, getattr(src, p.identifier))
        except (AttributeError, TypeError, ValueError):  # one Blender keeps read-only in this state
            pass
    for k in src.keys() if src.type == "NODES" else ():  # a Geometry Nodes modifier's inputs
        dst[k] = src[k]


def in_step(obj, mod, h):
    """The input helper's modifiers made copies of those above `mod` (when they differ), and its
    place the object's: a modifier may read it (Mirror's Mirror Object is taken in the object's
    space, as are a Geometry Nodes modifier's Object Info in Relative mode)."""
    if h.matrix_world != obj.matrix_world:
        h.matrix_world = obj.matrix_world.copy()
    above = rules.modifiers_above(obj, mod)
    want = [(m.name, rules.modifier_settings(m)) for m in above]
    if [(m.name, rules.modifier_settings(m)) for m in h.modifiers] == want:
        return
    h.modifiers.clear()
    for m in above:
        _copy(m, h.modifiers.new(m.name, m.type))


def ensure(obj, mod):
    """The object's (input, offsets) helpers, made where it has none of its own (a duplicate of a
    bound mesh shares its original's), the input's modifiers in step with those above `mod`."""
    h, o = helpers(obj)
    if h is None:
        s = obj.skn
        h = bpy.data.objects.new(f"{obj.name} (skn input)", obj.data)
        o = bpy.data.objects.new(f"{obj.name} (skn offsets)", bpy.data.meshes.new(f"{obj.name} (skn offsets)"))
        h[OWNER] = o[OWNER] = obj
        s.stack_input, s.stack_offsets = h, o
    elif h.data != obj.data:
        h.data = obj.data
    in_step(obj, mod, h)
    return h, o


def remove(obj):
    """The object's helpers deleted (a duplicate's references to its original's only dropped)."""
    h, o = helpers(obj)
    if o is not None:
        mesh = o.data
        bpy.data.objects.remove(o)
        if mesh.users == 0:
            bpy.data.meshes.remove(mesh)
    if h is not None:
        bpy.data.objects.remove(h)
    obj.skn.stack_input = obj.skn.stack_offsets = None


def input_mesh(h):
    """The input helper's evaluated mesh (the viewport's): the mesh as the Armature modifier receives it."""
    return h.evaluated_get(bpy.context.evaluated_depsgraph_get()).data


def write(o, offsets):
    """Point i of the offsets helper at offsets[i] (Blender evaluates the bound mesh again)."""
    mesh = o.data
    if len(mesh.vertices) != len(offsets):
        mesh.clear_geometry()
        mesh.vertices.add(len(offsets))
    mesh.vertices.foreach_set("co", numpy.ascontiguousarray(offsets, numpy.float32).ravel())
    mesh.update()
