"""Blender 3.4's Armature modifier, read as skn binds it: which modifier skn
stands in for and what it sees (the rest mesh, shape keys), which bones a
vertex follows and how much (vertex groups of deform bones, bone envelopes,
B-Bone segments), the modifier's mask, and what skn cannot take over yet —
said in Blender's words, so that the user keeps the modifier for it.

The rules are those of ../shared/notes/blender-deform.md (armature_deform.c,
armature.c, MOD_armature.c), each checked against Blender by tests/blender:

  - A vertex's contributions come from its vertex groups named after deform
    bones, in the groups' stored order (DQS's flips depend on it); with the
    bone's "Multiply Vertex Group by Envelope" the weight is scaled by the
    envelope. A vertex with no such group falls back to the envelopes where
    the modifier binds to them; one with groups whose weights are all 0
    stays where it is.
  - The envelope of a bone is 1 inside its radius (head to tail, linearly),
    falls off quadratically over envelope_distance, measured against the
    bone's rest head and tail in armature space.
  - A B-Bone of N segments has N + 1 joints; a weight w on it splits
    w (1 - b) on joint k and w b on joint k + 1 by the vertex's place along
    the bone's rest Y axis.
  - Weights are divided by their sum; a vertex whose sum is 1e-4 or less
    stays where it is. The mask group scales the displacement.
  - Armature modifiers with Multi Modifier directly after the bound one
    (multi_chain) deform its input, unmasked, and mix: each keeps its
    mask's share of the result before it (notes §4).
"""
import json
from itertools import chain

import numpy

ZERO_WEIGHT = 1e-4  # a vertex whose weights sum to this or less stays where it is (Blender's rule)

_flat = chain.from_iterable
_readings = {}  # (armature pointer, Skeleton.signature) -> (stamp, posed joint matrices): posed_joint_matrices


class Unsupported(ValueError):
    """A setup skn cannot take over from the Armature modifier: the message says what, in Blender's
    words, and that the modifier keeps working."""


def matrix(m):
    """A mathutils Matrix as a float64 array, its rows read through one iterator (4x numpy.array's
    speed on one: a frame reads a few)."""
    return numpy.fromiter(chain.from_iterable(m), numpy.float64).reshape(len(m), -1)


def armature_of(obj):
    """The armature that deforms a mesh, and how: its first Armature modifier with an object (the
    modifier), else an armature parent with Armature Deform (None); (None, None) for neither.
    While bound, skn holds the modifier's Object (takeover.suppress): that modifier, by its name, else
    the first Armature modifier without one, is it, with the held armature."""
    skn = getattr(obj, "skn", None)
    held = getattr(skn, "modifier_object", None)
    armatures = [m for m in obj.modifiers if m.type == "ARMATURE"]
    if held is not None:
        mod = next((m for m in armatures if m.name == skn.modifier_name), None) or \
            next((m for m in armatures if m.object is None), None)
        if mod is not None:
            return mod.object or held, mod  # (an Object the user set while bound wins)
    for mod in armatures:
        if mod.object:
            return mod.object, mod
    # while bound, skn turns an Armature Deform parent into a plain one
    if obj.parent and obj.parent.type == "ARMATURE" and (obj.parent_type == "ARMATURE" or
                                                        (skn is not None and skn.parent_deform)):
        return obj.parent, None
    return None, None


class Settings:
    """What the Armature modifier (or an Armature Deform parent's hidden one) is set to do."""

    def __init__(self, obj, mod):
        self.by_parent = mod is None
        if mod is None:  # parent type Armature: groups and envelopes, no Preserve Volume, no mask
            self.groups, self.envelopes, self.mask_group, self.invert = True, True, "", False
            self.preserve_volume, self.multi, self.name = False, False, "Armature Deform"
        else:
            self.groups, self.envelopes = mod.use_vertex_groups, mod.use_bone_envelopes
            self.mask_group, self.invert = mod.vertex_group, mod.invert_vertex_group
            self.preserve_volume, self.multi, self.name = mod.use_deform_preserve_volume, mod.use_multi_modifier, mod.name


def refusals(obj, arm, mod):
    """What in this setup skn cannot take over from the modifier, each as a sentence for the panel
    and Bind's report (empty: it can). The modifier keeps deforming the mesh in each case."""
    why = []
    key = obj.data.shape_keys
    if key is not None and len(key.key_blocks) > 1 and not key.use_relative:
        why.append("its shape keys are not Relative (Shape Keys panel): skn applies relative keys only")
    return why


def modifiers_above(obj, mod):
    """The modifiers above the Armature modifier that are on (viewport or render): it deforms the
    mesh as they leave it (stack.py). None for an Armature Deform parent, whose hidden modifier
    runs before every modifier."""
    if mod is None:
        return []
    mods = list(obj.modifiers)
    return [m for m in mods[:mods.index(mod)] if m.show_viewport or m.show_render]


WEIGHT_WRITERS = ("DATA_TRANSFER", "VERTEX_WEIGHT_PROXIMITY", "VERTEX_WEIGHT_EDIT", "VERTEX_WEIGHT_MIX", "NODES")


def objects_read(modifiers):
    """The objects the modifiers that may write vertex groups read (their Object settings, a
    Geometry Nodes modifier's Object inputs), each once. (A Mirror about an object moves the
    input, which is compared each frame anyway, and leaves the weights as they are.)"""
    out = []
    for m in modifiers:
        if m.type not in WEIGHT_WRITERS:
            continue
        values = [getattr(m, p.identifier) for p in setting_properties(m) if p.type == "POINTER"]
        values += [m[k] for k in m.keys()] if m.type == "NODES" else []
        out += [v for v in values if hasattr(v, "matrix_world") and v not in out]
    return out


