"""skn — skeletal mesh skinning (libskn) for Python.

    import numpy, skn
    rig = skn.Rig(parents=[-1, 0], bind_matrices=bind, positions=points,
                  joints=joints, weights=weights)          # numpy arrays, or any sequence
    pose = rig.pose()
    pose.set_local(rotations=quats, translations=offsets)  # relative to the parents
    out = numpy.empty((rig.vertex_count, 3), numpy.float32)
    rig.skin(pose, method="dqs", out=out)                   # written in place, no copy

Matrices are (n, 4, 4) arrays indexed [matrix, row, column], acting on
column vectors (p' = M @ p); an (n, 16) array is read the same way, row by
row — what .reshape(n, 16) of the first gives. (The C ABI's float[16] is
column-major: the package transposes.) Every array is checked against the
counts before C sees it, names are one of the listed ones in any case, and
indices are integers and not negative: a bad argument is skn.InvalidArgument
(a ValueError) or skn.InvalidType (a TypeError) naming it. A failure of the
library raises an skn.Error subclass carrying the status name and the
library's message, which names the offending item. The library is found
through $SKN_LIBRARY, beside this package, in the prefix it was installed
to, in the build tree, or on the system's library path, and must be ABI 1.

Lifetimes: a Rig, Pose or Gltf frees its libskn object when it is
collected, or at once with close() (or a `with` block); using it after is
skn.InvalidArgument. A pose keeps its rig alive, and a rig with live poses
refuses close(). They cannot be copied or pickled (TypeError): share the
object. Threads: a Rig and a Gltf may be used by any number of threads at
once; a Pose belongs to one thread at a time as in C, and calls on one pose
from several threads take turns (a lock a pose), so that a skin never sees
a half-set pose. ctypes releases the GIL during every call, so threads that
skin their own poses run in parallel.
"""
import ctypes
import math

import numpy

import os

from . import _abi, _args
from ._args import Error, InvalidArgument, InvalidType
from ._owner import _Owner, refuse_copy

_lib, LIBRARY_PATH = _abi.load()

__version__ = _lib.skn_version_string().decode()
METHODS = tuple(_abi.METHODS)
PALETTE_FORMATS = tuple(_abi.PALETTES)


class OutOfMemory(Error, MemoryError): pass
class IndexOutOfRange(Error, IndexError): pass
class BadHierarchy(Error, ValueError): pass
class NotFinite(Error, ValueError): pass
class BadWeights(Error, ValueError): pass
class Singular(Error, ValueError): pass
class Unsupported(Error): pass
class FileError(Error, OSError): pass
class ParseError(Error, ValueError): pass


_ERRORS = [None, InvalidArgument, OutOfMemory, IndexOutOfRange, BadHierarchy, NotFinite, BadWeights, Singular,
           Unsupported, FileError, ParseError]


def _check(status):
    if status:
        cls = _ERRORS[status] if status < len(_ERRORS) else Error
        raise cls(_lib.skn_status_name(status).decode(), _lib.skn_last_error().decode())


def _ptr(a, ctype=ctypes.c_float):
    return None if a is None else a.ctypes.data_as(ctypes.POINTER(ctype))


def _attrib(a):
    return _abi.Attrib(None if a is None else a.ctypes.data, 0)


def _owner_of(obj, cls, what):
    if not isinstance(obj, cls):
        raise _args.bad_type(f"{what} must be a skn.{cls.__name__}, not {type(obj).__name__}")
    owner = obj.__dict__.get("_owner")
    if owner is None:
        raise _args.bad(f"{what}: this skn.{cls.__name__} holds no libskn object (it was never made)")
    return owner


class _Using:
    """Holds owners for one call: `with _Using((rig, Rig, "rig"), ...) as (h, ...)` gives their handles,
    entered in order and left in reverse; close() waits for it."""
    __slots__ = ("owners", "entered")

    def __init__(self, *items):
        self.owners = [_owner_of(*item) for item in items]
        self.entered = []

    def __enter__(self):
        handles = []
        try:
            for owner in self.owners:
                handles.append(owner.enter())
                self.entered.append(owner)
        except BaseException:
            self.__exit__()
            raise
        return handles if len(handles) > 1 else handles[0]

    def __exit__(self, *_):
        while self.entered:
            self.entered.pop().leave()
        return False


class _Lifetime:
    """close() and `with` for Rig, Pose and Gltf (their owner: _owner.py)."""

    def close(self):
        """Frees the libskn object now (the object is unusable after); again is a no-op. A rig with
        live poses refuses (skn.InvalidArgument): close them first."""
        owner = self.__dict__.get("_owner")
        if owner is not None:
            owner.close()

    @property
    def closed(self):
        owner = self.__dict__.get("_owner")
        return owner is None or not owner.handle

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()
        return False


