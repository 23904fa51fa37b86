"""skn — skeletal mesh skinning (libskn) for Python.

    import numpy, skn
    rig = skn.Rig(parents=[-1, 0], bind_matrices=bind, positions=points,
                  joints=joints, weights=weights)          # numpy arrays, or any buffer
    pose = rig.pose()
    pose.set_local(rotations=quats, translations=offsets)  # relative to the parents
    out = numpy.empty((rig.vertex_count, 3), numpy.float32)
    rig.skin(pose, method="dqs", out=out)                   # written in place, no copy

Matrices given as (n, 4, 4) arrays are mathematical, indexed [joint, row,
column], and act on column vectors; (n, 16) arrays are passed as they are,
column-major, as the C ABI takes them. Errors raise skn.Error subclasses
that carry the status name and the library's message, which names the
offending item. The library is found beside this package, through
$SKN_LIBRARY, or on the system's library path, and must be ABI 1.
"""
import ctypes

import numpy

from . import _abi

_lib, LIBRARY_PATH = _abi.load()

__version__ = _lib.skn_version_string().decode()
METHODS = tuple(_abi.METHODS)
PALETTE_FORMATS = tuple(_abi.PALETTES)


class Error(Exception):
    """A failed libskn call: .status (the C status name) and .message."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status, self.message = status, message


class InvalidArgument(Error, ValueError): pass
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


def _array(x, dtype, width, name):
    """x as a C-contiguous (n, width) array of dtype (a view where it already is one)."""
    a = numpy.ascontiguousarray(numpy.asarray(x), dtype=dtype)
    if a.size % width:
        raise InvalidArgument("SKN_ERR_INVALID_ARGUMENT", f"{name}: {a.size} values are not rows of {width}")
    return a.reshape(-1, width)


def _matrices(m, name):
    """(n, 4, 4) mathematical matrices, or (n, 16) column-major ones, as (n, 16) column-major float32."""
    a = numpy.asarray(m, dtype=numpy.float32)
    if a.ndim == 3 and a.shape[1:] == (4, 4):
        a = a.transpose(0, 2, 1)
    return _array(a, numpy.float32, 16, name)


def _ptr(a, ctype=ctypes.c_float):
    return None if a is None else a.ctypes.data_as(ctypes.POINTER(ctype))


def _layout(name):
    if name not in _abi.LAYOUTS:
        raise InvalidArgument("SKN_ERR_INVALID_ARGUMENT", f"layout {name!r} is not one of {sorted(_abi.LAYOUTS)}")
    return _abi.LAYOUTS[name]


def _attrib(a):
    return _abi.Attrib(None if a is None else a.ctypes.data, 0)


def _choice(table, name, what):
    """table[name], or InvalidArgument naming the valid names."""
    if name not in table:
        raise InvalidArgument("SKN_ERR_INVALID_ARGUMENT", f"{what} {name!r} is not one of {', '.join(table)}")
    return table[name]


def _gpu_desc(method, dqs_scale="polar", influences=4, normals=False, tangents=False, dialect="330",
              palette="uniform-block", joint_count=0, version_line=True):
    outputs = (_abi.GPU_NORMALS if normals else 0) | (_abi.GPU_TANGENTS if tangents else 0)
    return _abi.GpuDesc(struct_size=ctypes.sizeof(_abi.GpuDesc), method=_choice(_abi.METHODS, method, "method"),
                        dqs_scale=_choice(_abi.DQS_SCALES, dqs_scale, "dqs_scale"), influences=influences,
                        outputs=outputs, dialect=_choice(_abi.GLSL_DIALECTS, dialect, "dialect"),
                        palette=_choice(_abi.GLSL_PALETTES, palette, "palette"), joint_count=joint_count,
                        flags=0 if version_line else _abi.GLSL_NO_VERSION)


def glsl_source(method="lbs", *, dqs_scale="polar", influences=4, normals=False, tangents=False, dialect="330",
                palette="uniform-block", joint_count=0, version_line=True):
    """skn's GLSL for a vertex shader (skn_glsl_source): skn_skin_position(), and skn_skin_normal() /
    skn_skin_tangent() where asked, for `method` with `influences` (4 or 8) a vertex; dialect "330" or
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


