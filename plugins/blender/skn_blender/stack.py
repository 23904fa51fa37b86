"""The helper objects through which skn's result reaches Blender's modifier stack.

Blender 3.4 has no Python modifiers and cannot run part of a modifier stack from Python. A bound
mesh has helper objects, linked to no scene (never drawn, in no view layer), which Blender
evaluates because the "skn" modifier (takeover.py) names them:

  - the result, always: a mesh of loose points, point i at skn's result for vertex i; the "skn"
    modifier puts vertex i there (Object Info, Sample Index, Set Position), so the modifiers below
    run on skn's result as they do on the modifier's, and a mesh with other vertices than the
    points (changed, before the next frame binds it again) stays as its input. A mesh of points
    apart, not an attribute of the bound mesh, spares Blender a copy of the whole bound mesh each
    frame (docs/blender.md, Speed), and leaves a mesh shared by several objects to each its own
    deformation. skn skins straight into the points' coordinates in Blender's memory where their
    layout has been checked (points_view), sparing a copy. In GPU mode the shader draws the
    deformation: the "skn" modifier is switched off, or, with an input helper, left on with no
    points. (Its property is still `stack_offsets`, the name files saved bound know it by: the
    points held skn's result less the input until the add-on wrote the result itself.)
  - the input, with modifiers above the Armature modifier (Mirror, Solidify, Displace, a Geometry
    Nodes modifier, ...), which deforms the mesh as they leave it: other vertices than the mesh's
    own (Mirror doubles them, with its flipped vertex groups), moved by the shape keys before
    them. The input is an object of the same mesh, placed where the mesh is, with copies of the
    modifiers above, kept in step with them at every refresh; its evaluated mesh is what the
    Armature modifier receives, coordinates and vertex groups, the shape keys applied, and what
    skn binds (and GPU mode draws). In GPU mode the "skn" modifier stays on for it: switched off,
    it would no longer make Blender evaluate the input.

Both go with the binding (takeover.remove_transport): at Unbind, before every save, when the add-on is
disabled. Settings of the modifiers above that are animated or driven reach the copies when the
frame's refresh finds them changed (a rebind: skn evaluates the copies again then). A render
reads the input as the viewport evaluates it; the panel says where a modifier above renders
otherwise (rules.render_note).
"""
import ctypes

import bpy
import numpy

from . import rules

OWNER = "skn_owner"  # a helper's ID property: the bound object it serves (a duplicate's is another's)


def helpers(obj):
    """The object's (input, result) helpers, each None where it is not the object's own (none, or
    a duplicate's reference to its original's)."""
    s = obj.skn
    return tuple(x if x is not None and x.get(OWNER) == obj else None for x in (s.stack_input, s.stack_offsets))


def mesh_users(mesh):
    """The objects that use `mesh`, skn's input helpers left out (Blender's "multi-user data")."""
    return sum(1 for o in bpy.data.objects if o.data == mesh and o.get(OWNER) is None)


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
    """The input helper's modifiers made copies of those above `mod` (when they differ), then the
    keeper, and its place the object's: a modifier may read it (Mirror's Mirror Object is taken in
    the object's space, as are a Geometry Nodes modifier's Object Info in Relative mode)."""
    if h.matrix_world != obj.matrix_world:
        h.matrix_world = obj.matrix_world.copy()
        # (its geometry too: placed alone, after Blender evaluated its keys in the frame, the helper's
        # evaluated mesh was the mesh's own vertices, without the modifiers': a keyed mesh that moves
        # stayed at rest)
        h.update_tag(refresh={"OBJECT", "DATA"})
    above = rules.modifiers_above(obj, mod)
    want = [(m.name, rules.modifier_settings(m)) for m in above]
    keeper, kept = _keeper_group(obj), h.modifiers.get(KEEPER)
    if [(m.name, rules.modifier_settings(m)) for m in h.modifiers if m != kept] == want and \
            (kept.vertex_group if kept is not None else None) == keeper:
        return
    h.modifiers.clear()
    for m in above:
        _copy(m, h.modifiers.new(m.name, m.type))
    if keeper is not None:
        k = h.modifiers.new(KEEPER, "DISPLACE")
        k.strength, k.vertex_group = 0.0, keeper


KEEPER = "skn keeps the vertex groups"  # the input helper's last modifier (in_step)


def _keeper_group(obj):
    """The vertex group the keeper names (None where the mesh has none, and no weights to keep).

    The keeper is a Displace of strength 0, which moves nothing, on a vertex group: a modifier
    that reads vertex groups, so that Blender keeps them in the helper's evaluated mesh. Blender
    evaluates an object that is in no view layer (the helper) with only the data the objects that
    read it ask for, and Object Info asks for none: weights a modifier above makes where the mesh
    has none, as a Data Transfer from a weight proxy does, were left out, and Bind found no vertex
    weighted. Weights the mesh itself stores survive either way."""
    return obj.vertex_groups[0].name if len(obj.vertex_groups) else None