@refuse_copy
class Rig(_Lifetime):
    """A skeleton, a rest mesh and its weights, bound once (skn_bind). Immutable;
    may be shared by threads. Influences are fixed-width (joints and weights of
    shape (vertices, k)) or CSR (flat joints and weights with `offsets`, n + 1 of
    them). layout="compact" stores 16-bit weights and octahedral normals and
    tangents (skn.h, "Layout"): less memory traffic, positions within ~1e-5 of
    the model's size of "full"."""

    def __init__(self, *, positions, joints, weights, bind_matrices=None, inverse_bind_matrices=None,
                 parents=None, normals=None, tangents=None, offsets=None, weight_mode="normalize",
                 max_influences=0, min_weight=0.0, blend_weights=None, triangles=None, layout="full",
                 morph_targets=(), morph_weights=None, _handle=None):
        if _handle:
            self._adopt(_handle)
            return
        if (bind_matrices is None) == (inverse_bind_matrices is None):
            raise _args.bad("give exactly one of bind_matrices and inverse_bind_matrices")
        mats_name = "bind_matrices" if bind_matrices is not None else "inverse_bind_matrices"
        mats = _args.matrices(bind_matrices if bind_matrices is not None else inverse_bind_matrices, mats_name)
        count = len(mats)
        keep = {"m": mats, "p": _args.rows(positions, "positions", 3)}
        n = len(keep["p"])
        if count < 1 or n < 1:
            raise _args.bad(f"a rig needs at least one joint and one vertex ({count} {mats_name}, {n} positions)")
        keep["parents"] = None if parents is None else \
            _args.indices(parents, "parents", (count,), lowest=-1, dtype=numpy.int32)
        keep["n"] = None if normals is None else _args.rows(normals, "normals", 3, n)
        keep["t"] = None if tangents is None else _args.rows(tangents, "tangents", 4, n)
        keep["b"] = None if blend_weights is None else _args.rows(blend_weights, "blend_weights", 1, n)
        keep["tri"] = None if triangles is None else _args.indices(triangles, "triangles").reshape(-1)
        if keep["tri"] is not None and keep["tri"].size % 3:
            raise _args.bad(f"triangles has {keep['tri'].size} indices, not a multiple of 3")
        if offsets is None:  # fixed width: (n, k), or (n,) for one influence a vertex
            keep["j"] = _args.indices(joints, "joints")
            if keep["j"].ndim == 1 and keep["j"].size == n:
                keep["j"] = keep["j"].reshape(n, 1)
            if keep["j"].ndim != 2 or keep["j"].shape[0] != n or keep["j"].shape[1] < 1:
                raise _args.bad(f"joints has shape {keep['j'].shape}; expected ({n}, k) (or give offsets)")
            k = keep["j"].shape[1]
            keep["w"] = _args.rows(weights, "weights", k, n)
        else:  # CSR: offsets (n + 1,), then flat joints and weights of offsets[-1] each
            keep["o"] = _args.indices(offsets, "offsets", (n + 1,))
            total = int(keep["o"][-1])
            if numpy.any(numpy.diff(keep["o"].astype(numpy.int64)) < 0) or keep["o"][0] != 0:
                raise _args.bad("offsets must start at 0 and never decrease")
            keep["j"] = _args.indices(joints, "joints", (total,))
            keep["w"] = _args.rows(weights, "weights", 1, total)
            k = 0
        d = _abi.BindDesc(struct_size=ctypes.sizeof(_abi.BindDesc), joint_count=count, vertex_count=n)
        d.parents = _ptr(keep["parents"], ctypes.c_int32)
        if bind_matrices is not None:
            d.bind_matrices = _ptr(mats)
        else:
            d.inverse_bind_matrices = _ptr(mats)
        d.positions, d.normals, d.tangents = _attrib(keep["p"]), _attrib(keep["n"]), _attrib(keep["t"])
        d.influences_per_vertex = k
        d.influence_offsets = _ptr(keep.get("o"), ctypes.c_uint32)
        d.influence_joints, d.influence_weights = _ptr(keep["j"], ctypes.c_uint32), _ptr(keep["w"])
        d.weight_mode = _args.name(weight_mode, _abi.WEIGHT_MODES, "weight_mode")
        d.layout = _args.name(layout, _abi.LAYOUTS, "layout")
        d.max_influences = _args.count(max_influences, "max_influences")
        d.min_weight = _args.real(min_weight, "min_weight", minimum=0.0)
        d.blend_weights = _ptr(keep["b"])
        if keep["tri"] is not None:
            d.triangles, d.triangle_count = _ptr(keep["tri"], ctypes.c_uint32), keep["tri"].size // 3
        targets = _morph_targets(morph_targets, n, keep)
        if targets:
            d.morph_targets, d.morph_target_count = targets, len(targets)
            keep["mw"] = None if morph_weights is None else _args.rows(morph_weights, "morph_weights", 1, len(targets))
            d.morph_weights = _ptr(keep["mw"])
        elif morph_weights is not None and _args.rows(morph_weights, "morph_weights", 1).size:
            raise _args.bad("morph_weights without morph_targets")
        handle = ctypes.c_void_p()
        _check(_lib.skn_bind(ctypes.byref(d), ctypes.byref(handle)))
        self._adopt(handle.value)

    def _adopt(self, handle):
        self._owner = _Owner(handle, _lib.skn_rig_destroy, "Rig")
        info = _abi.RigInfo(struct_size=ctypes.sizeof(_abi.RigInfo))
        _check(_lib.skn_rig_info_get(handle, ctypes.byref(info)))
        self.joint_count, self.vertex_count = info.joint_count, info.vertex_count
        self.influence_count, self.max_influences_per_vertex = info.influence_count, info.max_influences_per_vertex
        self.has_normals = bool(info.flags & _abi.RIG_HAS_NORMALS)
        self.has_tangents = bool(info.flags & _abi.RIG_HAS_TANGENTS)
        self.has_blend_weights = bool(info.flags & _abi.RIG_HAS_BLEND_WEIGHTS)
        self.has_centers_of_rotation = bool(info.flags & _abi.RIG_HAS_CENTERS)
        self.layout = "compact" if info.flags & _abi.RIG_COMPACT else "full"
        self.morph_target_count, self.morph_entry_count = info.morph_target_count, info.morph_entry_count

    def pose(self):
        """A new pose of this rig, at its rest pose."""
        return Pose(self)

    def skin(self, pose, method="lbs", out=None, normals=None, tangents=None, first_vertex=0, vertex_count=0,
             threads=0, dqs_scale="polar", stores="auto"):
        """Deforms vertices [first_vertex, first_vertex + vertex_count) (0: to the end) into `out`, an
        array of (vertex_count, 3) float32 rows addressed by absolute vertex index — written in place,
        without a copy, when its rows are float32 and each row's 3 floats are contiguous (a row stride
        is fine: a view into an interleaved buffer works); other float arrays of that shape get a copy
        written back. `normals` / `tangents`: True for new arrays, or arrays to write into, likewise.
        `stores`: "auto", "cached" or "streaming" (skn_stores; the same bits either way).
        Returns out, or (out, normals, tangents) when asked for them."""
        if pose is None or not isinstance(pose, Pose):
            raise _args.bad_type(f"pose must be a skn.Pose of this rig, not {type(pose).__name__}")
        if normals is not None and normals is not False and not self.has_normals:
            raise _args.bad("normals: this rig was bound without normals")
        if tangents is not None and tangents is not False and not self.has_tangents:
            raise _args.bad("tangents: this rig was bound without tangents")
        wanted = [True, normals is not None and normals is not False, tangents is not None and tangents is not False]
        given = [out, normals, tangents]
        outs = [_args.output(a, label, self.vertex_count, width) if w else None
                for a, label, width, w in zip(given, ("out", "normals", "tangents"), (3, 3, 4), wanted)]
        d = _abi.SkinDesc(struct_size=ctypes.sizeof(_abi.SkinDesc),
                          method=_args.name(method, _abi.METHODS, "method"),
                          first_vertex=_args.count(first_vertex, "first_vertex"),
                          vertex_count=_args.count(vertex_count, "vertex_count"),
                          threads=_args.count(threads, "threads"),
                          dqs_scale=_args.name(dqs_scale, _abi.DQS_SCALES, "dqs_scale"),
                          stores=_args.name(stores, _abi.STORES, "stores"))
        d.positions, d.normals, d.tangents = (_abi.Attrib(o[1].ctypes.data, o[1].strides[0]) if o else _abi.Attrib()
                                              for o in outs)
        with _Using((self, Rig, "rig"), (pose, Pose, "pose")) as (rig_handle, pose_handle):
            _check(_lib.skn_skin(rig_handle, pose_handle, ctypes.byref(d)))
        for o in outs:
            if o and o[0] is not o[1]:
                o[0][...] = o[1]  # the caller's array was not float32 rows: copy back
        result = [o[0] if o else None for o in outs]
        return result[0] if not wanted[1] and not wanted[2] else tuple(result)

    def gpu_attributes(self, influences=4, joint_bits=16):
        """The per-vertex inputs of skn's GLSL (skn_rig_gpu_attributes), as new arrays: "joints"
        (n, influences) uint16 (or uint8 with joint_bits=8), "weights" (n, influences) float32, the rest
        mesh "positions" (n, 3), and where the rig has them "normals" (n, 3), "tangents" (n, 4),
        "blend_weights" (n,) and "centers" (n, 4: xyz, w = 1 where the vertex has a center)."""
        k, joint_bits = _args.count(influences, "influences"), _args.count(joint_bits, "joint_bits")
        if k not in (4, 8, 12, 16):  # the arrays below are (n, k): C would read 0 as 4
            raise _args.bad(f"influences is {k}; skn's GLSL takes 4, 8, 12 or 16 a vertex")
        if joint_bits not in (8, 16):
            raise _args.bad(f"joint_bits is {joint_bits}; it must be 8 or 16")
        n = self.vertex_count  # the library checks the rig against k and joint_bits before it writes
        out = {"joints": numpy.empty((n, k), numpy.uint8 if joint_bits == 8 else numpy.uint16),
               "weights": numpy.empty((n, k), numpy.float32), "positions": numpy.empty((n, 3), numpy.float32)}
        if self.has_normals:
            out["normals"] = numpy.empty((n, 3), numpy.float32)
        if self.has_tangents:
            out["tangents"] = numpy.empty((n, 4), numpy.float32)
        if self.has_blend_weights:
            out["blend_weights"] = numpy.empty(n, numpy.float32)
        if self.has_centers_of_rotation:
            out["centers"] = numpy.empty((n, 4), numpy.float32)
        d = _abi.GpuAttributes(struct_size=ctypes.sizeof(_abi.GpuAttributes), influences=k, joint_bits=joint_bits)
        for key, a in out.items():
            setattr(d, key, _abi.Attrib(a.ctypes.data, 0))
        with _Using((self, Rig, "rig")) as handle:
            _check(_lib.skn_rig_gpu_attributes(handle, ctypes.byref(d)))
        return out