class Rig:
    """A skeleton, a rest mesh and its weights, bound once (skn_bind). Immutable;
    may be shared by threads. Influences are fixed-width (joints and weights of
    shape (vertices, k)) or CSR (flat joints and weights with `offsets`).
    layout="compact" stores 16-bit weights and octahedral normals and tangents
    (skn.h, "Layout"): less memory traffic, positions within ~1e-5 of the model's
    size of "full"."""

    def __init__(self, *, positions, joints, weights, bind_matrices=None, inverse_bind_matrices=None,
                 parents=None, normals=None, tangents=None, offsets=None, weight_mode="normalize",
                 max_influences=0, min_weight=0.0, blend_weights=None, triangles=None, layout="full",
                 _handle=None):
        self._handle = ctypes.c_void_p(_handle)
        if _handle:
            self._read_info()
            return
        matrices = bind_matrices if bind_matrices is not None else inverse_bind_matrices
        if matrices is None or (bind_matrices is not None and inverse_bind_matrices is not None):
            raise InvalidArgument("SKN_ERR_INVALID_ARGUMENT", "give exactly one of bind_matrices and inverse_bind_matrices")
        keep = {"m": _matrices(matrices, "matrices"), "p": _array(positions, numpy.float32, 3, "positions")}
        n, count = len(keep["p"]), len(keep["m"])
        keep["parents"] = None if parents is None else _array(parents, numpy.int32, 1, "parents")
        keep["n"] = None if normals is None else _array(normals, numpy.float32, 3, "normals")
        keep["t"] = None if tangents is None else _array(tangents, numpy.float32, 4, "tangents")
        keep["j"] = numpy.ascontiguousarray(joints, dtype=numpy.uint32)
        keep["w"] = numpy.ascontiguousarray(weights, dtype=numpy.float32)
        keep["o"] = None if offsets is None else _array(offsets, numpy.uint32, 1, "offsets")
        keep["b"] = None if blend_weights is None else _array(blend_weights, numpy.float32, 1, "blend_weights")
        keep["tri"] = None if triangles is None else _array(triangles, numpy.uint32, 3, "triangles")
        if keep["j"].shape != keep["w"].shape:
            raise InvalidArgument("SKN_ERR_INVALID_ARGUMENT", f"joints {keep['j'].shape} and weights "
                                  f"{keep['w'].shape} differ in shape")
        d = _abi.BindDesc(struct_size=ctypes.sizeof(_abi.BindDesc), joint_count=count, vertex_count=n)
        d.parents = _ptr(keep["parents"], ctypes.c_int32)
        if bind_matrices is not None:
            d.bind_matrices = _ptr(keep["m"])
        else:
            d.inverse_bind_matrices = _ptr(keep["m"])
        d.positions, d.normals, d.tangents = _attrib(keep["p"]), _attrib(keep["n"]), _attrib(keep["t"])
        d.influences_per_vertex = 0 if keep["o"] is not None else (keep["j"].shape[1] if keep["j"].ndim == 2 else 1)
        d.influence_offsets = _ptr(keep["o"], ctypes.c_uint32)
        d.influence_joints, d.influence_weights = _ptr(keep["j"], ctypes.c_uint32), _ptr(keep["w"])
        d.weight_mode = _abi.WEIGHT_MODES[weight_mode]
        d.layout = _layout(layout)
        d.max_influences, d.min_weight = max_influences, min_weight
        d.blend_weights = _ptr(keep["b"])
        if keep["tri"] is not None:
            d.triangles, d.triangle_count = _ptr(keep["tri"], ctypes.c_uint32), len(keep["tri"])
        _check(_lib.skn_bind(ctypes.byref(d), ctypes.byref(self._handle)))
        self._read_info()

    def _read_info(self):
        info = _abi.RigInfo(struct_size=ctypes.sizeof(_abi.RigInfo))
        _check(_lib.skn_rig_info_get(self._handle, ctypes.byref(info)))
        self.joint_count, self.vertex_count = info.joint_count, info.vertex_count
        self.influence_count, self.max_influences_per_vertex = info.influence_count, info.max_influences_per_vertex
        self.has_normals = bool(info.flags & _abi.RIG_HAS_NORMALS)
        self.has_tangents = bool(info.flags & _abi.RIG_HAS_TANGENTS)
        self.has_blend_weights = bool(info.flags & _abi.RIG_HAS_BLEND_WEIGHTS)
        self.has_centers_of_rotation = bool(info.flags & _abi.RIG_HAS_CENTERS)
        self.layout = "compact" if info.flags & _abi.RIG_COMPACT else "full"

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.skn_rig_destroy(self._handle)
            self._handle = None

    def pose(self):
        """A new pose of this rig, at its rest pose."""
        return Pose(self)

    def skin(self, pose, method="lbs", out=None, normals=None, tangents=None, first_vertex=0, vertex_count=0,
             threads=0, dqs_scale="polar"):
        """Deforms vertices [first_vertex, first_vertex + vertex_count) (0: to the end) into `out`, an
        array of (vertex_count, 3) float32 rows addressed by absolute vertex index — written in place,
        without a copy, when its rows are float32 and each row's 3 floats are contiguous (a row stride
        is fine: a view into an interleaved buffer works). `normals` / `tangents`: True for new arrays,
        or arrays to write into, likewise. Returns out, or (out, normals, tangents) when asked for them."""
        outs = [self._output(out, 3, "out", True), self._output(normals, 3, "normals", normals is not None),
                self._output(tangents, 4, "tangents", tangents is not None)]
        d = _abi.SkinDesc(struct_size=ctypes.sizeof(_abi.SkinDesc), method=_abi.METHODS[method],
                          first_vertex=first_vertex, vertex_count=vertex_count, threads=threads,
                          dqs_scale=_abi.DQS_SCALES[dqs_scale])
        d.positions, d.normals, d.tangents = (_abi.Attrib(o[1].ctypes.data, o[1].strides[0]) if o else _abi.Attrib()
                                              for o in outs)
        _check(_lib.skn_skin(self._handle, pose._handle, ctypes.byref(d)))
        for o in outs:
            if o and o[0] is not o[1]:
                o[0][...] = o[1]  # the caller's array was not float32 rows: copy back
        result = [o[0] if o else None for o in outs]
        return result[0] if normals is None and tangents is None else tuple(result)

    def gpu_attributes(self, influences=4, joint_bits=16):
        """The per-vertex inputs of skn's GLSL (skn_rig_gpu_attributes), as new arrays: "joints"
        (n, influences) uint16 (or uint8 with joint_bits=8), "weights" (n, influences) float32, the rest
        mesh "positions" (n, 3), and where the rig has them "normals" (n, 3), "tangents" (n, 4),
        "blend_weights" (n,) and "centers" (n, 4: xyz, w = 1 where the vertex has a center)."""
        n, k = self.vertex_count, influences
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
        for name, a in out.items():
            setattr(d, name, _abi.Attrib(a.ctypes.data, 0))
        _check(_lib.skn_rig_gpu_attributes(self._handle, ctypes.byref(d)))
        return out

    def _output(self, a, width, name, wanted):
        """(caller's array, the array the library writes) or None."""
        if not wanted:
            return None
        if a is None or a is True:
            a = numpy.empty((self.vertex_count, width), numpy.float32)
        if not isinstance(a, numpy.ndarray) or a.ndim != 2 or a.shape != (self.vertex_count, width):
            raise InvalidArgument("SKN_ERR_INVALID_ARGUMENT",
                                  f"{name} must be an array of shape ({self.vertex_count}, {width})")
        direct = a.dtype == numpy.float32 and a.strides[1] == 4 and a.strides[0] >= 4 * width and a.flags.writeable
        return (a, a if direct else numpy.empty(a.shape, numpy.float32))


