"""The Blender side of skn without UI: a mesh's armature read by the Armature
modifier's own rules, bound into a skn rig, posed and skinned.

Blender's rules (source/blender/blenkernel/intern/armature_deform.c):
  - only vertex groups named after deform bones count;
  - a vertex's weights are divided by their sum, and a vertex whose sum is
    <= 1e-4 stays where it is;
  - deformation happens in the armature's space: premat = armature^-1 *
    object, the vertex goes through premat, the bones' M_i = pose_mat *
    arm_mat^-1, and back through premat^-1;
  - "Preserve Volume" is dual quaternion skinning that keeps each posed
    bone's Y axis when it splits scale from rotation (skn's KEEP_Y), with
    antipodal quaternions flipped against the running sum in the order of
    the vertex's groups (skn's rule too).
"""
import numpy

from . import skn

METHODS = {"LINEAR": "lbs", "DQS": "dqs", "BLEND": "blend", "COR": "cor"}
# other names a script may use for them, in any case: the library's, and Blender's words
ALIASES = {"LBS": "LINEAR", "DUAL_QUATERNION": "DQS", "PRESERVE_VOLUME": "DQS", "CENTERS_OF_ROTATION": "COR"}
ZERO_WEIGHT = 1e-4  # Blender leaves a vertex whose weights sum to this or less alone


def method_key(method):
    """LINEAR, DQS, BLEND or COR for a method named in any case, by the add-on's or the library's word."""
    if not isinstance(method, str):
        raise TypeError(f"method must be a name (LINEAR, DQS, BLEND or COR), not {type(method).__name__}")
    key = method.strip().upper().replace("-", "_").replace(" ", "_")
    key = ALIASES.get(key, key)
    if key not in METHODS:
        raise ValueError(f"method {method!r} is not one of LINEAR, DQS, BLEND, COR (or lbs, dqs, blend, cor)")
    return key


def find_armature(obj):
    """The armature that deforms a mesh, and how: its first Armature modifier's (the modifier), else
    an armature parent's (None: Blender deforms a mesh parented with Armature Deform itself)."""
    for mod in obj.modifiers:
        if mod.type == "ARMATURE" and mod.object:
            return mod.object, mod
    if obj.parent and obj.parent.type == "ARMATURE":
        return obj.parent, None
    return None, None


def matrix(m):
    return numpy.array(m, dtype=numpy.float64)


def pose_key(arm):
    """The armature's posed bone matrices as bytes: equal keys, equal poses."""
    return numpy.array([pb.matrix for pb in arm.pose.bones], numpy.float32).tobytes()


def premat(obj, arm):
    """Object space -> armature space, as the modifier applies it."""
    return numpy.linalg.inv(matrix(arm.matrix_world)) @ matrix(obj.matrix_world)


def influences(obj, arm, blend_group=None):
    """CSR influences in the order of each vertex's groups, deform bones only,
    and per-vertex blend weights from `blend_group` (None without one)."""
    bones = {b.name: i for i, b in enumerate(arm.data.bones) if b.use_deform}
    group_bone = {g.index: bones[g.name] for g in obj.vertex_groups if g.name in bones}
    blend_index = obj.vertex_groups[blend_group].index if blend_group and blend_group in obj.vertex_groups else None
    offsets, joints, weights = [0], [], []
    blend = numpy.zeros(len(obj.data.vertices), numpy.float32) if blend_group else None
    for v in obj.data.vertices:
        mine = [(group_bone[g.group], g.weight) for g in v.groups if g.group in group_bone and g.weight > 0]
        if sum(w for _, w in mine) > ZERO_WEIGHT:
            joints += [j for j, _ in mine]
            weights += [w for _, w in mine]
        offsets.append(len(joints))
        if blend_index is not None:
            blend[v.index] = next((g.weight for g in v.groups if g.group == blend_index), 0.0)
    return (numpy.array(offsets, numpy.uint32), numpy.array(joints, numpy.uint32),
            numpy.array(weights, numpy.float32), blend)


REST = "skn_rest"  # the point attribute a bound mesh keeps its rest coordinates in (ui.py)


def dqs_scale(kind):
    """The split of scale from rotation Blender's Preserve Volume makes (skn's KEEP_Y) for the
    dual-quaternion methods; LBS ignores it."""
    return "keep-y" if kind != "lbs" else "polar"


