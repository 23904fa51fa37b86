"""The Blender side of skn without UI: a mesh bound by the Armature
modifier's rules (rules.py) into a skn rig, posed and skinned each frame.

What the modifier computes (../shared/notes/blender-deform.md): the mesh as
it enters the modifier (its shape keys applied) is taken into the armature's
space, premat = armature^-1 * object; each vertex blends its bones' (or B-Bone
segments') deform matrices D = posed * rest^-1, Linear or, with "Preserve
Volume", dual quaternions that keep each posed frame's Y axis (skn's KEEP_Y),
antipodal quaternions flipped against the running sum in the vertex's order
(skn's rule too); the mask group scales the displacement; back through
premat^-1. Shape keys are the rig's morph targets, so skn sees the same input;
with modifiers above the modifier, the input is their result, evaluated by
Blender on a helper object (stack.py), shape keys included.
"""
import numpy

from . import rules, skn

METHODS = {"LINEAR": "lbs", "DQS": "dqs", "BLEND": "blend", "COR": "cor"}
# other names a script may use for them, in any case: the library's, and Blender's words
ALIASES = {"LBS": "LINEAR", "DUAL_QUATERNION": "DQS", "PRESERVE_VOLUME": "DQS", "CENTERS_OF_ROTATION": "COR"}
Unsupported = rules.Unsupported
find_armature = rules.armature_of
matrix = rules.matrix


def method_key(method):
    """LINEAR, DQS, BLEND or COR for a method named in any case, by the add-on's or the library's word."""
    if not isinstance(method, str):
        raise TypeError(f"method must be a name (LINEAR, DQS, BLEND or COR), not {type(method).__name__}")
    key = method.strip().upper().replace("-", "_").replace(" ", "_")
    key = ALIASES.get(key, key)
    if key not in METHODS:
        raise ValueError(f"method {method!r} is not one of LINEAR, DQS, BLEND, COR (or lbs, dqs, blend, cor)")
    return key


def postmat(world, armature_world):
    """Armature space -> object space as the modifier takes it, object^-1 * armature (their world
    matrices, float64 arrays); premat, object -> armature, is its inverse. Each inverse is
    Blender's (inverse): where either object is scaled to 0 on an axis, premat is the zero matrix,
    so that the modifier deforms every vertex as the armature's origin and postmat takes the result
    back (to the object's origin where the object is the one scaled to 0: postmat is 0 too)."""
    return inverse(world) @ armature_world


def inverse(m):
    """m^-1, or the zero 4x4 where m has none, as Blender's invert_m4_m4 answers (Eigen's inverse,
    its determinant checked against 0). A scale of exactly 0 on an axis leaves a column or a row of
    exact zeros, whose determinant is exactly 0 in numpy's factorization as in Blender's."""
    try:
        return numpy.linalg.inv(m)
    except numpy.linalg.LinAlgError:
        return numpy.zeros_like(m)


class Seen:
    """A bound object as a depsgraph evaluated it, for a frame's reads: its place and its shape
    keys' values (the evaluated Key), everything else the original's. Blender copies what the
    viewport's depsgraph evaluates back to the original objects, not what a render's does, and a
    render evaluates frames of its own (an animation rendered while the viewport shows another
    frame, or from the command line): read from the original, the render showed the viewport's
    pose. Pass the armature as arm.evaluated_get(depsgraph) beside it."""

    def __init__(self, obj, depsgraph):
        self._original, self.matrix_world = obj, obj.evaluated_get(depsgraph).matrix_world
        key = obj.data.shape_keys
        self.seen_key = key.evaluated_get(depsgraph) if key is not None else None

    def __getattr__(self, name):
        return getattr(self._original, name)


class Placed(Seen):
    """A bound object at `matrix_world` (a mathutils Matrix), everything else the original's: where
    its parent places it inside a frame's evaluation, before Blender placed it (driven.placed)."""

    def __init__(self, obj, matrix_world):
        self._original, self.matrix_world, self.seen_key = obj, matrix_world, None


def dqs_scale(kind):
    """The split of scale from rotation Blender's Preserve Volume makes (skn's KEEP_Y) for the
    dual-quaternion methods; LBS ignores it."""
    return "keep-y" if kind != "lbs" else "polar"