def _morph_targets(targets, n, keep):
    """The skn_morph_target array for bind: each target a dict with "positions" (m, 3) offsets,
    optional "normals" and "tangents" (m, 3), and "vertices" (m,) indices (absent or None:
    dense, m = n). Every array is checked against m before the library sees it."""
    if isinstance(targets, dict):
        raise _args.bad_type("morph_targets must be a sequence of dicts, not one dict")
    targets = list(targets)
    if not targets:
        return None
    array = (_abi.MorphTarget * len(targets))()
    for t, target in enumerate(targets):
        if not isinstance(target, dict):
            raise _args.bad_type(f"morph_targets[{t}] must be a dict, not {type(target).__name__}")
        unknown = set(target) - {"positions", "normals", "tangents", "vertices"}
        if unknown:
            raise _args.bad(f"morph_targets[{t}]: unknown keys {sorted(unknown)}")
        if target.get("positions") is None:
            raise _args.bad(f"morph_targets[{t}]: positions are required")
        v = target.get("vertices")
        v = None if v is None else _args.indices(v, f"morph_targets[{t}].vertices").reshape(-1)
        m = n if v is None else v.size
        parts = {key: None if target.get(key) is None else _args.rows(target[key], f"morph_targets[{t}].{key}", 3, m)
                 for key in ("positions", "normals", "tangents")}
        keep[("morph", t)] = (v, parts)
        array[t] = _abi.MorphTarget(m, _ptr(v, ctypes.c_uint32), _attrib(parts["positions"]),
                                    _attrib(parts["normals"]), _attrib(parts["tangents"]))
    keep["morphs"] = array
    return array