class Pose:
    """One transform per joint and the skinning palette derived from it. A pose
    belongs to one thread at a time; it keeps its rig alive."""

    def __init__(self, rig):
        self.rig, self._handle = rig, ctypes.c_void_p()
        _check(_lib.skn_pose_create(rig._handle, ctypes.byref(self._handle)))

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.skn_pose_destroy(self._handle)
            self._handle = None

    def set_local(self, translations=None, rotations=None, scales=None, first=0):
        """Joints [first, first + n) from transforms relative to their parents: translations (n, 3),
        rotations (n, 4) as quaternions x, y, z, w, scales (n, 3); each defaults to the identity."""
        parts = [(cols, _array(a, numpy.float32, width, name)) for cols, a, width, name in
                 ((slice(0, 3), translations, 3, "translations"), (slice(3, 7), rotations, 4, "rotations"),
                  (slice(7, 10), scales, 3, "scales")) if a is not None]
        n = len(parts[0][1]) if parts else self.rig.joint_count - first
        t = numpy.zeros((n, 10), numpy.float32)
        t[:, 6] = 1.0  # rotation w
        t[:, 7:10] = 1.0  # scale
        for cols, a in parts:
            if len(a) != n:
                raise InvalidArgument("SKN_ERR_INVALID_ARGUMENT", f"set_local: {len(a)} rows where {n} are given")
            t[:, cols] = a
        _check(_lib.skn_pose_set_local(self._handle, first, n, t.ctypes.data_as(ctypes.POINTER(_abi.Transform))))

    def set_model(self, matrices, first=0):
        """Joints [first, first + n) from joint->model matrices, (n, 4, 4) or (n, 16) column-major."""
        m = _matrices(matrices, "matrices")
        _check(_lib.skn_pose_set_model(self._handle, first, len(m), _ptr(m)))

    def palette(self, format="mat4"):
        """The palette: (J, 4, 4) matrices for "mat4"; (J, 3, 4) rows for "rows3x4" and
        "normal-rows3x4"; (J, 8) or (J, 20) floats for the dual-quaternion formats."""
        code, width = _abi.PALETTES[format]
        out = numpy.empty((self.rig.joint_count, width), numpy.float32)
        _check(_lib.skn_pose_palette(self._handle, code, out.ctypes.data, out.nbytes))
        if format == "mat4":
            return out.reshape(-1, 4, 4).transpose(0, 2, 1)
        return out.reshape(-1, 3, 4) if width == 12 else out


    def gpu_palette(self, method="lbs", dqs_scale="polar", normals=False, tangents=False):
        """The palette skn's GLSL for `method` reads (skn_pose_gpu_palette): a (joints, palette_vec4s, 4)
        float32 array, the bytes to upload as they are."""
        d = _gpu_desc(method, dqs_scale, normals=normals, tangents=tangents, palette="texture-2d")
        vec4s = gpu_layout(method, normals=normals, tangents=tangents)["palette_vec4s"]
        out = numpy.empty((self.rig.joint_count, vec4s, 4), numpy.float32)
        _check(_lib.skn_pose_gpu_palette(self._handle, ctypes.byref(d), out.ctypes.data, out.nbytes))
        return out