def ensure(obj, mod):
    """The object's (input, result) helpers, made where it has none of its own (a duplicate of a
    bound mesh refers to its original's): the result always, the input where modifiers are on
    above `mod` (None otherwise), its modifiers in step with them."""
    s = obj.skn
    h, o = helpers(obj)
    if o is None:
        o = bpy.data.objects.new(f"{obj.name} (skn result)", bpy.data.meshes.new(f"{obj.name} (skn result)"))
        o[OWNER], s.stack_offsets = obj, o
    if not rules.modifiers_above(obj, mod):
        if h is not None:  # the modifiers above gone while bound
            bpy.data.objects.remove(h)
        if s.stack_input is not None:
            s.stack_input = None
        return None, o
    if h is None:
        h = bpy.data.objects.new(f"{obj.name} (skn input)", obj.data)
        h[OWNER], s.stack_input = obj, h
    elif h.data != obj.data:
        h.data = obj.data
    in_step(obj, mod, h)
    return h, o


def remove(obj):
    """The object's helpers deleted (a duplicate's references to its original's only dropped)."""
    h, o = helpers(obj)
    if o is not None:
        mesh = o.data
        _layouts.pop(mesh.as_pointer(), None)  # (its memory goes with it)
        bpy.data.objects.remove(o)
        if mesh.users == 0:
            bpy.data.meshes.remove(mesh)
    if h is not None:
        bpy.data.objects.remove(h)
    obj.skn.stack_input = obj.skn.stack_offsets = None


def input_mesh(h, depsgraph=None):
    """The input helper's evaluated mesh (the viewport's, or `depsgraph`'s: a render's): the mesh as
    the Armature modifier receives it."""
    return h.evaluated_get(depsgraph or bpy.context.evaluated_depsgraph_get()).data


def write(o, points):
    """Point i of the result helper at points[i] (Blender evaluates the bound mesh again): copied
    in, unless skn skinned them there already (points_view's array)."""
    mesh = o.data
    if len(mesh.vertices) != len(points):
        mesh.clear_geometry()
        mesh.vertices.add(len(points))
    seen = _layouts.get(mesh.as_pointer())
    if seen is None or points is not seen[2]:
        points = numpy.ascontiguousarray(points, numpy.float32)
        mesh.vertices.foreach_set("co", points.ravel())
        _check_layout(mesh, points)
    mesh.update()


def copy_points(view, points):
    """view[...] = points, for (n, 3) float32 arrays whose rows' floats are contiguous (points_view's,
    skn's), each row's 12 bytes copied as one item: numpy copies strided rows of 3 floats one
    row at a time, about 2.3x slower (0.33 against 0.15 ms at 50,000 rows 16 bytes apart, MVert's)."""
    if view.ndim != 2 or view.shape != points.shape or view.shape[1] != 3 or view.dtype != numpy.float32 or \
            points.dtype != numpy.float32 or view.strides[1] != 4 or points.strides[1] != 4 or \
            min(view.strides[0], points.strides[0]) < 12:
        view[...] = points
        return
    _rows(view)[...] = _rows(points)


class _Rows:
    """An (n, 3) float32 array's rows as n 12-byte items (numpy's array interface; no copy): read
    while the array lives."""

    def __init__(self, a):
        self.__array_interface__ = {"shape": (len(a),), "typestr": "|V12", "data": (a.ctypes.data, False),
                                    "strides": (a.strides[0],), "version": 3}


def _rows(a):
    return numpy.asarray(_Rows(a))


def write_evaluated(o, points):
    """write, into the result helper as a depsgraph evaluated it (`o`: its evaluated object) and
    with nothing tagged: inside that evaluation, before the "skn" modifier reads it (driven.py).
    Its layout checked as write's, for points_view of it."""
    mesh = o.data
    points = numpy.ascontiguousarray(points, numpy.float32)
    mesh.vertices.foreach_set("co", points.ravel())
    _check_layout(mesh, points)


# a result helper's mesh (its address) -> (vertex 0's address, the stride, its coordinates as a
# numpy array over Blender's memory): where _check_layout found them, after a copy
_layouts = {}