@refuse_copy
class Pose(_Lifetime):
    """One transform per joint and the skinning palette derived from it. It keeps
    its rig alive (rig.close() refuses while it lives). One thread at a time:
    calls from several take turns."""

    def __init__(self, rig):
        out = ctypes.c_void_p()
        with _Using((rig, Rig, "rig")) as rig_handle:
            _check(_lib.skn_pose_create(rig_handle, ctypes.byref(out)))
            self._owner = _Owner(out.value, _lib.skn_pose_destroy, "Pose", parent=rig._owner, exclusive=True)
        self._rig = rig

    @property
    def rig(self):
        """The rig this pose is of."""
        return self._rig

    def set_local(self, translations=None, rotations=None, scales=None, first=0):
        """Joints [first, first + n) from transforms relative to their parents: translations (n, 3),
        rotations (n, 4) as quaternions x, y, z, w, scales (n, 3); each defaults to the identity
        (n from those given, else every joint from first)."""
        first = _args.count(first, "first")
        given = [(cols, a, width, label) for cols, a, width, label in
                 ((slice(0, 3), translations, 3, "translations"), (slice(3, 7), rotations, 4, "rotations"),
                  (slice(7, 10), scales, 3, "scales")) if a is not None]
        parts = [(cols, _args.rows(a, label, width)) for cols, a, width, label in given]
        n = len(parts[0][1]) if parts else self.rig.joint_count - first
        for (cols, a), (_, _, width, label) in zip(parts, given):
            if len(a) != n:
                raise _args.bad(f"{label} has {len(a)} rows; expected ({n}, {width}) as the first given")
        if n < 1:
            raise _args.bad(f"set_local: no joints to set (first {first} of {self.rig.joint_count})")
        t = numpy.zeros((n, 10), numpy.float32)
        t[:, 6] = 1.0  # rotation w
        t[:, 7:10] = 1.0  # scale
        for cols, a in parts:
            t[:, cols] = a
        with _Using((self, Pose, "pose")) as handle:
            _check(_lib.skn_pose_set_local(handle, first, n, t.ctypes.data_as(ctypes.POINTER(_abi.Transform))))

    def set_morph_weights(self, weights, first=0):
        """The weights of morph targets [first, first + len(weights))."""
        first = _args.count(first, "first")
        w = _args.rows(weights, "weights", 1).reshape(-1)
        if first + w.size > self.rig.morph_target_count:
            raise IndexOutOfRange("SKN_ERR_INDEX_OUT_OF_RANGE", f"weights [{first}, {first + w.size}) run past the "
                                  f"rig's {self.rig.morph_target_count} morph targets")
        with _Using((self, Pose, "pose")) as handle:
            _check(_lib.skn_pose_set_morph_weights(handle, first, w.size, _ptr(w)))

    @property
    def morph_weights(self):
        """Every morph target's weight, as a (morph_target_count,) float32 array."""
        w = numpy.zeros(self.rig.morph_target_count, numpy.float32)
        with _Using((self, Pose, "pose")) as handle:
            if w.size:
                _check(_lib.skn_pose_morph_weights(handle, 0, w.size, _ptr(w)))
        return w

    def set_model(self, matrices, first=0):
        """Joints [first, first + n) from joint->model matrices, (n, 4, 4) or (n, 16) (see the package's
        note on matrices)."""
        first = _args.count(first, "first")
        m = _args.matrices(matrices, "matrices")
        with _Using((self, Pose, "pose")) as handle:
            _check(_lib.skn_pose_set_model(handle, first, len(m), _ptr(m)))

    def palette(self, format="mat4"):
        """The palette: (J, 4, 4) matrices for "mat4"; (J, 3, 4) rows for "rows3x4" and
        "normal-rows3x4"; (J, 8) or (J, 20) floats for the dual-quaternion formats."""
        code, width = _args.name(format, _abi.PALETTES, "format")
        out = numpy.empty((self.rig.joint_count, width), numpy.float32)
        with _Using((self, Pose, "pose")) as handle:
            _check(_lib.skn_pose_palette(handle, code, out.ctypes.data, out.nbytes))
        if code == 0:
            return out.reshape(-1, 4, 4).transpose(0, 2, 1)
        return out.reshape(-1, 3, 4) if width == 12 else out

    def gpu_palette(self, method="lbs", dqs_scale="polar", normals=False, tangents=False):
        """The palette skn's GLSL for `method` reads (skn_pose_gpu_palette): a (joints, palette_vec4s, 4)
        float32 array, the bytes to upload as they are."""
        d = _gpu_desc(method, dqs_scale, normals=normals, tangents=tangents, palette="texture-2d")
        vec4s = gpu_layout(method, normals=normals, tangents=tangents)["palette_vec4s"]
        out = numpy.empty((self.rig.joint_count, vec4s, 4), numpy.float32)
        with _Using((self, Pose, "pose")) as handle:
            _check(_lib.skn_pose_gpu_palette(handle, ctypes.byref(d), out.ctypes.data, out.nbytes))
        return out