class Gltf:
    """A glTF 2.0 document (.gltf or .glb), opened and validated: from a path, or from bytes in
    memory (a .glb, or a .gltf whose buffers are data: URIs)."""

    def __init__(self, path_or_bytes):
        self._handle = ctypes.c_void_p()
        if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(path_or_bytes)
            _check(_lib.skn_gltf_open_memory(data, len(data), ctypes.byref(self._handle)))
        else:
            _check(_lib.skn_gltf_open(str(path_or_bytes).encode(), ctypes.byref(self._handle)))
        info = _abi.GltfInfo(struct_size=ctypes.sizeof(_abi.GltfInfo))
        _check(_lib.skn_gltf_info_get(self._handle, ctypes.byref(info)))
        self.primitives = [self._primitive(i) for i in range(info.primitive_count)]
        self.animations = [self._animation(i) for i in range(info.animation_count)]
        self.skin_count, self.node_count, self.mesh_count = info.skin_count, info.node_count, info.mesh_count

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.skn_gltf_close(self._handle)
            self._handle = None

    def _primitive(self, i):
        p = _abi.GltfPrimitiveInfo(struct_size=ctypes.sizeof(_abi.GltfPrimitiveInfo))
        _check(_lib.skn_gltf_primitive_info_get(self._handle, i, ctypes.byref(p)))
        return {"mesh": p.mesh, "primitive_in_mesh": p.primitive_in_mesh, "node": p.node, "skin": p.skin,
                "vertex_count": p.vertex_count, "triangle_count": p.triangle_count, "joint_count": p.joint_count,
                "influences_per_vertex": p.influences_per_vertex, "has_normals": bool(p.flags & 1),
                "has_tangents": bool(p.flags & 2), "mesh_name": p.mesh_name.decode()}

    def _animation(self, i):
        a = _abi.GltfAnimationInfo(struct_size=ctypes.sizeof(_abi.GltfAnimationInfo))
        _check(_lib.skn_gltf_animation_info_get(self._handle, i, ctypes.byref(a)))
        return {"name": a.name.decode(), "start": a.start, "end": a.end, "channel_count": a.channel_count}

    def find_animation(self, name):
        index = ctypes.c_uint32()
        _check(_lib.skn_gltf_find_animation(self._handle, name.encode(), ctypes.byref(index)))
        return index.value

    def triangles(self, primitive=0):
        n = self.primitives[primitive]["triangle_count"] if primitive < len(self.primitives) else 0
        out = numpy.empty((n, 3), numpy.uint32)
        _check(_lib.skn_gltf_triangles(self._handle, primitive, _ptr(out, ctypes.c_uint32), out.size))
        return out

    def bind(self, primitive=0, centers_of_rotation=False, max_influences=0, min_weight=0.0, blend_weights=None,
             layout="full", max_bytes=0):
        """A Rig of a skinned primitive (centers_of_rotation: bind with its triangles, for "cor";
        layout: "full" or "compact", as Rig; max_bytes: the most binding may allocate, 0 for 2 GiB)."""
        b = None if blend_weights is None else _array(blend_weights, numpy.float32, 1, "blend_weights")
        d = _abi.GltfBindDesc(struct_size=ctypes.sizeof(_abi.GltfBindDesc), primitive=primitive,
                              centers_of_rotation=int(bool(centers_of_rotation)), max_influences=max_influences,
                              min_weight=min_weight, blend_weights=_ptr(b), layout=_layout(layout),
                              max_bytes=max_bytes)
        handle = ctypes.c_void_p()
        _check(_lib.skn_gltf_bind(self._handle, ctypes.byref(d), ctypes.byref(handle)))
        return Rig(positions=None, joints=None, weights=None, _handle=handle.value)

    def pose(self, pose, primitive=0, animation=0, time=0.0):
        """Poses `pose` (of a rig from bind(primitive)) at `time` seconds of an animation, given
        by index or name; None for the document's own node transforms."""
        if isinstance(animation, str):
            animation = self.find_animation(animation)
        index = _abi.NO_ANIMATION if animation is None else animation
        _check(_lib.skn_gltf_pose(self._handle, primitive, index, time, pose._handle))


def version():
    """The loaded library's version, "1.1.0"."""
    return __version__


def set_simd(name="auto"):
    """Chooses the kernels for the process: "auto", "scalar", "portable", "avx2" or "avx512"
    (skn.Unsupported where this CPU lacks it)."""
    _check(_lib.skn_set_simd(_abi.SIMD[name]))


def get_simd():
    """The kernels in use: "scalar", "portable", "avx2" or "avx512"."""
    code = _lib.skn_get_simd()
    return next(name for name, value in _abi.SIMD.items() if value == code)