def rest_coordinates(mesh):
    """The mesh's rest coordinates: its own, or those it keeps while bound (its vertices hold the
    deformed ones then)."""
    co = numpy.empty(len(mesh.vertices) * 3, numpy.float32)
    if REST in mesh.attributes:
        mesh.attributes[REST].data.foreach_get("vector", co)
    else:
        mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def triangles_of(mesh):
    """The mesh's triangulated faces (Blender's loop triangles), (t, 3) uint32 vertex indices."""
    mesh.calc_loop_triangles()
    tris = numpy.empty(len(mesh.loop_triangles) * 3, numpy.uint32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    return tris.reshape(-1, 3)


def vertex_normals(positions, triangles):
    """Unit vertex normals of a triangle mesh: the sum of its triangles' cross products (normals
    weighted by area, Gouraud 1971's average); a vertex of no triangle gets (0, 0, 1)."""
    p = positions.astype(numpy.float64)
    a, b, c = p[triangles[:, 0]], p[triangles[:, 1]], p[triangles[:, 2]]
    face = numpy.cross(b - a, c - a)
    n = numpy.zeros_like(p)
    for corner in range(3):
        numpy.add.at(n, triangles[:, corner], face)
    length = numpy.linalg.norm(n, axis=1)
    n[length == 0] = (0, 0, 1)
    length[length == 0] = 1
    return (n / length[:, None]).astype(numpy.float32)


def is_similarity(m, tolerance=1e-6):
    """A rotation times a uniform scale (plus a translation)?"""
    a = m[:3, :3]
    g = a.T @ a
    return numpy.abs(g - numpy.eye(3) * g.trace() / 3).max() <= tolerance * g.trace()


class Binding:
    """A mesh bound to its armature: the skn rig and what is needed to pose it.
    `rest` is the mesh's rest coordinates (object space).

    The modifier works in armature space: v' = premat^-1 M premat v. Where
    premat is a similarity, the rig is bound in object space instead, with
    bind and pose matrices premat^-1 arm_mat and premat^-1 pose_mat: the same
    M conjugated, and the same "Preserve Volume" split (keeping a frame's Y
    axis commutes with rotations and uniform scales), so the output needs no
    transform. Otherwise the rig lives in armature space and `to_object`
    maps its output back."""

    def __init__(self, obj, rest=None, blend_group=None, centers=False, normals=False):
        arm, _ = find_armature(obj)
        if arm is None:
            raise ValueError(f"{obj.name} has no armature to follow (an Armature modifier or an armature parent)")
        if blend_group is not None and blend_group not in obj.vertex_groups:
            raise ValueError(f"{obj.name} has no vertex group \"{blend_group}\" to blend by")
        self.armature_name, self.premat = arm.name, premat(obj, arm)
        self.object_space = is_similarity(self.premat)
        self.to_rig = numpy.linalg.inv(self.premat) if self.object_space else numpy.eye(4)
        self.rest = rest_coordinates(obj.data) if rest is None else rest
        offsets, joints, weights, blend = influences(obj, arm, blend_group)
        if not len(joints):
            raise ValueError(f"{obj.name} has no vertex weighted to a deform bone of {arm.name} "
                             f"(vertex groups are named after the bones they follow): nothing would move")
        self.blend_group, self.centers = blend_group, centers
        if self.object_space:
            positions = self.rest
        else:
            positions = self.rest @ self.premat[:3, :3].T + self.premat[:3, 3]
        bones = list(arm.data.bones)
        index = {b.name: i for i, b in enumerate(bones)}
        parents = [index[b.parent.name] if b.parent else -1 for b in bones]
        # the faces: COR's similarity weights, and the normals a viewport draw shades by
        self.triangles = triangles_of(obj.data) if centers or normals else None
        rest_normals = vertex_normals(positions, self.triangles) if normals else None
        self.rig = skn.Rig(parents=parents, bind_matrices=self.to_rig @ numpy.array([matrix(b.matrix_local) for b in bones]),
                           positions=positions, joints=joints, weights=weights, offsets=offsets,
                           blend_weights=blend, normals=rest_normals,
                           triangles=self.triangles.ravel() if centers else None)
        self.pose = self.rig.pose()
        self.out = numpy.empty((len(self.rest), 3), numpy.float32)

    def serves(self, method, normals=False):
        """Whether this binding can skin by `method` (BLEND needs a blend group, COR the centers),
        and shade (`normals`: bound with the rest normals)."""
        key = method_key(method)
        return ((key != "BLEND" or self.blend_group is not None) and (key != "COR" or self.centers)
                and (not normals or self.rig.has_normals))

    def set_pose(self, arm, method):
        """Poses the rig as `arm` stands; returns skn's name of `method` (checked against the binding)."""
        key = method_key(method)
        if key == "BLEND" and self.blend_group is None:
            raise ValueError("Blend mixes Linear and Dual Quaternion per vertex by a vertex group: pick the Blend Group")
        if key == "COR" and not self.centers:
            raise ValueError("this binding was made without the triangles Centers of Rotation needs: bind again")
        self.pose.set_model(self.to_rig @ numpy.array([matrix(pb.matrix) for pb in arm.pose.bones]))
        return METHODS[key]

    def skin(self, arm, method):
        """Deformed positions in the rig's space (an array this binding reuses)."""
        kind = self.set_pose(arm, method)
        return self.rig.skin(self.pose, method=kind, out=self.out, dqs_scale=dqs_scale(kind))

    def to_object(self, positions):
        """The rig's output in object space (the array itself where they coincide)."""
        if self.object_space:
            return positions
        post = numpy.linalg.inv(self.premat)
        return (positions @ post[:3, :3].T + post[:3, 3]).astype(numpy.float32)

    def to_world(self, positions, obj, arm):
        m = matrix(obj.matrix_world) if self.object_space else matrix(arm.matrix_world)
        return (positions @ m[:3, :3].T + m[:3, 3]).astype(numpy.float32)


def skin_object(obj, method="LINEAR", depsgraph=None, binding=None, blend_group=None):
    """World-space positions, (n, 3) float32, of a mesh deformed by its armature's
    current pose (the evaluated armature when a depsgraph is given) — what the
    Armature modifier computes with Preserve Volume off ("LINEAR") or on ("DQS"),
    or "BLEND" (Linear and Dual Quaternion mixed per vertex by the weights of the
    vertex group `blend_group`: 0 Linear, 1 Dual Quaternion) or "COR". Methods are
    named in any case ("lbs", "dqs" too). Binds on the fly unless a Binding is given."""
    key = method_key(method)
    if key == "BLEND" and blend_group is None and binding is None:
        raise ValueError("BLEND mixes Linear and Dual Quaternion per vertex: give blend_group, a vertex group's name")
    binding = binding or Binding(obj, blend_group=blend_group, centers=key == "COR")
    method = key
    arm, _ = find_armature(obj)
    if depsgraph is not None:
        arm = arm.evaluated_get(depsgraph)
    return binding.to_world(binding.skin(arm, method), obj, arm)