@refuse_copy
class Gltf(_Lifetime):
    """A glTF 2.0 document (.gltf or .glb), opened and validated. `path` is a str,
    bytes (as the os module takes file names) or os.PathLike; Gltf.from_memory opens
    one from its bytes. Its buffers are read from files inside its folder only:
    any_path=True lets it name absolute paths and climb out with '..' (for
    documents the host trusts; skn.h, SKN_GLTF_OPEN_ANY_PATH)."""

    def __init__(self, path, *, any_path=False):
        if isinstance(path, (bytearray, memoryview)):
            raise _args.bad_type(f"Gltf takes a path; for a document's bytes use skn.Gltf.from_memory")
        if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
            raise _args.bad_type(f"Gltf takes a path (str, bytes or os.PathLike), not {type(path).__name__}")
        name = os.fsencode(path)
        if b"\0" in name:
            at = name.index(b"\0")
            raise _args.bad(f"path {os.fsdecode(name[:80])!r}{'...' if len(name) > 80 else ''} holds a NUL byte at "
                            f"{at}: the system would open only what is before it"
                            f"{' (a document in memory opens with skn.Gltf.from_memory)' if isinstance(path, bytes) else ''}")
        d = _abi.GltfOpenDesc(struct_size=ctypes.sizeof(_abi.GltfOpenDesc), path=name,
                              flags=_abi.GLTF_OPEN_ANY_PATH if any_path else 0)
        self._open(d)

    @classmethod
    def from_memory(cls, data, *, folder=None, any_path=False):
        """A document from its bytes (bytes-like, copied): a .glb, or a .gltf whose buffers are data:
        URIs or, given `folder`, files read from that folder as from a file's."""
        try:
            view = memoryview(data)
        except TypeError:
            raise _args.bad_type(f"from_memory takes the document's bytes, not {type(data).__name__}") from None
        data = view.tobytes()
        d = _abi.GltfOpenDesc(struct_size=ctypes.sizeof(_abi.GltfOpenDesc), size=len(data),
                              flags=_abi.GLTF_OPEN_ANY_PATH if any_path else 0)
        d.data = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p)
        if folder is not None:
            name = os.fsencode(folder)
            if b"\0" in name:
                raise _args.bad(f"folder {os.fsdecode(name[:80])!r} holds a NUL byte")
            d.folder = name
        self = cls.__new__(cls)
        self._open(d)  # the library copies the bytes during the call
        return self

    def _open(self, desc):
        handle = ctypes.c_void_p()
        _check(_lib.skn_gltf_open_with(ctypes.byref(desc), ctypes.byref(handle)))
        self._owner = _Owner(handle.value, _lib.skn_gltf_close, "Gltf")
        info = _abi.GltfInfo(struct_size=ctypes.sizeof(_abi.GltfInfo))
        with _Using((self, Gltf, "gltf")) as h:
            _check(_lib.skn_gltf_info_get(h, ctypes.byref(info)))
            self.primitives = [self._primitive(h, i) for i in range(info.primitive_count)]
            self.animations = [self._animation(h, i) for i in range(info.animation_count)]
        self.skin_count, self.node_count, self.mesh_count = info.skin_count, info.node_count, info.mesh_count

    def _primitive(self, h, i):
        p = _abi.GltfPrimitiveInfo(struct_size=ctypes.sizeof(_abi.GltfPrimitiveInfo))
        _check(_lib.skn_gltf_primitive_info_get(h, i, ctypes.byref(p)))
        return {"mesh": p.mesh, "primitive_in_mesh": p.primitive_in_mesh, "node": p.node, "skin": p.skin,
                "vertex_count": p.vertex_count, "triangle_count": p.triangle_count, "joint_count": p.joint_count,
                "influences_per_vertex": p.influences_per_vertex, "has_normals": bool(p.flags & 1),
                "has_tangents": bool(p.flags & 2), "mesh_name": p.mesh_name.decode(),
                "node_name": p.node_name.decode(), "morph_target_names": [self._target_name(h, i, t)
                                                                         for t in range(p.morph_target_count)]}

    @staticmethod
    def _target_name(h, i, t):
        name = ctypes.c_char_p()
        _check(_lib.skn_gltf_morph_target_name(h, i, t, ctypes.byref(name)))
        return name.value.decode()

    @staticmethod
    def _animation(h, i):
        a = _abi.GltfAnimationInfo(struct_size=ctypes.sizeof(_abi.GltfAnimationInfo))
        _check(_lib.skn_gltf_animation_info_get(h, i, ctypes.byref(a)))
        return {"name": a.name.decode(), "start": a.start, "end": a.end, "channel_count": a.channel_count}

    def _primitive_index(self, primitive):
        primitive = _args.count(primitive, "primitive")
        if primitive >= len(self.primitives):
            raise IndexOutOfRange("SKN_ERR_INDEX_OUT_OF_RANGE",
                                  f"primitive {primitive}: the document has {len(self.primitives)} skinned primitives")
        return primitive

    def find_animation(self, name):
        """The index of the animation named `name` (IndexOutOfRange naming the animations there are)."""
        if not isinstance(name, str):
            raise _args.bad_type(f"animation names are strings, not {type(name).__name__}")
        for i, a in enumerate(self.animations):
            if a["name"] == name:
                return i
        raise IndexOutOfRange("SKN_ERR_INDEX_OUT_OF_RANGE", f"no animation is named {name!r}; the document has "
                              f"{', '.join(repr(a['name']) for a in self.animations) or 'none'}")

    def triangles(self, primitive=0):
        """The primitive's triangles, (t, 3) vertex indices."""
        primitive = self._primitive_index(primitive)
        out = numpy.empty((self.primitives[primitive]["triangle_count"], 3), numpy.uint32)
        with _Using((self, Gltf, "gltf")) as h:
            _check(_lib.skn_gltf_triangles(h, primitive, _ptr(out, ctypes.c_uint32), out.size))
        return out

    def weights(self, node, primitive_in_mesh=0, *, method="heat", influences=4, min_weight=0.0, weld=True,
                non_manifold=False, threads=0):
        """Weights for the mesh of `node` (a node with a skin, weighted or not) by its skin's joints:
        (joints, weights), each (POSITION's count, influences), as JOINTS_n and WEIGHTS_n hold them.
        The bones run from each joint to its children (skn.h's skn_gltf_compute_weights); weld joins
        the vertices a seam split (the default); method "heat" or "closest"."""
        d = _abi.GltfWeightsDesc(struct_size=ctypes.sizeof(_abi.GltfWeightsDesc))
        d.node = _args.count(node, "node")
        d.primitive_in_mesh = _args.count(primitive_in_mesh, "primitive_in_mesh")
        d.method = _args.name(method, _abi.WEIGHTS_METHODS, "method")
        d.influences_per_vertex = _args.count(influences, "influences", minimum=1)
        d.min_weight = _args.real(min_weight, "min_weight", minimum=0.0)
        d.flags = (_abi.WEIGHTS_WELD if weld else 0) | (_abi.WEIGHTS_NON_MANIFOLD if non_manifold else 0)
        d.threads = _args.count(threads, "threads")
        n = ctypes.c_uint32()
        with _Using((self, Gltf, "gltf")) as h:
            _check(_lib.skn_gltf_compute_weights(h, ctypes.byref(d), None, None, 0, ctypes.byref(n)))
            joints = numpy.zeros((n.value, d.influences_per_vertex), numpy.uint32)
            out = numpy.zeros((n.value, d.influences_per_vertex), numpy.float32)
            _check(_lib.skn_gltf_compute_weights(h, ctypes.byref(d), joints.ctypes.data, out.ctypes.data,
                                                 joints.size, ctypes.byref(n)))
        return joints, out

    def bind(self, primitive=0, centers_of_rotation=False, max_influences=0, min_weight=0.0, blend_weights=None,
             layout="full", max_bytes=0):
        """A Rig of a skinned primitive (centers_of_rotation: bind with its triangles, for "cor";
        layout: "full" or "compact", as Rig; max_bytes: the most binding may allocate, 0 for 2 GiB)."""
        primitive = self._primitive_index(primitive)
        n = self.primitives[primitive]["vertex_count"]
        b = None if blend_weights is None else _args.rows(blend_weights, "blend_weights", 1, n)
        d = _abi.GltfBindDesc(struct_size=ctypes.sizeof(_abi.GltfBindDesc), primitive=primitive,
                              centers_of_rotation=int(bool(centers_of_rotation)),
                              max_influences=_args.count(max_influences, "max_influences"),
                              min_weight=_args.real(min_weight, "min_weight", minimum=0.0), blend_weights=_ptr(b),
                              layout=_args.name(layout, _abi.LAYOUTS, "layout"),
                              max_bytes=_args.bytes_count(max_bytes, "max_bytes"))
        handle = ctypes.c_void_p()
        with _Using((self, Gltf, "gltf")) as h:
            _check(_lib.skn_gltf_bind(h, ctypes.byref(d), ctypes.byref(handle)))
        return Rig(positions=None, joints=None, weights=None, _handle=handle.value)

    def pose(self, pose, primitive=0, animation=0, time=0.0):
        """Poses `pose` (of a rig from bind(primitive)) at `time` seconds of an animation, given
        by index or name; None for the document's own node transforms."""
        _owner_of(pose, Pose, "pose")
        primitive = self._primitive_index(primitive)
        if isinstance(animation, str):
            animation = self.find_animation(animation)
        elif animation is not None:
            animation = _args.count(animation, "animation")
            if animation >= len(self.animations):
                raise IndexOutOfRange("SKN_ERR_INDEX_OUT_OF_RANGE",
                                      f"animation {animation}: the document has {len(self.animations)} animations")
        time = _args.real(time, "time")
        if not math.isfinite(time):
            raise NotFinite("SKN_ERR_NOT_FINITE", f"time is {time}")
        index = _abi.NO_ANIMATION if animation is None else animation
        with _Using((self, Gltf, "gltf"), (pose, Pose, "pose")) as (h, pose_handle):
            _check(_lib.skn_gltf_pose(h, primitive, index, time, pose_handle))