def readers_key(obj, modifiers, depsgraph):
    """What the vertex groups the modifiers above give may depend on beyond the mesh and their
    settings, as bytes (b"" where they read no object): the object's place, and each object's they
    read, with its evaluated coordinates (a Data Transfer's source, which an armature may deform;
    a Vertex Weight Proximity's target). The input's coordinates are compared each frame anyway;
    its weights are read only at a bind, so a change here binds again (live._fits)."""
    read = objects_read(modifiers)
    if not read:
        return b""
    key = [matrix(obj.matrix_world).tobytes()]
    for o in read:
        e = o.evaluated_get(depsgraph)
        key.append(matrix(e.matrix_world).tobytes())
        if e.type == "MESH":
            key.append(coordinates(e.data).tobytes())
    return b"".join(key)


def above_refusal(mod, above):
    """Why a binding without an input helper (skin_object's) cannot skin a mesh with modifiers above."""
    first = above[0]
    return (f'the {first.type.replace("_", " ").title()} modifier "{first.name}" comes before "{mod.name}": '
            f'skn evaluates the modifiers above through Bind (skn panel), and takes the mesh as it is '
            f'before any modifier otherwise')


NOT_SETTINGS = ("name", "is_active", "show_expanded", "is_override_data_editable")  # the panel's, not the result's


def render_note(above):
    """What a render of a mesh with these modifiers above would do differently from the viewport:
    skn skins the input as the viewport evaluates it ("" where the two are the same as far as the
    modifiers' own settings say: each on in both, Subdivision's and Multiresolution's levels)."""
    for m in above:
        if m.show_viewport != m.show_render:
            why = f'is on in {"the viewport" if m.show_viewport else "renders"} only'
        elif m.type in ("SUBSURF", "MULTIRES") and m.levels != m.render_levels:
            why = f"has {m.levels} levels in the viewport and {m.render_levels} in renders"
        else:
            continue
        return (f'renders take the modifiers above as the viewport evaluates them, and "{m.name}" {why}: '
                f'set it alike to render as the Armature modifier would')
    return ""


def setting_properties(m):
    """A modifier's settings: its writable properties but the panel's (NOT_SETTINGS)."""
    return [p for p in m.bl_rna.properties if not p.is_readonly and p.identifier not in NOT_SETTINGS]


def modifier_settings(m):
    """A modifier's settings as a tuple of (property, value) pairs: equal tuples, equal results
    (stack.py keeps its copies in step by them)."""
    out = []
    for p in setting_properties(m):
        v = getattr(m, p.identifier)
        out.append((p.identifier, tuple(v) if p.type in ("FLOAT", "INT", "BOOLEAN") and getattr(p, "is_array", False)
                    else v.name if p.type == "POINTER" and v is not None and hasattr(v, "name") else
                    None if p.type == "POINTER" else v))
    inputs = tuple((k, repr(m[k])) for k in m.keys()) if m.type == "NODES" else ()  # its inputs (ID properties)
    return (m.type, tuple(out), inputs)


class Evaluated:
    """An object's evaluated input as the readers below take an object: its mesh (`data`) and
    the object's vertex group names (stored on the mesh: Mirror's flipped groups are among them)."""

    def __init__(self, obj, mesh):
        self.data, self.vertex_groups, self.name = mesh, obj.vertex_groups, obj.name


MULTI_SAVED = "multi_saved"  # obj.skn's JSON {modifier name: [viewport, render]} for the chain skn switched off


def modifier_on(obj, m):
    """Whether the user has modifier `m` on (viewport or render): as they left it before skn
    switched it off, for a Multi modifier skn stands in for while bound (takeover.suppress)."""
    saved = getattr(getattr(obj, "skn", None), MULTI_SAVED, "")
    states = json.loads(saved) if saved else {}
    return any(states[m.name]) if m.name in states else (m.show_viewport or m.show_render)


def multi_chain(obj, mod):
    """The Armature modifiers with Multi Modifier directly after `mod`, which Blender hands the
    input `mod` received (MOD_previous_vcos_store): those on and with an armature, in stack
    order. skn stands in for them with `mod`, and switches them off with it: one without a mask
    group keeps the result before it whole (notes §4), but left on without `mod`'s input it
    would deform the mesh as a plain modifier."""
    if mod is None:
        return []
    mods = list(obj.modifiers)
    out = []
    for after in mods[mods.index(mod) + 1:]:
        if after.type == "NODES" and after.node_group is not None and "skn" in after.node_group:
            continue  # skn's own modifier, in the slot of the one it stands in for (takeover.add_transport)
        if after.type != "ARMATURE" or not after.use_multi_modifier:
            break
        if modifier_on(obj, after) and after.object is not None and after.object.type == "ARMATURE":
            out.append(after)
    return out


# ---- the mesh as the modifier sees it: rest coordinates, shape keys ----