def points_view(o, count):
    """The result helper's coordinates as a (count, 3) float32 array over Blender's own memory
    (no copy), for skn to skin into; None where the helper has not `count` points, or its
    vertices are not where _check_layout found them (a helper made or changed since: write
    copies, and checks)."""
    mesh = o.data
    seen = _layouts.get(mesh.as_pointer())
    if seen is None:
        return None
    first, stride, view = seen
    vertices = mesh.vertices
    if len(view) != count or len(vertices) != count or vertices[0].as_pointer() != first or \
            vertices[count - 1].as_pointer() != first + (count - 1) * stride:
        del _layouts[mesh.as_pointer()]
        return None
    return view


def _check_layout(mesh, points):
    """Where Blender keeps the coordinates just copied in (`points`): vertex i at vertex 0's
    address plus i strides (MeshVertex.as_pointer), its co the first three floats there — taken
    as so only where Blender's own reading of co (RNA) finds the copied values at the first,
    middle and last vertex through those addresses, and those differ, so that the check can
    fail. Then points_view hands out the array."""
    vertices, n = mesh.vertices, len(points)
    _layouts.pop(mesh.as_pointer(), None)
    if n < 3:
        return
    first = vertices[0].as_pointer()
    stride = vertices[1].as_pointer() - first
    rows = (0, n // 2, n - 1)
    if stride < 12 or stride % 4 or any(vertices[i].as_pointer() != first + i * stride for i in rows):
        return
    wanted = points[list(rows)]
    if len({tuple(r) for r in wanted.tolist()}) < 3:
        return  # (equal rows would pass a misplaced reading too)
    memory = (ctypes.c_char * ((n - 1) * stride + 12)).from_address(first)  # up to the last co's end
    view = numpy.lib.stride_tricks.as_strided(numpy.frombuffer(memory, numpy.float32), (n, 3), (stride, 4))
    blender = numpy.array([tuple(vertices[i].co) for i in rows], numpy.float32)
    if numpy.array_equal(view[list(rows)], wanted) and numpy.array_equal(blender, wanted):
        _layouts[mesh.as_pointer()] = (first, stride, view)


# ---- the frame's first pass ----
#
# A frame change evaluates the scene in two passes (Blender's BKE_scene_graph_update_for_newframe):
# pass 0 at the new frame, then the frame_change_post handlers (skn's writes the result helper),
# then pass 1 for what they changed. A bound mesh whose shape keys are animated is evaluated in
# pass 0 as well, as the keys move: the "skn" modifier there puts the last frame's result, and every
# modifier below runs on it (a Subdivision Surface, a Corrective Smooth), for a mesh that pass 1
# replaces before anything draws it. A result helper scaled to 0 (the node group's Switch,
# takeover.node_group) makes the "skn" modifier give no geometry in pass 0, so the modifiers below
# have nothing to do; skn's handler scales it back to 1 before it writes (handlers.on_frame), and
# pass 1 evaluates the mesh as before. handlers.before_frame decides which meshes (those the last
# frame found so, handlers._first_passes), and skippable whether one may.

# Modifiers that, below the "skn" modifier, give the same result in pass 1 whatever they had in pass
# 0: they keep nothing from one evaluation to the next. Others keep state that an empty pass would
# reset (Cloth, Soft Body, Collision and Dynamic Paint caches, particles and hair, which Blender
# grows again when the vertex count changes; a Laplacian Deform's bind), and keep the first pass.
STATELESS = frozenset((
    "SUBSURF", "CORRECTIVE_SMOOTH", "SMOOTH", "LAPLACIANSMOOTH", "SOLIDIFY", "MIRROR", "BEVEL", "TRIANGULATE",
    "WEIGHTED_NORMAL", "NORMAL_EDIT", "DISPLACE", "DATA_TRANSFER", "SHRINKWRAP", "EDGE_SPLIT", "WELD", "DECIMATE",
    "WIREFRAME", "NODES", "SIMPLE_DEFORM", "CAST", "WAVE", "UV_PROJECT", "UV_WARP", "VERTEX_WEIGHT_EDIT",
    "VERTEX_WEIGHT_MIX", "VERTEX_WEIGHT_PROXIMITY", "MASK", "ARMATURE", "LATTICE", "CURVE", "HOOK"))


def skippable(obj, below):
    """Whether obj's "skn" modifier may give nothing in pass 0: every modifier `below` it that is on
    in the viewport keeps no state (STATELESS), and the object is no rigid body (Blender's
    simulation steps in pass 0, from the evaluated mesh)."""
    return obj.rigid_body is None and all(m.type in STATELESS for m in below if m.show_viewport)


def skip_pass(o):
    """The result helper `o` scaled to 0: the "skn" modifier gives no geometry until unskip."""
    o.scale = (0.0, 0.0, 0.0)


def unskip(o):
    """The result helper at scale 1 again: the "skn" modifier puts the vertices at its points."""
    if tuple(o.scale) != (1.0, 1.0, 1.0):
        o.scale = (1.0, 1.0, 1.0)