def _gpu_desc(method, dqs_scale="polar", influences=4, normals=False, tangents=False, dialect="330",
              palette="uniform-block", joint_count=0, version_line=True):
    outputs = (_abi.GPU_NORMALS if normals else 0) | (_abi.GPU_TANGENTS if tangents else 0)
    return _abi.GpuDesc(struct_size=ctypes.sizeof(_abi.GpuDesc), method=_args.name(method, _abi.METHODS, "method"),
                        dqs_scale=_args.name(dqs_scale, _abi.DQS_SCALES, "dqs_scale"),
                        influences=_args.count(influences, "influences"), outputs=outputs,
                        dialect=_args.name(dialect, _abi.GLSL_DIALECTS, "dialect"),
                        palette=_args.name(palette, _abi.GLSL_PALETTES, "palette"),
                        joint_count=_args.count(joint_count, "joint_count"),
                        flags=0 if version_line else _abi.GLSL_NO_VERSION)


def glsl_source(method="lbs", *, dqs_scale="polar", influences=4, normals=False, tangents=False, dialect="330",
                palette="uniform-block", joint_count=0, version_line=True):
    """skn's GLSL for a vertex shader (skn_glsl_source): skn_skin_position(), and skn_skin_normal() /
    skn_skin_tangent() where asked, for `method` with `influences` (4, 8, 12 or 16) a vertex; dialect "330" or
    "300 es"; the palette in a "uniform-block" (of joint_count joints), "texture-buffer" or "texture-2d";
    version_line=False leaves out the #version line. Its opening comment lists its inputs."""
    d = _gpu_desc(method, dqs_scale, influences, normals, tangents, dialect, palette, joint_count, version_line)
    n = ctypes.c_size_t()
    _check(_lib.skn_glsl_source(ctypes.byref(d), None, 0, ctypes.byref(n)))
    text = ctypes.create_string_buffer(n.value + 1)
    _check(_lib.skn_glsl_source(ctypes.byref(d), text, n.value + 1, ctypes.byref(n)))
    return text.value.decode()