def coordinates(mesh):
    """A mesh's vertex coordinates, (n, 3) float32."""
    co = numpy.empty(len(mesh.vertices) * 3, numpy.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def reference_coordinates(mesh):
    """The coordinates shape keys are added to: the reference key's, else the vertices'."""
    key = mesh.shape_keys
    if key is None or key.reference_key is None or len(key.key_blocks) < 2:
        return coordinates(mesh)
    co = numpy.empty(len(mesh.vertices) * 3, numpy.float32)
    key.reference_key.data.foreach_get("co", co)
    return co.reshape(-1, 3)


def group_weights(obj, name):
    """The weights of vertex group `name` (0 where a vertex is not in it), (n,) float32."""
    n = len(obj.data.vertices)
    out = numpy.zeros(n, numpy.float32)
    group = obj.vertex_groups.get(name)
    if group is None:
        return out
    gi = group.index
    for v in obj.data.vertices:
        for g in v.groups:
            if g.group == gi:
                out[v.index] = g.weight
                break
    return out


def shape_keys(obj):
    """Relative shape keys as sparse skn morph targets, one per key block but the reference:
    [(name, vertices (m,) uint32, offsets (m, 3) float32)], each the key's coordinates less its
    Relative To key's, times its vertex group, on the vertices where that is not 0 (Blender's key
    evaluation: reference + sum of value (key - relative key) group weight)."""
    mesh = obj.data
    key = mesh.shape_keys
    if key is None or len(key.key_blocks) < 2:
        return []
    n = len(mesh.vertices)
    coords = {}

    def co(block):
        if block.name not in coords:
            a = numpy.empty(n * 3, numpy.float32)
            block.data.foreach_get("co", a)
            coords[block.name] = a.reshape(-1, 3)
        return coords[block.name]

    targets = []
    for block in key.key_blocks:
        if block == key.reference_key:
            continue
        relative = block.relative_key if block.relative_key is not None else key.reference_key
        offsets = co(block) - co(relative)
        if block.vertex_group:
            offsets = offsets * group_weights(obj, block.vertex_group)[:, None]
        vertices = numpy.nonzero(numpy.any(offsets != 0, axis=1))[0].astype(numpy.uint32)
        targets.append((block.name, vertices, offsets[vertices].astype(numpy.float32)))
    return targets


def morph_offsets(targets, n):
    """shape_keys' targets as morphed adds them: a target that moves a quarter of the n vertices or
    more as (None, its offsets on every vertex), added whole; the others as (vertices, offsets).
    Added through its indices every frame, each of make bench-blender's two tube keys (95% of the
    vertices) took about 1 ms a frame at 50,000 vertices; whole, about 0.1 ms."""
    out = []
    for _, vertices, offsets in targets:
        if 4 * len(vertices) >= n:
            whole = numpy.zeros((n, 3), numpy.float32)
            whole[vertices] = offsets
            out.append((None, whole))
        else:
            out.append((vertices, offsets))
    return out


def morphed(reference, offsets, values):
    """The coordinates the modifier receives: the reference plus each target times its value
    (`offsets`: morph_offsets of the targets)."""
    out = numpy.array(reference, numpy.float32)
    for (vertices, o), value in zip(offsets, values):
        if value == 0.0:
            continue
        if vertices is None:
            out += numpy.float32(value) * o
        elif len(vertices):
            out[vertices] += numpy.float32(value) * o
    return out


def shape_key_values(obj, key=None):
    """Each morph target's weight now, in shape_keys' order: the key's value, 0 where muted; with
    the object's Shape Key Lock, the active key alone at 1. `key`: the evaluated Key, if any (a
    core.Seen object brings its depsgraph's)."""
    key = key or getattr(obj, "seen_key", None) or obj.data.shape_keys
    if key is None or len(key.key_blocks) < 2:
        return numpy.zeros(0, numpy.float32)
    blocks = [b for b in key.key_blocks if b.name != key.reference_key.name]
    if obj.show_only_shape_key:
        active = obj.active_shape_key.name if obj.active_shape_key else ""
        return numpy.array([1.0 if b.name == active else 0.0 for b in blocks], numpy.float32)
    return numpy.array([0.0 if b.mute else b.value for b in blocks], numpy.float32)


# ---- bones: joints, envelopes, B-Bone segments ----

class Skeleton:
    """The armature's deform bones as skn joints: a bone of N > 1 segments takes N + 1 joints.
    `joint_of[bone name]` is its first joint; `segments[name]` its segment count."""

    def __init__(self, arm):
        self.bones = [b for b in arm.data.bones if b.use_deform]
        self.joint_of, self.segments = {}, {}
        count = 0
        for b in self.bones:
            n = b.bbone_segments if b.bbone_segments > 1 else 1
            self.joint_of[b.name], self.segments[b.name] = count, n
            count += n + 1 if n > 1 else 1
        self.joint_count = count
        self.rest = {b.name: matrix(b.matrix_local) for b in self.bones}
        self.first = numpy.array([self.joint_of[b.name] for b in self.bones], numpy.int64)
        self.count = numpy.array([self.segments[b.name] for b in self.bones], numpy.int64)
        self.straight = self.count == 1
        self.signature = (tuple(b.name for b in self.bones), tuple(self.count.tolist()))  # (posed_joint_matrices)
        # the B-Bones, and each of their segments' joint and bone: posed_joint_matrices' gather
        self.curved = numpy.nonzero(~self.straight)[0]
        self.curved_segments = [int(self.count[i]) for i in self.curved]
        self.segment_joints = numpy.concatenate([numpy.arange(self.first[i], self.first[i] + self.count[i] + 1)
                                                 for i in self.curved] or [numpy.zeros(0, numpy.int64)])
        self.segment_owner = numpy.repeat(self.curved, self.count[self.curved] + 1)
        self.channel, self.channel_count = None, 0  # each bone's index among the pose channels
        # each B-Bone's handles (names: a handle may be a bone that does not deform), for the
        # segments kept between readings (_segments_posed): Blender's own choice (notes §3), or for
        # an AUTO end every connected child
        self.handles = [_handle_names(self.bones[i]) for i in self.curved]
        # B-Bones that take their handles' scale or ease (the handle flags): read every time (what
        # Blender reads of a handle there is not its pose in the B-Bone's frame alone)
        self.scales_handles = numpy.array([any(b.bbone_handle_use_scale_start) or any(b.bbone_handle_use_scale_end) or
                                           b.bbone_handle_use_ease_start or b.bbone_handle_use_ease_end
                                           for b in (self.bones[i] for i in self.curved)], bool)
        self._kept = None  # _segments_posed's: the segments last read, and what each B-Bone's were read at
        self.segments_read = 0  # the B-Bones the last reading read the segments of (the rest were kept)
        # for bbone_split, by bone: row 1 (rest Y) of matrix_local's inverse, and the length
        self.rest_y = numpy.array([numpy.linalg.inv(self.rest[b.name])[1] for b in self.bones]).reshape(-1, 4)
        self.length = numpy.array([b.length for b in self.bones], numpy.float64)

    def rest_joint_matrices(self, arm):
        """Each joint's rest frame in armature space: a bone's matrix_local, or, for a B-Bone's
        joint k, matrix_local times the segment's rest matrix (PoseBone.bbone_segment_matrix)."""
        out = numpy.empty((self.joint_count, 4, 4))
        for b in self.bones:
            j, n = self.joint_of[b.name], self.segments[b.name]
            a = self.rest[b.name]
            if n == 1:
                out[j] = a
            else:
                pb = arm.pose.bones[b.name]
                for k in range(n + 1):
                    out[j + k] = a @ matrix(pb.bbone_segment_matrix(k, rest=True))
        return out

    def posed_joint_matrices(self, arm, stamp=None):
        """Each joint's posed frame in armature space: PoseBone.matrix (read in bulk), or times the
        segment's posed matrix. With the rest frames, posed rest^-1 is Blender's deform matrix D_k.
        `stamp`: a count the caller changes whenever a pose may have changed (the add-on's: each
        update and frame). Skeletons of one armature asked with the same stamp share one reading,
        read-only: a character's meshes, each bound, read a Rigify rig's 560 segments once. A
        collapsed B-Bone's segments (_read_posed) keep Blender's last row of 0, which the posed
        frames' products carry: affine(), before skn takes them."""
        if stamp is None:
            return self._read_posed(arm)
        key = (arm.as_pointer(), self.signature)
        seen = _readings.get(key)
        if seen is None or seen[0] != stamp:
            seen = _readings[key] = (stamp, self._read_posed(arm))
            seen[1].flags.writeable = False
        return seen[1]

    def _read_posed(self, arm):
        """posed_joint_matrices, read from Blender now (a B-Bone's segments where they moved:
        _segments_posed)."""
        channels = arm.pose.bones
        count = len(channels)  # (a walk of the channels each time: a Rigify rig's 706 take 7 us)
        if self.channel is None or count != self.channel_count:
            self._index_channels(channels)
        flat = numpy.empty(count * 16, numpy.float32)
        channels.foreach_get("matrix", flat)
        every = flat.reshape(-1, 4, 4).transpose(0, 2, 1).astype(numpy.float64)  # stored by column
        pose = every[self.channel]
        out = numpy.empty((self.joint_count, 4, 4))
        out[self.first[self.straight]] = pose[self.straight]
        if len(self.curved):  # the segments' matrices, then multiplied at once
            out[self.segment_joints] = pose[self.segment_owner] @ self._segments_posed(channels, every, count)
        return out

    def _segments_posed(self, channels, every, count):
        """Each B-Bone segment's posed matrix in its bone's frame (PoseBone.bbone_segment_matrix),
        (segments, 4, 4), every channel's pose matrix `every` given. A B-Bone's segments are read
        again only where what Blender makes them of moved since they were read (_moved): its
        handles' pose in its own frame, its frame's scale, its and its handles' B-Bone settings
        (notes §3), none of which a move of the whole chain changes (a body's face and hands while
        the body turns). A read is a call a segment: a Rigify body's 560 took 1.4 ms a frame inside
        the evaluation (ad hoc)."""
        reading = self._reading(channels, every, count)
        top, then = self._kept or (numpy.empty((len(self.segment_owner), 3, 4)), None)
        moved = self._moved(then, reading)
        picked = numpy.nonzero(moved)[0]
        if len(picked):
            segments = []
            for i in picked:
                bone = channels[self.curved_channels[i]]
                segments += map(bone.bbone_segment_matrix, range(self.curved_segments[i] + 1))  # (rest=False)
            # their top three rows, each a tuple (a segment's matrix is affine: its last row 0, 0, 0, 1),
            # read into one array: 1.7x reading every row's values through iterators, 10x numpy.array
            rows = numpy.fromiter(_flat(m[0][:] + m[1][:] + m[2][:] for m in segments), numpy.float64,
                                  12 * len(segments))
            top[numpy.concatenate([self.segment_rows[i] for i in picked])] = rows.reshape(-1, 3, 4)
            self._kept = (top, self._keep(then, reading, moved))
        self.segments_read = len(picked)
        flat = numpy.empty((len(top), 4, 4))
        flat[:, :3] = top
        flat[:, 3] = (0.0, 0.0, 0.0, 1.0)
        # a B-Bone posed singular (scaled to 0 along an axis, or under a parent that is) has
        # every segment matrix the zero 4x4, its last row too: Blender's spline takes the pose's
        # scale out and back through an inverse, and invert_m4_m4 gives the zero matrix where
        # none exists. The modifier then moves the bone's points to the armature's origin.
        flat[~top.reshape(-1, 12).any(axis=1), 3, 3] = 0.0
        return flat

    def _reading(self, channels, every, count):
        """What each B-Bone's segments are made of now (_segments_posed): its frame's column
        lengths, each handle's pose in its frame, and the B-Bone settings of the pose, its own and
        its handles' (a start handle's roll out, with Inherit End Roll). None, where a frame has no
        inverse (an axis scaled to 0): the segments are read."""
        own = every[self.curved_channel_array]
        scale = numpy.sqrt(numpy.square(own[:, :3, :3]).sum(axis=1))
        try:
            relative = numpy.linalg.inv(own)[self.pair_owner] @ every[self.pair_channel]
        except numpy.linalg.LinAlgError:
            return None
        settings = numpy.empty((count, POSE_BBONE_WIDTH), numpy.float32)
        at = 0
        for prop, width in POSE_BBONE_FLOATS:
            a = numpy.empty(count * width, numpy.float32)
            channels.foreach_get(prop, a)
            settings[:, at:at + width] = a.reshape(-1, width)
            at += width
        return scale, relative, settings[self.curved_channel_array], settings[self.pair_channel]

    def _moved(self, then, now):
        """Each B-Bone whose reading `now` is not `then`'s, what its segments were read at: its
        frame's scale and its handles' places in it beyond float rounding (10^-6 of them), a setting
        at all; and every B-Bone that takes its handles' scale or ease."""
        if then is None or now is None:
            return numpy.ones(len(self.curved), bool)
        scale, relative, own, theirs = now
        moved = (numpy.abs(scale - then[0]) > 1e-6 * then[0]).any(axis=1) | (own != then[2]).any(axis=1) | \
            self.scales_handles
        pair = (numpy.abs(relative - then[1]) > 1e-6 * (1.0 + numpy.abs(then[1]))).any(axis=(1, 2)) | \
            (theirs != then[3]).any(axis=1)
        moved[self.pair_owner[pair]] = True
        return moved

    def _keep(self, then, now, moved):
        """The reading the kept segments were read at: `now`'s for the B-Bones read again (`moved`),
        `then`'s for the others (so that moves below the tolerance do not add up unread)."""
        if now is None:
            return None
        if then is None or moved.all():
            return now
        pairs = moved[self.pair_owner]
        out = tuple(a.copy() for a in then)
        for a, b, rows in zip(out, now, (moved, pairs, moved, pairs)):
            a[rows] = b[rows]
        return out

    def _index_channels(self, channels):
        """Each bone's pose channel (the B-Bones' and their handles' too), worked out where the
        channels change (the segments kept are read again)."""
        index = {pb.name: i for i, pb in enumerate(channels)}
        self.channel, self.channel_count = numpy.array([index[b.name] for b in self.bones]), len(channels)
        self.curved_channels = [int(self.channel[i]) for i in self.curved]
        self.curved_channel_array = numpy.array(self.curved_channels, numpy.int64)
        pairs = [(i, index[h]) for i, names in enumerate(self.handles) for h in names if h in index]
        self.pair_owner = numpy.array([i for i, _ in pairs], numpy.int64)
        self.pair_channel = numpy.array([c for _, c in pairs], numpy.int64)
        starts = numpy.concatenate([[0], numpy.cumsum(numpy.array(self.curved_segments) + 1)])
        self.segment_rows = [numpy.arange(starts[i], starts[i + 1]) for i in range(len(self.curved))]
        self._kept = None


# The B-Bone settings of a pose bone (Blender adds them to its bone's), by width: what the
# segments are made of besides the bones' places (Skeleton._reading)
POSE_BBONE_FLOATS = (("bbone_curveinx", 1), ("bbone_curveinz", 1), ("bbone_curveoutx", 1), ("bbone_curveoutz", 1),
                     ("bbone_rollin", 1), ("bbone_rollout", 1), ("bbone_easein", 1), ("bbone_easeout", 1),
                     ("bbone_scalein", 3), ("bbone_scaleout", 3))
POSE_BBONE_WIDTH = sum(width for _, width in POSE_BBONE_FLOATS)


def _handle_names(bone):
    """The bones whose pose a B-Bone's segments follow (notes §3): its start handle (AUTO: the
    parent where connected to it; otherwise the custom handle) and its end handle (AUTO: the
    children connected to it, Blender's being the last of them; otherwise the custom one). A change
    of handle type, custom handle or connection changes the binding's outline (core.bones_outline):
    bound again."""
    if bone.bbone_handle_type_start == "AUTO":
        start = [bone.parent] if bone.use_connect else []
    else:
        start = [bone.bbone_custom_handle_start]
    end = [c for c in bone.children if c.use_connect] if bone.bbone_handle_type_end == "AUTO" else \
        [bone.bbone_custom_handle_end]
    return sorted({b.name for b in start + end if b is not None})


# ---- Preserve Volume: what Blender's dual quaternion of a joint does to a point ----

def preserve_volume_matrices(deform, base, base_inverse):
    """Each joint's transform as Blender's Preserve Volume applies it to a point weighted to that
    joint alone, (n, 4, 4) from its deform matrices D (n, 4, 4), armature space, and base, the
    rest frame Blender splits by (a bone's matrix_local; a B-Bone segment's with unit columns), and
    base's inverse (notes §2, mat4_to_dquat). Unscaled (D's columns orthonormal to 1e-5, det D >=
    0, and (D base)'s columns unit to 1e-4): D's rotation through its quaternion, D's translation.
    Scaled: B = (D base) orthonormalised keeping Y, its translation (D base)'s; the rigid part R =
    B base^-1 through its quaternion, R's translation, after S = base B^-1 (D base) base^-1. Where
    D or base is not quite orthonormal (a Rigify rig's rest matrices are off by 1.5e-5) the
    quaternion drops what is not rotation, and Blender's Preserve Volume moves a point weighted to
    one bone by that much off D's (4.5e-5 on a Rigify horse's ear; 1.2e-5 of its size): skn's split
    of D (skn_dqs_scale) is exact, so the add-on poses Preserve Volume by these. An unscaled D
    orthonormal to float rounding (2e-7) is its own quaternion's matrix and is kept as it is (a
    plain rig's every joint: no quaternion made)."""
    a = deform[:, :3, :3]
    off = numpy.abs(a.transpose(0, 2, 1) @ a - numpy.eye(3)).max(axis=(1, 2))  # the columns' dot products
    det = (a[:, :, 0] * numpy.cross(a[:, :, 1], a[:, :, 2])).sum(axis=1)
    dscale = numpy.sqrt(numpy.square(a @ base[:, :3, :3]).sum(axis=1)) - 1.0
    scaled = (off > 1e-5) | (det < 0) | (numpy.square(dscale).sum(axis=1) > 1e-8)
    rounded = ~scaled & (off <= 2e-7)
    if rounded.all():
        return deform
    out = deform.copy()
    pick = numpy.nonzero(~rounded)[0]
    rigid, shear = deform[pick], None
    big = scaled[pick]
    if big.any():
        both = deform[pick[big]] @ base[pick[big]]
        kept = numpy.zeros_like(both)  # B: a rotation, or Blender's quaternion of zero columns (_keep_y)
        kept[:, :3, :3], kept[:, :3, 3], kept[:, 3, 3] = _keep_y(both[:, :3, :3]), both[:, :3, 3], 1.0
        flat = ~kept[:, :3, :3].any(axis=1).all(axis=1)
        if flat.any():
            kept[flat, :3, :3] = quaternion_matrices(blender_quaternions(kept[flat, :3, :3]))
        rigid[big] = kept @ base_inverse[pick[big]]
        # B^-1 (D base), w its last row's (0 only for a collapsed B-Bone's segment, Skeleton._read_posed)
        w = both[:, 3, 3]
        unkept = numpy.zeros_like(both)
        rt = kept[:, :3, :3].transpose(0, 2, 1)
        unkept[:, :3, :3], unkept[:, 3, 3] = rt @ both[:, :3, :3], w
        unkept[:, :3, 3] = (rt @ both[:, :3, 3, None])[:, :, 0] * (1.0 - w)[:, None]
        shear = base[pick[big]] @ unkept @ base_inverse[pick[big]]
        shear[:, 3] = (0.0, 0.0, 0.0, 1.0)  # S p as a point again (mul_m4_v3, then the rigid part)
    e = numpy.zeros_like(rigid)
    e[:, :3, :3] = quaternion_matrices(blender_quaternions(rigid[:, :3, :3]))
    e[:, :3, 3], e[:, 3, 3] = rigid[:, :3, 3], 1.0
    if shear is not None:
        e[big] = e[big] @ shear
    out[pick] = e
    return out


def _keep_y(m):
    """Rotations from 3x3s (n, 3, 3): Y the column's direction, X in the plane of X and Y (Blender's
    orthogonalize_m4(m, 1)). A joint scaled to 0 along an axis has no such plane: a zero vector
    normalised stays zero (Blender's normalize_v3), leaving zero columns, and Blender goes on with
    that matrix's quaternion (blender_quaternions), a rotation."""
    y = _unit(m[:, :, 1])
    z = _unit(numpy.cross(m[:, :, 0], m[:, :, 1]))
    return numpy.stack([numpy.cross(y, z), y, z], axis=2)


def _unit(v):
    """Rows of v (n, 3) normalised, those of length 0 (to Blender's 1e-35 on the square) left 0."""
    square = numpy.square(v).sum(axis=1)
    return v / numpy.sqrt(numpy.where(square > 1e-35, square, numpy.inf))[:, None]


def affine(m):
    """(n, 4, 4) matrices with their last row 0, 0, 0, 1, as skn takes them: a collapsed B-Bone's
    segments (Skeleton._read_posed) have 0 there, and only their top three rows move a point."""
    m[:, 3] = (0.0, 0.0, 0.0, 1.0)
    return m


def _branch_forms():
    """Mike Day's four branches (x, y, z, w the largest) as affine forms of a 3x3's nine entries
    (row-major): rows 4 b + i give branch b's numerator i of (w, x, y, z), column 9 the constant.
    Blender's mat[c][r] is u[r, c]; d_k, p_k the differences and sums of the off-diagonal pairs
    its formulas read (mat3_normalized_to_quat)."""
    at = {f"m{r}{c}": 3 * r + c for r in range(3) for c in range(3)}
    d = [((1, "m21"), (-1, "m12")), ((1, "m02"), (-1, "m20")), ((1, "m10"), (-1, "m01"))]
    p = [((1, "m21"), (1, "m12")), ((1, "m02"), (1, "m20")), ((1, "m10"), (1, "m01"))]

    def diagonal(sx, sy, sz):
        return (1, "1"), (sx, "m00"), (sy, "m11"), (sz, "m22")
    branches = [[d[0], diagonal(1, -1, -1), p[2], p[1]], [d[1], p[2], diagonal(-1, 1, -1), p[0]],
                [d[2], p[1], p[0], diagonal(-1, -1, 1)], [diagonal(1, 1, 1), d[0], d[1], d[2]]]
    forms = numpy.zeros((16, 10))
    for row, terms in enumerate(t for branch in branches for t in branch):
        for sign, name in terms:
            forms[row, 9 if name == "1" else at[name]] += sign
    return forms


_BRANCH_FORMS = _branch_forms()


def blender_quaternions(m):
    """(w, x, y, z) of 3x3s (n, 3, 3) as Blender's mat3_to_quat takes them: the columns normalised,
    then Mike Day's choice of the largest of 4w², 4x², 4y², 4z² from the diagonal, w >= 0
    (https://math.stackexchange.com/a/3183435), normalised. Of a matrix not quite orthonormal the
    choice decides what of it is dropped, so it is Blender's, branch for branch. Each branch's
    quaternion is its four numerators over s = 2 sqrt(trace) (the chosen component's numerator
    trace itself): normalised, only the sign of s is left of it (the x, y and z branches' s has
    the sign of their w numerator). Every branch's numerators come from one product with their
    forms (_branch_forms): a frame's few dozen joints cost numpy's calls, not its arithmetic."""
    n = len(m)
    norms = numpy.linalg.norm(m, axis=1)
    u = m / numpy.where(norms > 0, norms, 1.0)[:, None, :]  # (a zero column stays zero, as Blender's)
    every = (u.reshape(n, 9) @ _BRANCH_FORMS[:, :9].T + _BRANCH_FORMS[:, 9]).reshape(n, 4, 4)
    m00, m11, m22 = u[:, 0, 0], u[:, 1, 1], u[:, 2, 2]
    which = numpy.where(m22 < 0, numpy.where(m00 > m11, 0, 1), numpy.where(m00 < -m11, 2, 3))
    q = every[numpy.arange(n), which]
    q *= numpy.where((which < 3) & (q[:, 0] < 0), -1.0, 1.0)[:, None]
    length = numpy.linalg.norm(q, axis=1)
    q[length == 0] = (1.0, 0.0, 0.0, 0.0)  # (a zero matrix: no rotation)
    return q / numpy.where(length > 0, length, 1.0)[:, None]


def _rotation_forms():
    """A unit quaternion's rotation matrix (row-major) as forms of its products q_i q_j (rows 4 i + j),
    besides the identity: R = I + 2 [-(y² + z²), xy - wz, xz + wy; xy + wz, ...]."""
    w, x, y, z = range(4)
    entries = [[(-1, y, y), (-1, z, z)], [(1, x, y), (-1, w, z)], [(1, x, z), (1, w, y)],
               [(1, x, y), (1, w, z)], [(-1, x, x), (-1, z, z)], [(1, y, z), (-1, w, x)],
               [(1, x, z), (-1, w, y)], [(1, y, z), (1, w, x)], [(-1, x, x), (-1, y, y)]]
    forms = numpy.zeros((16, 9))
    for entry, terms in enumerate(entries):
        for sign, i, j in terms:
            forms[4 * i + j, entry] += 2 * sign
    return forms


_ROTATION_FORMS = _rotation_forms()


def quaternion_matrices(q):
    """Rotation matrices (n, 3, 3) of unit quaternions (w, x, y, z)."""
    products = (q[:, :, None] * q[:, None, :]).reshape(len(q), 16)
    return (products @ _ROTATION_FORMS + numpy.eye(3).ravel()).reshape(-1, 3, 3)


def envelope(bone, c):
    """Blender's envelope factor of `bone` at armature-space points c (m, 3): 1 within the radius,
    1 - ((d - r) / distance)^2 over the falloff, 0 beyond (distfactor_to_bone)."""
    h, t = numpy.array(bone.head_local, numpy.float64), numpy.array(bone.tail_local, numpy.float64)
    axis = t - h
    length = float(numpy.linalg.norm(axis))
    u = axis / length if length > 0 else numpy.array([0.0, 1.0, 0.0])
    d = c - h
    a = d @ u
    s2 = numpy.where(a < 0, (d * d).sum(axis=1),
                     numpy.where(a > length, ((c - t) ** 2).sum(axis=1), (d * d).sum(axis=1) - a * a))
    r = numpy.where(a < 0, bone.head_radius,
                    numpy.where(a > length, bone.tail_radius,
                                bone.head_radius + (a / length if length > 0 else 0) * (bone.tail_radius - bone.head_radius)))
    dist = bone.envelope_distance
    out = numpy.zeros(len(c))
    inside = s2 < r * r
    out[inside] = 1.0
    if dist > 0:
        fall = (~inside) & (s2 < (r + dist) ** 2)
        out[fall] = 1.0 - (numpy.sqrt(s2[fall]) - r[fall]) ** 2 / (dist * dist)
    return out


def bbone_split(skeleton, bone, c):
    """For points c (m, 3) weighted to B-Bones bone (m,) (indices into skeleton.bones): the first
    segment joint k (m,) of each and the share b (m,) of joint k + 1, by the point's rest Y along
    its bone (b_bone_deform); all the entries at once."""
    return split_by(split_terms(skeleton, bone), c)


def split_terms(skeleton, bone):
    """What bbone_split reads of each entry's bone, gathered once for entries split again and
    again (Contributions.refreshed): row 1 of its rest frame's inverse, its length, its segments."""
    return skeleton.rest_y[bone, :3], skeleton.rest_y[bone, 3], skeleton.length[bone], \
        skeleton.count[bone].astype(numpy.float64)


def split_by(terms, c):
    """bbone_split with its terms gathered: f = clamp(y / length, 0, 1) n, k = min(floor f, n - 1),
    b = f - k (in [0, 1] so: f lies in [0, n])."""
    axis, origin, length, n = terms
    f = numpy.einsum("ij,ij->i", c, axis)
    f += origin
    f /= length
    numpy.maximum(f, 0.0, out=f)
    numpy.minimum(f, 1.0, out=f)
    f *= n
    k = numpy.floor(f)
    numpy.minimum(k, n - 1.0, out=k)
    f -= k
    return k.astype(numpy.int64), f


# ---- a vertex's contributions ----

def vertex_groups(obj, skeleton):
    """Per vertex, its groups of deform bones in stored order, CSR: (offsets (n + 1,) int64, bone
    (entries,) indices into skeleton.bones, weights (entries,) float64). Entries of weight 0 are
    kept: they make the vertex bound. (Blender 3.4 has no bulk read of vertex groups.)"""
    index = {b.name: i for i, b in enumerate(skeleton.bones)}
    bone_of = {g.index: index[g.name] for g in obj.vertex_groups if g.name in index}
    counts, bones, weights = [], [], []
    for v in obj.data.vertices:
        mine = [(bone_of[g.group], g.weight) for g in v.groups if g.group in bone_of]
        counts.append(len(mine))
        for b, w in mine:
            bones.append(b)
            weights.append(w)
    offsets = numpy.zeros(len(counts) + 1, numpy.int64)
    numpy.cumsum(counts, out=offsets[1:])
    return offsets, numpy.array(bones, numpy.int64), numpy.array(weights, numpy.float64)


class Contributions:
    """The influences skn binds, by Blender's rules, for armature-space input points c (n, 3):
    CSR `offsets` (n + 1,) uint32, `joints` uint32 and `weights` float32 in Blender's order (a
    vertex's stored groups, then the envelopes by bone, a B-Bone's segment k before k + 1); a
    vertex whose weights sum to 1e-4 or less has none and stays where it is. `uses_input`: whether
    they depend on where the points are (envelopes, Multiply by Envelope, B-Bone segments), so that
    moving the points (shape keys, the armature moving against the mesh) needs them again. Where
    only B-Bone segments depend on them, refreshed(c) gives the influences for other points from
    the same structure (a B-Bone entry's two segment entries are kept even at weight 0, which skn's
    bind drops as if they were left out), without building them again."""

    def __init__(self, skeleton, settings, c, groups=None):
        n = len(c)
        vertex, order, bone, weight = [], [], [], []
        bound = numpy.zeros(n, bool)
        self.uses_input = False
        self.skeleton, self.split = skeleton, None
        only_segments = True  # no envelope: what depends on the points is the B-Bone split alone
        entries = 0
        if settings.groups and groups is not None and len(groups[1]):
            offsets, g_bone, g_weight = groups
            v = numpy.repeat(numpy.arange(n), numpy.diff(offsets))
            bound[v] = True
            w = g_weight.copy()
            for b in numpy.unique(g_bone):
                if skeleton.bones[b].use_envelope_multiply:
                    e = g_bone == b
                    w[e] *= envelope(skeleton.bones[b], c[v[e]])
                    self.uses_input, only_segments = True, False
            keep = w != 0.0
            entries = len(w)
            vertex.append(v[keep]), order.append(numpy.nonzero(keep)[0]), bone.append(g_bone[keep]), weight.append(w[keep])
        if settings.envelopes:  # vertices that no deform group names: the envelopes, in bone order
            loose = numpy.nonzero(~bound)[0]
            self.uses_input |= len(loose) > 0  # a point that moves may enter or leave an envelope
            only_segments &= not len(loose)
            for rank, b in enumerate(skeleton.bones):
                if not len(loose):
                    break
                f = envelope(b, c[loose])
                hit = f > 0
                if hit.any():
                    self.uses_input = True
                    m = int(hit.sum())
                    vertex.append(loose[hit]), order.append(numpy.full(m, entries + rank))
                    bone.append(numpy.full(m, rank)), weight.append(f[hit] * b.envelope_weight)
        cat = (lambda parts, dtype: numpy.concatenate(parts).astype(dtype) if parts else numpy.zeros(0, dtype))
        vertex, order, bone, weight = cat(vertex, numpy.int64), cat(order, numpy.int64), cat(bone, numpy.int64), \
            cat(weight, numpy.float64)
        vertex, order, joint, weight, sub, base, split_bone = self._segments(skeleton, c, vertex, order, bone, weight)
        total = numpy.bincount(vertex, weight, n)
        keep = total[vertex] > ZERO_WEIGHT
        vertex, order, joint, weight, sub = vertex[keep], order[keep], joint[keep], weight[keep], sub[keep]
        base, split_bone = base[keep], split_bone[keep]
        sort = numpy.lexsort((sub, order, vertex))
        self.offsets = numpy.zeros(n + 1, numpy.uint32)
        numpy.cumsum(numpy.bincount(vertex, minlength=n), out=self.offsets[1:])
        self.joints = joint[sort].astype(numpy.uint32)
        self.weights = weight[sort].astype(numpy.float32)
        if only_segments and self.uses_input:  # where each segment entry sits, for refreshed()
            sub, base, split_bone, vertex = sub[sort], base[sort], split_bone[sort], vertex[sort]
            first = numpy.nonzero((split_bone >= 0) & (sub == 0))[0]  # its k + 1 entry follows it
            bone = split_bone[first]
            self.split = (first, vertex[first], split_terms(skeleton, bone), skeleton.first[bone], base[first])

    def refreshed(self, c):
        """(joints, weights) for points c where only the B-Bone split moved (self.split), else None:
        this structure's own arrays, the split written into them (a bind copies what it is given)."""
        if self.split is None:
            return None
        at, vertex, terms, first, base = self.split
        k, share = split_by(terms, numpy.take(c, vertex, axis=0))  # (3x c[vertex]'s speed)
        k += first
        self.joints[at] = k
        self.joints[at + 1] = k + 1
        self.weights[at] = base * (1.0 - share)
        self.weights[at + 1] = base * share
        return self.joints, self.weights

    def split_entries(self, entries):
        """self.split's entries `entries` (indices into it), for refreshed."""
        at, vertex, terms, first, base = self.split
        return at[entries], vertex[entries], tuple(t[entries] for t in terms), first[entries], base[entries]

    def _segments(self, skeleton, c, vertex, order, bone, weight):
        """Each entry on a B-Bone split between its segment joints k and k + 1 (b_bone_deform),
        both kept even at weight 0 (skn's bind drops those: they move nothing, even under DQS).
        Also each entry's weight before the split and its B-Bone (-1: a straight bone's)."""
        first, count = skeleton.first, skeleton.count
        joint = first[bone] if len(bone) else numpy.zeros(0, numpy.int64)
        sub = numpy.zeros(len(bone), numpy.int64)
        curved = count[bone] > 1 if len(bone) else numpy.zeros(0, bool)
        if not curved.any():
            return vertex, order, joint, weight, sub, weight, numpy.full(len(bone), -1, numpy.int64)
        self.uses_input = True
        e, s = numpy.nonzero(curved)[0], numpy.nonzero(~curved)[0]  # every curved entry at once
        k, share = bbone_split(skeleton, bone[e], c[vertex[e]])
        j = first[bone[e]] + k
        none = numpy.full(len(s), -1, numpy.int64)
        parts = [(vertex[s], order[s], joint[s], weight[s], sub[s], weight[s], none),
                 (vertex[e], order[e], j, weight[e] * (1.0 - share), numpy.zeros(len(e), numpy.int64), weight[e], bone[e]),
                 (vertex[e], order[e], j + 1, weight[e] * share, numpy.ones(len(e), numpy.int64), weight[e], bone[e])]
        return tuple(numpy.concatenate(p) for p in zip(*parts))


def mask_factors(obj, settings):
    """The modifier's mask per vertex (its vertex group's weight, 1 - it with Invert), or None
    without a mask group: the share of the displacement a vertex takes."""
    if not settings.mask_group or settings.mask_group not in obj.vertex_groups:
        return None
    m = group_weights(obj, settings.mask_group).astype(numpy.float64)
    return 1.0 - m if settings.invert else m