def triangles_of(mesh):
    """The mesh's triangulated faces (Blender's loop triangles), (t, 3) uint32 vertex indices."""
    mesh.calc_loop_triangles()
    tris = numpy.empty(len(mesh.loop_triangles) * 3, numpy.uint32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    return tris.reshape(-1, 3)


GPU_INFLUENCES = 16  # the most influences a vertex skn's GLSL reads (skn_gpu_desc.influences: 4, 8, 12 or 16)
GPU_MORPH_ENTRIES = 1024 * 16384 // 2  # 2 texels an entry in a texture of 1024 x 16384 (viewport.Morphs;
                                       # GL_MAX_TEXTURE_SIZE is 16384 on llvmpipe and most GPUs)


def vertex_normals(positions, triangles, mirrored=False):
    """Unit vertex normals of a triangle mesh: the sum of its triangles' cross products (normals
    weighted by area, Gouraud 1971's average); a vertex of no triangle gets (0, 0, 1).
    `mirrored`: the positions are the mesh's through a map of negative determinant (a rig bound
    in the armature's space of an object scaled -1 on an axis), which turns each cross product
    inward (Ra x Rb = det(R) R^-T (a x b)): turned back out."""
    p = positions.astype(numpy.float64)
    a, b, c = p[triangles[:, 0]], p[triangles[:, 1]], p[triangles[:, 2]]
    face = numpy.cross(b - a, c - a)
    n = numpy.zeros_like(p)
    for corner in range(3):  # bincount sums by index ~20x faster than numpy.add.at
        for axis in range(3):
            n[:, axis] += numpy.bincount(triangles[:, corner], weights=face[:, axis], minlength=len(p))
    length = numpy.linalg.norm(n, axis=1)
    if mirrored:
        n = -n
    n[length == 0] = (0, 0, 1)
    length[length == 0] = 1
    return (n / length[:, None]).astype(numpy.float32)


def mirrors(m):
    """Whether the affine map m turns a mesh's faces inside out (a negative determinant)."""
    return bool(numpy.linalg.det(m[:3, :3]) < 0)


def is_similarity(m, tolerance=1e-6):
    """A rotation times a uniform scale (plus a translation)?"""
    a = m[:3, :3]
    g = a.T @ a
    return numpy.abs(g - numpy.eye(3) * g.trace() / 3).max() <= tolerance * g.trace()


def outline(obj):
    """What a binding is made from that is cheap to read each frame: the vertex count, the vertex
    groups' and shape keys' names and settings, the modifier's settings. A binding whose outline
    differs from its object's is out of date; changes to weights and coordinates are found by the
    depsgraph instead (handlers.edited_meshes)."""
    arm, mod = find_armature(obj)
    key = obj.data.shape_keys
    blocks = tuple((b.name, b.relative_key.name if b.relative_key else "", b.vertex_group, b.mute)
                   for b in key.key_blocks) if key else ()
    settings = (mod.use_vertex_groups, mod.use_bone_envelopes, mod.vertex_group, mod.invert_vertex_group) \
        if mod is not None else ()
    settings += tuple((m.name, m.object.name, m.use_vertex_groups, m.use_bone_envelopes, m.vertex_group,
                       m.invert_vertex_group, m.use_deform_preserve_volume) for m in rules.multi_chain(obj, mod))
    settings += tuple((m.name, rules.modifier_settings(m)) for m in rules.modifiers_above(obj, mod))
    return (len(obj.data.vertices), arm.name if arm else "", tuple(obj.vertex_groups.keys()), blocks,
            settings, key.use_relative if key else True)


# The bone properties a binding is made from (rest frames, envelopes, B-Bone rest shape), by type.
BONE_FLOATS = (("matrix_local", 16), ("length", 1), ("head_radius", 1), ("tail_radius", 1),
               ("envelope_distance", 1), ("envelope_weight", 1), ("bbone_curveinx", 1), ("bbone_curveinz", 1),
               ("bbone_curveoutx", 1), ("bbone_curveoutz", 1), ("bbone_rollin", 1), ("bbone_rollout", 1),
               ("bbone_easein", 1), ("bbone_easeout", 1), ("bbone_scalein", 3), ("bbone_scaleout", 3))
BONE_FLAGS = ("use_deform", "use_envelope_multiply", "use_endroll_as_inroll", "use_scale_easing", "use_connect")


def bones_outline(arm):
    """The armature's bones as a binding reads them, as bytes (bulk reads: cheap enough to compare
    whenever Blender reports the armature changed, which every pose change does)."""
    bones = arm.data.bones
    n = len(bones)
    parts = [repr([b.name for b in bones]).encode()]
    for prop, width in BONE_FLOATS:
        a = numpy.empty(n * width, numpy.float32)
        bones.foreach_get(prop, a)
        parts.append(a.tobytes())
    for prop in BONE_FLAGS:
        a = numpy.empty(n, bool)
        bones.foreach_get(prop, a)
        parts.append(a.tobytes())
    a = numpy.empty(n, numpy.int32)
    bones.foreach_get("bbone_segments", a)
    parts.append(a.tobytes())
    handles = [(b.bbone_handle_type_start, b.bbone_handle_type_end,
                b.bbone_custom_handle_start.name if b.bbone_custom_handle_start else "",
                b.bbone_custom_handle_end.name if b.bbone_custom_handle_end else "",
                tuple(b.bbone_handle_use_scale_start), tuple(b.bbone_handle_use_scale_end),
                b.bbone_handle_use_ease_start, b.bbone_handle_use_ease_end) for b in bones if b.bbone_segments > 1]
    return b"".join(parts) + repr(handles).encode()


def unit_columns(m):
    """Frames with their 3x3 columns normalised (Blender's DQS reads a B-Bone segment's rest frame so)."""
    out = m.copy()
    out[:, :3, :3] /= numpy.linalg.norm(m[:, :3, :3], axis=1)[:, None, :]
    return out


class Binding:
    """A mesh bound to its armature by the Armature modifier's rules: the skn rig, and what it
    takes to pose it each frame.

    The rig lives in object space where premat is a similarity (bind and pose frames taken
    through premat^-1: the same deformation conjugated, and the same Preserve Volume split, since
    keeping a frame's Y axis commutes with rotations and uniform scales), so its output needs no
    transform; otherwise in the armature's space, mapped back by to_object. When premat changes
    (either object moves) the rig is bound again, and so it is when the input moves under
    influences that depend on it (envelopes, B-Bone segments) as shape keys change.

    Armature modifiers with Multi Modifier after the modifier (rules.multi_chain) are each a
    MultiPart, mixed in by deform. `part`: this binding is one of them ((armature, modifier)):
    unmasked, its refusals and chain its owner's.

    With modifiers above the modifier, `source` is the input helper (stack.py): the mesh, its
    vertex groups and coordinates are its evaluated mesh's, which has its own vertices, and the
    rig is bound again whenever that input moves (its rest is the rig's). `bare`: the mesh itself
    instead, the modifiers above left out (what Blender's Apply deforms when they are there)."""

    def __init__(self, obj, blend_group=None, centers=False, normals=False, part=None, source=None, bare=False):
        self.depsgraph = None  # a render's, for the frame it evaluates (Seen); None: the viewport's
        arm, mod = find_armature(obj) if part is None else part
        if arm is None:
            raise ValueError(f"{obj.name} has no armature to follow (an Armature modifier or an armature parent)")
        if blend_group is not None and blend_group not in obj.vertex_groups:
            raise ValueError(f"{obj.name} has no vertex group \"{blend_group}\" to blend by")
        why = rules.refusals(obj, arm, mod) if part is None else []
        above = [] if bare or part is not None else rules.modifiers_above(obj, mod)
        if above and source is None and part is None:
            why.append(rules.above_refusal(mod, above))
        if why:
            raise Unsupported(f"{obj.name}: " + "; ".join(why) + " — the Armature modifier keeps deforming it")
        self.armature_name, self.settings, self.outline = arm.name, rules.Settings(obj, mod), outline(obj)
        self.skeleton, self.bones = rules.Skeleton(arm), bones_outline(arm)
        if not self.skeleton.bones:
            raise ValueError(f"{arm.name} has no bone with Deform on: nothing would move")
        self.source = source if above or part is not None else None  # (a part: its owner's)
        self.above = [m.name for m in above]
        self.render_note = rules.render_note(above) if self.source is not None else ""
        mesh = obj.data if self.source is None else self._input_mesh()
        view = obj if self.source is None else rules.Evaluated(obj, mesh)  # what the readers read
        self.vertex_count = len(mesh.vertices)
        self.groups = rules.vertex_groups(view, self.skeleton) if self.settings.groups else None
        self.readers = rules.readers_key(obj, above, self._depsgraph()) \
            if self.source is not None else b""  # what those groups depend on, besides the input (live._fits)
        self.reference = rules.reference_coordinates(mesh) if self.source is None else rules.coordinates(mesh)
        self.targets = rules.shape_keys(obj) if self.source is None else []  # (the keys: in the input already)
        self.morph = rules.morph_offsets(self.targets, self.vertex_count)
        self.mask = rules.mask_factors(view, self.settings)  # a part's: its mix (MultiPart), not applied here
        self.blend_group, self.centers = blend_group, centers
        self.blend = rules.group_weights(view, blend_group) if blend_group else None
        self.triangles = triangles_of(mesh) if centers or normals else None
        self.normals = normals
        rest = self.skeleton.rest_joint_matrices(arm)
        self.inverse_rest, self.frames = numpy.linalg.inv(rest), unit_columns(rest)
        self.rest_to_frames = self.inverse_rest @ self.frames  # (set_pose: posed D_k frames in one product)
        # the frames Blender's Preserve Volume splits by: a bone's matrix_local as it is, a B-Bone
        # segment's with unit columns (rules.preserve_volume_matrices)
        self.volume_base = rest.copy()
        self.volume_base[self.skeleton.segment_joints] = self.frames[self.skeleton.segment_joints]
        self.volume_base_inverse = numpy.linalg.inv(self.volume_base)
        self.rig, self.pre, self.input_values = None, None, None
        self.update(obj, arm)
        if self.rig is None and part is None:
            raise ValueError(self._nothing_moves(obj, arm))
        self.multi = [MultiPart(obj, m, self) for m in rules.multi_chain(obj, mod)  # (one without a group: no share)
                      if m.vertex_group in obj.vertex_groups] if part is None else []
        if part is not None:
            self.part_mask, self.mask = self.mask, None

    def _nothing_moves(self, obj, arm):
        s = self.settings
        by = []
        if s.groups:
            by.append(f"no vertex is weighted to a deform bone of {arm.name} (vertex groups named after the bones)")
        else:
            by.append(f"{s.name} does not bind to vertex groups")
        by.append("no vertex lies within a bone's envelope" if s.envelopes else f"{s.name} does not bind to bone envelopes")
        return f"{obj.name}: " + " and ".join(by) + ": nothing would move"

    # ---- the rig, bound again when what it was bound from moved ----

    def update(self, obj, arm, values=None):
        """Binds the rig again where premat, or the input its influences depend on, changed (with
        modifiers above: any move of the input, which is the rig's rest). postmat, which to_object
        applies, is kept as it is now: where premat is 0 (an object scaled to 0), it moves with the
        armature while premat stays. Both worked out again only where either object's matrix
        changed (a frame of bones alone leaves them: two inverses a frame spared). `values`: the
        shape keys' (rules.shape_key_values), when already read."""
        places = matrix(obj.matrix_world), matrix(arm.matrix_world)
        seen = places[0].tobytes() + places[1].tobytes()
        if seen != self._places:
            self.post = postmat(*places)
            self._pre, self._places = inverse(self.post), seen
        pre = self._pre
        values = self.key_values(obj) if values is None else values
        if self.source is not None:
            moved_input = not numpy.array_equal(self.input_points(values), self.reference)
        else:
            moved_input = self.uses_input and not numpy.array_equal(values, self.input_values)
        if self.pre is None or not numpy.array_equal(pre, self.pre) or moved_input:
            self._bind(pre, values)

    _places = None  # update's: the two matrices it last worked premat out from, as bytes

    def _input_mesh(self):
        from . import stack
        return stack.input_mesh(self.source, self.depsgraph)

    @staticmethod
    def _depsgraph():
        import bpy
        return bpy.context.evaluated_depsgraph_get()

    def input_points(self, values):
        """The coordinates the modifier receives at these shape key values (rules.morphed), kept for
        the values last asked: a frame's bind and its deform read them once. With modifiers above,
        the input helper's evaluated coordinates as they are now (`values` unused)."""
        if self.source is not None:
            points = rules.coordinates(self._input_mesh())
            if len(points) != self.vertex_count:
                raise ValueError(f"the modifiers above {self.settings.name} now give {len(points)} vertices, "
                                 f"not {self.vertex_count}: bind again")
            return points
        if self._input is None or not numpy.array_equal(self._input[0], values):
            self._input = (numpy.array(values, copy=True), rules.morphed(self.reference, self.morph, values))
        return self._input[1]

    def _bind(self, pre, values):
        given = self.input_points(values)
        if self.source is not None and not numpy.array_equal(given, self.reference):  # the rest moved
            self.reference, self._rest_cache = given, None
        inputs = self.inputs if self.pre is not None and numpy.array_equal(pre, self.pre) else None
        if inputs is not None and self._patched(inputs, given, values):
            self.input_values = values
            return
        points = given @ pre[:3, :3].T + pre[:3, 3]
        fresh = inputs.refreshed(points) if inputs is not None else None
        if inputs is not None and not inputs.uses_input:  # the input moved, not what it is bound by
            fresh = inputs.joints, inputs.weights
        if fresh is None:  # the whole structure again (first bind, the armature moved, envelopes)
            inputs = rules.Contributions(self.skeleton, self.settings, points, self.groups)
        else:              # shape keys moved B-Bone-weighted points: only the segment split again
            inputs.joints, inputs.weights = fresh
        self.inputs = inputs
        self.pre, self.input_values, self.uses_input = pre, values, inputs.uses_input
        self.object_space = is_similarity(pre) and pre[3, 3] != 0  # (0: none, premat of an object scaled to 0)
        self.to_rig = numpy.linalg.inv(pre) if self.object_space else numpy.eye(4)
        self.rig = self.pose = self.dual_pose = self.patch = None
        self.rig_values = values  # (the shape key values the rig is bound at: _patched)
        if fresh is None:
            self.drawing = None  # a GPU drawing is made from the rig: again too (a refresh keeps it: Drawing.rebound)
        if not len(inputs.joints):
            return
        rig_map = numpy.eye(4) if self.object_space else pre
        positions, rest_normals = self._rest(rig_map)
        if self.normals:  # shaded: each key moves the normals too (on GPU mode's shader as in skn_skin)
            self.morphs = self._morphs(positions, rest_normals, rig_map)
            targets = [{"vertices": v, "positions": dv, "normals": dn} for v, dv, dn in self.morphs]
        else:
            targets = [{"vertices": v, "positions": dv} for v, dv in self._offsets(rig_map)]
        self.rig = skn.Rig(bind_matrices=self.to_rig @ self.frames, positions=positions, offsets=inputs.offsets,
                           joints=inputs.joints, weights=inputs.weights, blend_weights=self.blend,
                           normals=rest_normals, triangles=self.triangles.ravel() if self.centers else None,
                           morph_targets=targets)
        self.pose = self.rig.pose()

    def _patched(self, inputs, given, values):
        """Binds again only the vertices whose influences moved with the input (Patch: those the
        keys whose values are not the rig's move), keeping the whole rig, where they are few enough;
        False where the whole rig is to be bound again."""
        if self.rig is None or self.normals or self.centers or self.source is not None or inputs.split is None:
            return False  # (GPU mode's shader reads the whole rig; the centers follow every weight)
        rig_map = numpy.eye(4) if self.object_space else self.pre
        keys = tuple(numpy.asarray(values) != self.rig_values)
        if not any(keys):  # back at the rig's values: the rig alone is right
            self.patch = None
            return True
        plan = self._plan
        if plan is None or not plan.fits(inputs, rig_map, keys):
            plan = self._plan = Patch(self, inputs, rig_map, keys)
        if not plan.worth(self.vertex_count):
            return False
        plan.bind(self, given, values)
        self.patch = plan
        return True

    uses_input = True  # until the first bind says
    patch = None       # _patched's Patch, skinned over the rig; None: the rig alone
    _plan = None       # the last Patch made, kept while the structure and the rig's space stay
    multi = ()         # MultiPart: the Multi modifiers after the modifier
    inputs = None      # the last bind's rules.Contributions
    _input = None      # input_points' (values, points)
    morphs = ()        # for a shaded binding: each shape key as (vertices, dv, dn) in the rig's space

    def _rest(self, rig_map):
        """The rest positions in the rig's space and, for a shaded binding, their normals: kept while
        the rig's space stays (a refresh's bind: the normals took 18 ms a frame on a Rigify body)."""
        cache = getattr(self, "_rest_cache", None)
        if cache is None or not numpy.array_equal(cache[0], rig_map):
            positions = (self.reference @ rig_map[:3, :3].T + rig_map[:3, 3]).astype(numpy.float32)
            normals = vertex_normals(positions, self.triangles, mirrors(rig_map)) if self.normals else None
            cache = self._rest_cache = (rig_map.copy(), positions, normals)
        return cache[1], cache[2]

    def _offsets(self, rig_map):
        """Each shape key as (vertices, offsets) in the rig's space, float32: kept across rebinds
        while the rig's space stays (a refresh's bind: converted again, 0.3 ms a frame on a Rigify
        body)."""
        cache = getattr(self, "_offsets_cache", None)
        if cache is None or not numpy.array_equal(cache[0], rig_map):
            out = [(v, (o @ rig_map[:3, :3].T).astype(numpy.float32)) for _, v, o in self.targets]
            cache = self._offsets_cache = (rig_map.copy(), out)
        return cache[1]

    def _morphs(self, positions, rest_normals, rig_map):
        """Each shape key as a morph target with normals, in the rig's space: its offsets dv, and dn,
        the change of vertex_normals when the key is applied at 1, on every vertex it moves or whose
        faces it turns (skn's morph targets add w dn to the rest normal, as glTF's do: exact at 0
        and 1, linear between). Kept across rebinds while the rig's space stays."""
        cache = getattr(self, "_morph_cache", None)
        if cache is not None and numpy.array_equal(cache[0], rig_map):
            return cache[1]
        out = []
        for _, v, o in self.targets:
            dv = (o @ rig_map[:3, :3].T).astype(numpy.float32)
            moved = positions.copy()
            moved[v] += dv
            dn = vertex_normals(moved, self.triangles, mirrors(rig_map)) - rest_normals
            keys = numpy.union1d(v, numpy.nonzero(numpy.any(dn != 0, axis=1))[0]).astype(numpy.uint32)
            full = numpy.zeros((len(keys), 3), numpy.float32)
            full[numpy.searchsorted(keys, v)] = dv
            out.append((keys, full, dn[keys]))
        self._morph_cache = (rig_map.copy(), out)
        return out

    # ---- posing and skinning ----

    def serves(self, method, normals=False):
        """Whether this binding can skin by `method` (BLEND needs a blend group, COR the centers),
        and shade (`normals`: bound with the rest normals)."""
        key = method_key(method)
        return ((key != "BLEND" or self.blend_group is not None) and (key != "COR" or self.centers)
                and (not normals or self.normals))

    def gpu_refusal(self):
        """Why GPU mode cannot draw this binding as the modifier would ("" where it can)."""
        if self.multi:
            return (f'GPU mode draws one Armature modifier, and "{self.multi[0].name}" mixes in another '
                    f'(Multi Modifier): skinned on the CPU')
        entries = sum(len(v) for v, _, _ in self.morphs)
        if entries > GPU_MORPH_ENTRIES:
            return (f"GPU mode holds at most {GPU_MORPH_ENTRIES:,} shape key entries (a vertex a key it moves), "
                    f"and these keys have {entries:,}: skinned on the CPU")
        most = self.rig.max_influences_per_vertex if self.rig is not None else 0
        if most > GPU_INFLUENCES:
            return (f"GPU mode draws at most {GPU_INFLUENCES} bones (or B-Bone segments) a vertex, and a vertex "
                    f"here has {most}: skinned on the CPU")
        return ""

    def key_values(self, obj):
        """The shape keys' values as the modifier sees them now (none where the mesh has no keys)."""
        return rules.shape_key_values(obj) if self.targets else numpy.zeros(0, numpy.float32)

    def posed(self, arm, stamp=None):
        """The joints' posed frames in armature space, as `arm` stands (B-Bone segments included);
        `stamp`: rules.Skeleton.posed_joint_matrices'."""
        return self.skeleton.posed_joint_matrices(arm, stamp)

    def frame_key(self, obj, arm, posed=None, values=None):
        """Everything a frame's deformation depends on, as bytes: equal keys, equal results.
        `posed`, `values`: as set_pose's."""
        posed = self.posed(arm) if posed is None else posed
        values = self.key_values(obj) if values is None else values
        key = posed.tobytes() + matrix(obj.matrix_world).tobytes() + matrix(arm.matrix_world).tobytes() + \
            values.tobytes()
        if self.source is not None:  # the input itself (what animates the modifiers above)
            key += self.input_points(values).tobytes()
        for part in self.multi:
            a = part.armature(obj)
            key += part.binding.posed(a).astype(numpy.float32).tobytes() + matrix(a.matrix_world).tobytes()
        return key

    def set_pose(self, arm, method, obj=None, posed=None, values=None):
        """Poses the rig as `arm` stands (and `obj`'s shape keys); returns skn's name of `method`.
        `posed`, `values`: self.posed(arm) and the keys' values (rules.shape_key_values), when
        already read."""
        key = method_key(method)
        if key == "BLEND" and self.blend_group is None:
            raise ValueError("Blend mixes Linear and Dual Quaternion per vertex by a vertex group: pick the Blend Group")
        if key == "COR" and not self.centers:
            raise ValueError("this binding was made without the triangles Centers of Rotation needs: bind again")
        if obj is not None:
            values = self.key_values(obj) if values is None else values
            self.update(obj, arm, values)
        self.split_blend = False
        if self.pose is not None:  # D_k = posed rest^-1 (notes §3), taken to the bind frames
            posed = self.posed(arm) if posed is None else posed
            bad = ~numpy.isfinite(posed).all(axis=(1, 2))
            self.unshaped = self._unshaped(bad) if bad.any() else None
            if self.unshaped is not None:  # a finite stand-in: their points get no position (deform)
                posed = numpy.where(bad[:, None, None], numpy.eye(4), posed)
            if key in ("DQS", "BLEND"):  # Preserve Volume: D_k as Blender's dual quaternion applies it
                deform = posed @ self.inverse_rest
                volume = rules.preserve_volume_matrices(deform, self.volume_base, self.volume_base_inverse)
                models = [volume @ self.frames] if key == "DQS" else [rules.affine(deform @ self.frames)]
                if key == "BLEND" and volume is not deform:  # its ends posed apart (_skin, gpu_palette)
                    self.split_blend = True
                    models.append(volume @ self.frames)
            else:
                models = [rules.affine(posed @ self.rest_to_frames)]
            values = (values if obj is not None else self.input_values) if self.targets else None
            models = [self.to_rig @ m if self.object_space else m for m in models]  # (to_rig: 1 otherwise)
            for pose, model in zip(_ends(self, len(models)), models):
                pose.set_model(model)
                if values is not None:
                    pose.set_morph_weights(values)
            if self.patch is not None:  # its poses, by the same models, its joints' alone (its rest keyed: Patch.bind)
                for pose, model in zip(_ends(self.patch, len(models)), models):
                    pose.set_model(model[self.patch.joint_set])
        return METHODS[key]

    def _unshaped(self, bad):
        """The vertices the modifier gives no position (not numbers) where joints are not numbers
        (`bad`): a B-Bone under a bone scaled to 0 along its length, whose inner segments Blender
        makes of a division by that length. Those with weight on such a joint; a segment's weight
        of 0 (a point where its segment starts) Blender skips."""
        vertex = numpy.repeat(numpy.arange(self.vertex_count), numpy.diff(self.inputs.offsets.astype(numpy.int64)))
        return numpy.unique(vertex[bad[self.inputs.joints] & (self.inputs.weights > 0)])

    unshaped = None  # set_pose's: _unshaped, or None

    split_blend = False  # set_pose's: Blend's Linear and Dual Quaternion ends posed apart (deform)
    dual_pose = None     # the Dual Quaternion end's pose there

    def gpu_palette(self, kind):
        """The palette GPU mode's shader reads for the pose set_pose made (normals too). Blend posed
        apart (split_blend): its Dual Quaternion part from that end's pose; a BLEND palette's joint
        is DQS's vec4s, then M_i's and N_i's (skn.h, section 6), so those first vec4s are the dual
        pose's and the rest the Linear end's."""
        palette = self.pose.gpu_palette(kind, dqs_scale=dqs_scale(kind), normals=True)
        if kind == "blend" and self.split_blend:
            dual = self.dual_pose.gpu_palette(kind, dqs_scale=dqs_scale(kind), normals=True)
            n = skn.gpu_layout("dqs")["palette_vec4s"]
            palette[:, :n] = dual[:, :n]
        return palette

    def _skin(self, kind, out=None):
        """The rig skinned by skn's `kind` into `out` (None: a new array), the patch's vertices
        (_patched) written over it from the patch's rig."""
        out = self._skin_rig(self, kind, out)
        if self.patch is not None:
            out[self.patch.vertices] = self._skin_rig(self.patch, kind)
        return out

    def _skin_rig(self, bound, kind, out=None):
        """`bound`'s rig (the binding's or its patch's: rig, pose, dual_pose, blend) skinned by skn's
        `kind`. Blend whose two ends set_pose posed apart (split_blend) is skinned as the library's
        Blend is defined, (1 - b) Linear + b Dual Quaternion a vertex: each end by its own pose,
        mixed here."""
        if not (kind == "blend" and self.split_blend):
            return bound.rig.skin(bound.pose, method=kind, dqs_scale=dqs_scale(kind), out=out)
        linear = bound.rig.skin(bound.pose, method="lbs")
        dual = bound.rig.skin(bound.dual_pose, method="dqs", dqs_scale=dqs_scale("dqs"))
        mixed = linear + bound.blend[:, None] * (dual - linear)
        if out is None:
            return mixed
        out[...] = mixed
        return out

    def deform(self, obj, arm, method, posed=None, depsgraph=None, out=None, values=None):
        """The object-space coordinates the modifier (and the Multi modifiers after it) would
        output, (n, 3) float32. `depsgraph`: the Multi modifiers' armatures as evaluated there.
        `out`: an (n, 3) float32 array skn skins into where skinning gives the result alone (no
        mask, no Multi modifier, the rig in object space): then the result is `out`. `posed`,
        `values`: as set_pose's. The input the modifier receives (the reference with the shape keys,
        input_points) is worked out only where the result needs it: no pose, or a mask."""
        values = self.key_values(obj) if values is None else values
        kind = self.set_pose(arm, method, obj, posed, values)
        if self.pose is None:
            out = self.input_points(values)
        else:
            into = out if self.object_space and self.mask is None and not self.multi else None
            out = self.to_object(self._skin(kind, out=into))
            if self.mask is not None:  # the mask scales the displacement (notes §4)
                points = self.input_points(values)
                out = points + (self.mask[:, None] * (out - points)).astype(numpy.float32)
            if self.unshaped is not None:  # as the modifier leaves them (a vertex the mask keeps out, it skips)
                out[self.unshaped if self.mask is None else self.unshaped[self.mask[self.unshaped] > 0]] = numpy.nan
        for part in self.multi:  # each keeps its mask's share of the result before it (notes §4)
            d = part.binding.deform(obj, part.armature(obj, depsgraph), part.method)
            keep = part.keep[:, None]
            out = (keep * out + (1.0 - keep) * d).astype(numpy.float32)
        return out

    def to_object(self, positions):
        """The rig's output in object space (the array itself where they coincide): through postmat."""
        if self.object_space:
            return positions
        post = self.post
        return (positions @ post[:3, :3].T + post[:3, 3]).astype(numpy.float32)

    def to_world(self, positions, obj, arm=None):
        m = matrix(obj.matrix_world)
        return (positions @ m[:3, :3].T + m[:3, 3]).astype(numpy.float32)


def _ends(bound, count):
    """The first `count` of (pose, dual_pose) of `bound` (a Binding or its Patch: a rig and its
    poses), the dual pose (Blend's Dual Quaternion end, posed apart) made when first asked for."""
    if count > 1 and bound.dual_pose is None:
        bound.dual_pose = bound.rig.pose()
    return [bound.pose, bound.dual_pose][:count]


class Patch:
    """The vertices whose influences follow the input (B-Bone-weighted points: the split between
    segments follows where they are, Contributions.refreshed) and that shape keys move from where
    the binding's rig has them (`keys`: each key's value not the rig's), bound again as a rig of
    their own when the keys move and skinned over the binding's rig, which keeps the other vertices
    as bound (Binding._patched). A corrective key moves a few hundred vertices of a body: those are
    bound again each frame, not the body's tens of thousands. Made for one structure (the rig's
    rules.Contributions), premat, rig space and set of moving keys; `worth` binding where its
    vertices are at most three quarters of the mesh's.

    What a bind needs that stays while the plan does is worked out here once: the patch's
    influences (CSR, the joints numbered as its rig's), its bind matrices, and each split entry's
    place along its B-Bone as an affine function of the moving keys' values. A point's place is
    f = n (R_y . premat x + o_y) / length (bbone_split), linear in x, and x, the input, is linear
    in the keys' values (rules.morphed): f = f_0 + sum over moving keys t of w_t g_t, with f_0
    the place at the rig's values of the other keys and g_t the key's offset along the bone.
    A bind then costs a few passes over the split entries instead of gathering their points
    (a Rigify body's full-body key: 6.6 -> 3.2 ms a frame, half of it skn's bind)."""

    def __init__(self, binding, inputs, rig_map, keys):
        self.inputs, self.rig_map, self.keys = inputs, rig_map.copy(), keys
        moved = [v for (_, v, _), moves in zip(binding.targets, keys) if moves]
        moved = numpy.unique(numpy.concatenate(moved)) if moved else numpy.zeros(0, numpy.int64)
        split_vertices = inputs.split[1]
        self.vertices = numpy.intersect1d(split_vertices, moved).astype(numpy.int64)  # sorted
        entries = numpy.nonzero(numpy.isin(split_vertices, self.vertices))[0]
        at, vertex, terms, first, base = inputs.split_entries(entries)
        vertex = numpy.searchsorted(self.vertices, vertex)  # (the patch's own)
        starts = inputs.offsets[self.vertices].astype(numpy.int64)  # their influences, CSR as the rig's
        counts = inputs.offsets[self.vertices + 1].astype(numpy.int64) - starts
        self.offsets = numpy.zeros(len(self.vertices) + 1, numpy.uint32)
        self.offsets[1:] = numpy.cumsum(counts)
        rows = numpy.repeat(starts - self.offsets[:-1], counts) + numpy.arange(int(self.offsets[-1]))
        self.blend = binding.blend[self.vertices] if binding.blend is not None else None
        self.rig = self.pose = self.dual_pose = None
        # the joints its rig has: those its entries name now, and every segment joint of the
        # B-Bones it splits (the split moves an entry between them), numbered from 0 (`local`):
        # skn's bind and each pose take a matrix a joint, and a body's patch names part of the
        # rig's (311 of a Rigify body's 668; 33 where its key is a corrective)
        bones = numpy.unique(numpy.stack([first, terms[3].astype(numpy.int64)], axis=1), axis=0)
        segments = [numpy.arange(j, j + n + 1) for j, n in bones] or [numpy.zeros(0, numpy.int64)]
        self.joint_set = numpy.union1d(inputs.joints[rows], numpy.concatenate(segments)).astype(numpy.int64)
        local = numpy.full(len(binding.frames), -1, numpy.int64)
        local[self.joint_set] = numpy.arange(len(self.joint_set))
        self.joints = local[inputs.joints[rows]].astype(numpy.uint32)  # (the split's entries: each bind's)
        self.weights = inputs.weights[rows].copy()
        self.bind_matrices = binding.to_rig @ binding.frames[self.joint_set]
        self._places(binding, numpy.searchsorted(rows, at), vertex, terms, local[first], base, keys)

    def _places(self, binding, at, vertex, terms, first, base, keys):
        """Each split entry's place along its B-Bone as f_0 + sum w_t g_t (the class's note), and
        where its two entries sit in the patch's."""
        pre = binding.pre
        axis, origin, length, n = terms
        scale = n / length
        points = rules.morphed(binding.reference[self.vertices], self._offsets(binding, None),
                               numpy.where(keys, 0.0, binding.rig_values))  # (the other keys at the rig's values)
        c = points @ pre[:3, :3].T + pre[:3, 3]
        self.f0 = (numpy.einsum("ij,ij->i", c[vertex], axis) + origin) * scale
        self.slopes = [(t, numpy.einsum("ij,ij->i", (o @ pre[:3, :3].T)[vertex], axis) * scale)
                       for t, o in enumerate(self._offsets(binding, keys)) if o is not None]
        self.at, self.first, self.base, self.n = at, first, base.astype(numpy.float64), n

    def _offsets(self, binding, keys):
        """Each key's offsets on the patch's vertices, (m, 3) float32 (as rules.morph_offsets gives
        a target whole); `keys`: only the moving keys' (None for the others)."""
        out = []
        for t, (_, v, o) in enumerate(binding.targets):
            if keys is not None and not keys[t]:
                out.append(None)
                continue
            whole = numpy.zeros((len(self.vertices), 3), numpy.float32)
            mine = numpy.isin(v, self.vertices)
            whole[numpy.searchsorted(self.vertices, v[mine])] = o[mine]
            out.append(whole)
        return [(None, o) for o in out] if keys is None else out

    def fits(self, inputs, rig_map, keys):
        return inputs is self.inputs and keys == self.keys and numpy.array_equal(rig_map, self.rig_map)

    def worth(self, vertex_count):
        return 0 < len(self.vertices) and 4 * len(self.vertices) <= 3 * vertex_count

    def bind(self, binding, given, values):
        """The patch's rig for the input points `given` (all the mesh's, object space: the keys
        applied at `values`, their values now), its split from their places along their B-Bones
        (bbone_split, by the class's f_0 + sum w_t g_t). Its rest is those points, the keys in it,
        and it has no morph targets: bound again whenever the keys' values change, it is skinned
        only at the values it was bound at (skn's bind of the patch of a Rigify body 1.7 -> 1.2 ms
        without the two keys' targets)."""
        f = self.f0.copy()
        for t, g in self.slopes:
            f += float(values[t]) * g
        numpy.maximum(f, 0.0, out=f)
        numpy.minimum(f, self.n, out=f)
        k = numpy.floor(f)
        numpy.minimum(k, self.n - 1.0, out=k)
        f -= k
        j = self.first + k.astype(numpy.int64)
        self.joints[self.at], self.joints[self.at + 1] = j, j + 1
        self.weights[self.at], self.weights[self.at + 1] = self.base * (1.0 - f), self.base * f
        mine = given[self.vertices]
        pre = binding.pre
        moved = mine if binding.object_space else mine @ pre[:3, :3].T + pre[:3, 3]  # (the rig's space)
        self.rig = skn.Rig(bind_matrices=self.bind_matrices, positions=moved.astype(numpy.float32),
                           offsets=self.offsets, joints=self.joints, weights=self.weights, blend_weights=self.blend)
        self.pose, self.dual_pose = self.rig.pose(), None


class MultiPart:
    """An Armature modifier with Multi Modifier after the bound one: its armature deforms the
    bound modifier's input without the mask, by its own Preserve Volume, and the result before it
    keeps the mask's share, m X_in + (1 - m) Def(X0) (notes §4, MOD_armature.c)."""

    def __init__(self, obj, mod, owner):
        self.name = mod.name
        self.method = "DQS" if mod.use_deform_preserve_volume else "LINEAR"
        self.binding = Binding(obj, part=(mod.object, mod), source=owner.source)
        self.binding.input_points = owner.input_points  # the same input: morphed once a frame, by the owner
        self.keep = self.binding.part_mask  # m a vertex (Binding: it has a group)

    def armature(self, obj, depsgraph=None):
        arm = obj.modifiers[self.name].object
        return arm.evaluated_get(depsgraph) if depsgraph is not None else arm


def skin_object(obj, method="LINEAR", depsgraph=None, binding=None, blend_group=None):
    """World-space positions, (n, 3) float32, of a mesh deformed by its armature as it stands
    (the evaluated objects when a depsgraph is given) — what the Armature modifier computes with
    Preserve Volume off ("LINEAR") or on ("DQS"), with every setting of it skn takes (rules.py),
    or "BLEND" (Linear and Dual Quaternion mixed per vertex by the weights of the vertex group
    `blend_group`: 0 Linear, 1 Dual Quaternion) or "COR". Methods are named in any case ("lbs",
    "dqs" too). Binds on the fly unless a Binding is given; raises Unsupported (a ValueError)
    for a setup skn cannot take over, saying why."""
    key = method_key(method)
    if key == "BLEND" and blend_group is None and binding is None:
        raise ValueError("BLEND mixes Linear and Dual Quaternion per vertex: give blend_group, a vertex group's name")
    binding = binding or Binding(obj, blend_group=blend_group, centers=key == "COR")
    arm, _ = find_armature(obj)
    if depsgraph is not None:  # the objects' matrices as evaluated (the original keeps the shape keys)
        arm = arm.evaluated_get(depsgraph)
    deformed = binding.deform(obj, arm, key, depsgraph=depsgraph)
    return binding.to_world(deformed, obj)