def gpu_layout(method="lbs", *, normals=False, tangents=False):
    """What the GLSL of `method` reads: {"palette_vec4s": vec4 a joint, "blend_weights": bool,
    "centers": bool} (the vertex inputs beyond joints and weights)."""
    d = _gpu_desc(method, normals=normals, tangents=tangents, palette="texture-2d")
    out = _abi.GpuLayout(struct_size=ctypes.sizeof(_abi.GpuLayout))
    _check(_lib.skn_gpu_layout_get(ctypes.byref(d), ctypes.byref(out)))
    return {"palette_vec4s": out.palette_vec4s, "blend_weights": bool(out.needs & _abi.GPU_NEEDS_BLEND_WEIGHTS),
            "centers": bool(out.needs & _abi.GPU_NEEDS_CENTERS)}


def version():
    """The loaded library's version, "1.5.0"."""
    return __version__


def set_simd(name="auto"):
    """Chooses the kernels for the process: "auto", "scalar", "portable", "avx2" or "avx512"
    (skn.Unsupported where this CPU lacks it)."""
    _check(_lib.skn_set_simd(_args.name(name, _abi.SIMD, "simd")))


def get_simd():
    """The kernels in use: "scalar", "portable", "avx2" or "avx512"."""
    code = _lib.skn_get_simd()
    return next(name for name, value in _abi.SIMD.items() if value == code)


from .bake import bake  # noqa: E402  (bake.py builds on the classes above)
from .weights import weights  # noqa: E402
