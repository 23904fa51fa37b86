"""The C ABI of libskn (abi/skn.h) in ctypes: structs, enums, prototypes, and
finding and checking the library. Nothing here is Pythonic; __init__.py is."""
import ctypes
import ctypes.util
import os

ABI_MAJOR = 1  # the SKN_VERSION_MAJOR this package was written for

c_float_p = ctypes.POINTER(ctypes.c_float)
c_uint32_p = ctypes.POINTER(ctypes.c_uint32)
c_int32_p = ctypes.POINTER(ctypes.c_int32)

STATUS_NAMES = [
    "SKN_OK", "SKN_ERR_INVALID_ARGUMENT", "SKN_ERR_OUT_OF_MEMORY", "SKN_ERR_INDEX_OUT_OF_RANGE",
    "SKN_ERR_BAD_HIERARCHY", "SKN_ERR_NOT_FINITE", "SKN_ERR_BAD_WEIGHTS", "SKN_ERR_SINGULAR",
    "SKN_ERR_UNSUPPORTED", "SKN_ERR_IO", "SKN_ERR_PARSE",
]
METHODS = {"lbs": 0, "lbs-quat": 1, "dqs": 2, "blend": 3, "cor": 4}
DQS_SCALES = {"polar": 0, "keep-y": 1}
WEIGHT_MODES = {"normalize": 0, "as-given": 1, "require-unit": 2}
LAYOUTS = {"full": 0, "compact": 1}
STORES = {"auto": 0, "cached": 1, "streaming": 2}
PALETTES = {"mat4": (0, 16), "rows3x4": (1, 12), "normal-rows3x4": (2, 12), "dual-quat": (3, 8),
            "dual-quat-scale": (4, 20), "dual-quat-scale-keep-y": (5, 20)}
RIG_HAS_NORMALS, RIG_HAS_TANGENTS, RIG_HAS_BLEND_WEIGHTS, RIG_HAS_CENTERS, RIG_COMPACT = 1, 2, 4, 8, 16
NO_ANIMATION = 0xFFFFFFFF
SIMD = {"auto": 0, "scalar": 1, "portable": 2, "avx2": 3, "avx512": 4}
GLSL_DIALECTS = {"330": 0, "300 es": 1, "430": 2, "310 es": 3}
GLSL_PALETTES = {"uniform-block": 0, "texture-buffer": 1, "texture-2d": 2, "storage-buffer": 3}
GPU_NORMALS, GPU_TANGENTS, GLSL_NO_VERSION = 1, 2, 1
GLSL_COMPUTE, GLSL_MORPHS, GLSL_PREVIOUS, GLSL_MORPH_PASS, GLSL_VAT_PLAYER = 2, 4, 8, 16, 32
GPU_ABSENT = 0xFFFFFFFF
GPU_NEEDS_BLEND_WEIGHTS, GPU_NEEDS_CENTERS = 1, 2
GLTF_OPEN_ANY_PATH = 1
WEIGHTS_METHODS = {"heat": 0, "closest": 1}
WEIGHTS_WELD, WEIGHTS_NON_MANIFOLD, WEIGHTS_AS_BLENDER = 1, 2, 4


_RANGES = {ctypes.c_uint32: ("uint32", 0, 2 ** 32 - 1), ctypes.c_int32: ("int32", -2 ** 31, 2 ** 31 - 1),
           ctypes.c_uint64: ("uint64", 0, 2 ** 64 - 1),
           ctypes.c_size_t: ("size_t", 0, 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1)}


class Struct(ctypes.Structure):
    """A C struct whose integer fields refuse what does not fit their C type: ctypes would keep the
    low bits (2^32 + 2 as 2), the wrong count or index without a word."""

    def __init__(self, *values, **fields):
        super().__init__()
        for (name, _), value in zip(self._fields_, values):
            setattr(self, name, value)
        for name, value in fields.items():
            setattr(self, name, value)

    def __setattr__(self, name, value):
        types = type(self).__dict__.get("_field_types")
        if types is None:  # (a class's own: made once, the first time one of its fields is set)
            types = dict(self._fields_)
            setattr(type(self), "_field_types", types)
        ctype = types.get(name)
        if ctype in _RANGES and not isinstance(value, bool) and isinstance(value, int):
            c_name, lo, hi = _RANGES[ctype]
            if not lo <= value <= hi:
                from ._args import bad
                raise bad(f"{type(self).__name__}.{name} is {value}; it must fit {c_name} ({lo} to {hi})")
        super().__setattr__(name, value)


class Attrib(Struct):
    _fields_ = [("data", ctypes.c_void_p), ("stride", ctypes.c_uint32)]


class Transform(Struct):
    _fields_ = [("translation", ctypes.c_float * 3), ("rotation", ctypes.c_float * 4), ("scale", ctypes.c_float * 3)]


class MorphTarget(Struct):
    _fields_ = [("count", ctypes.c_uint32), ("vertices", c_uint32_p), ("positions", Attrib), ("normals", Attrib),
                ("tangents", Attrib)]


class BindDesc(Struct):
    _fields_ = [
        ("struct_size", ctypes.c_uint32), ("joint_count", ctypes.c_uint32), ("parents", c_int32_p),
        ("inverse_bind_matrices", c_float_p), ("bind_matrices", c_float_p), ("rest_local", ctypes.c_void_p),
        ("vertex_count", ctypes.c_uint32), ("positions", Attrib), ("normals", Attrib), ("tangents", Attrib),
        ("influences_per_vertex", ctypes.c_uint32), ("influence_offsets", c_uint32_p),
        ("influence_joints", c_uint32_p), ("influence_weights", c_float_p), ("weight_mode", ctypes.c_uint32),
        ("max_influences", ctypes.c_uint32), ("min_weight", ctypes.c_float), ("blend_weights", c_float_p),
        ("triangles", c_uint32_p), ("triangle_count", ctypes.c_uint32), ("layout", ctypes.c_uint32),
        # 1.2
        ("morph_targets", ctypes.POINTER(MorphTarget)), ("morph_weights", c_float_p),
        ("morph_target_count", ctypes.c_uint32),
    ]


class RigInfo(Struct):
    _fields_ = [(n, ctypes.c_uint32) for n in ("struct_size", "joint_count", "vertex_count", "influence_count",
                                               "max_influences_per_vertex", "flags", "morph_target_count",
                                               "morph_entry_count")]


class SkinDesc(Struct):
    _fields_ = [
        ("struct_size", ctypes.c_uint32), ("method", ctypes.c_uint32), ("first_vertex", ctypes.c_uint32),
        ("vertex_count", ctypes.c_uint32), ("positions", Attrib), ("normals", Attrib), ("tangents", Attrib),
        ("threads", ctypes.c_uint32), ("dqs_scale", ctypes.c_uint32), ("stores", ctypes.c_uint32),
    ]


class GltfInfo(Struct):
    _fields_ = [(n, ctypes.c_uint32) for n in ("struct_size", "primitive_count", "skin_count", "animation_count",
                                               "node_count", "mesh_count")]


class GltfPrimitiveInfo(Struct):
    _fields_ = [(n, ctypes.c_uint32) for n in ("struct_size", "mesh", "primitive_in_mesh", "node", "skin",
                                               "vertex_count", "triangle_count", "joint_count",
                                               "influences_per_vertex", "flags")] + [("mesh_name", ctypes.c_char_p)] + \
        [("node_name", ctypes.c_char_p), ("morph_target_count", ctypes.c_uint32)]  # 1.2


class GltfAnimationInfo(Struct):
    _fields_ = [("struct_size", ctypes.c_uint32), ("channel_count", ctypes.c_uint32), ("start", ctypes.c_float),
                ("end", ctypes.c_float), ("name", ctypes.c_char_p)]


class GltfBindDesc(Struct):
    _fields_ = [("struct_size", ctypes.c_uint32), ("primitive", ctypes.c_uint32),
                ("centers_of_rotation", ctypes.c_uint32), ("max_influences", ctypes.c_uint32),
                ("min_weight", ctypes.c_float), ("blend_weights", c_float_p), ("layout", ctypes.c_uint32),
                ("max_bytes", ctypes.c_uint64)]


class GltfOpenDesc(Struct):
    _fields_ = [("struct_size", ctypes.c_uint32), ("path", ctypes.c_char_p), ("data", ctypes.c_void_p),
                ("size", ctypes.c_size_t), ("folder", ctypes.c_char_p), ("flags", ctypes.c_uint32)]


class WeightsDesc(Struct):
    _fields_ = [("struct_size", ctypes.c_uint32), ("method", ctypes.c_uint32), ("vertex_count", ctypes.c_uint32),
                ("positions", Attrib), ("triangle_count", ctypes.c_uint32), ("triangles", ctypes.c_void_p),
                ("bone_count", ctypes.c_uint32), ("bone_heads", c_float_p), ("bone_tails", c_float_p),
                ("bone_joints", ctypes.c_void_p), ("joint_count", ctypes.c_uint32),
                ("influences_per_vertex", ctypes.c_uint32), ("min_weight", ctypes.c_float),
                ("flags", ctypes.c_uint32), ("threads", ctypes.c_uint32)]


class GltfWeightsDesc(Struct):
    _fields_ = [(n, ctypes.c_uint32) for n in ("struct_size", "node", "primitive_in_mesh", "method",
                                               "influences_per_vertex")] + \
        [("min_weight", ctypes.c_float), ("flags", ctypes.c_uint32), ("threads", ctypes.c_uint32)]


class GpuDesc(Struct):
    _fields_ = [(n, ctypes.c_uint32) for n in ("struct_size", "method", "dqs_scale", "influences", "outputs",
                                               "dialect", "palette", "joint_count", "flags", "morph_target_count")]


class GpuLayout(Struct):
    _fields_ = [(n, ctypes.c_uint32) for n in ("struct_size", "palette_vec4s", "needs", "rest_floats", "output_floats",
                                               "output_normal", "output_tangent", "output_previous", "morph_words",
                                               "morph_vec4s")]


class GpuAttributes(Struct):
    _fields_ = [("struct_size", ctypes.c_uint32), ("influences", ctypes.c_uint32), ("joint_bits", ctypes.c_uint32)] + \
        [(n, Attrib) for n in ("joints", "weights", "blend_weights", "centers", "positions", "normals", "tangents",
                               "morph_ranges")]


class GpuBuffers(Struct):
    _fields_ = [("struct_size", ctypes.c_uint32)] + \
        [(n, ctypes.c_void_p) for n in ("rest", "influences", "morph_entries", "morph_first")] + \
        [(n, ctypes.c_size_t) for n in ("rest_bytes", "influences_bytes", "morph_entries_bytes", "morph_first_bytes")]


_P = ctypes.c_void_p
PROTOTYPES = {
    "skn_version": (ctypes.c_uint32, []),
    "skn_version_string": (ctypes.c_char_p, []),
    "skn_status_name": (ctypes.c_char_p, [ctypes.c_uint32]),
    "skn_last_error": (ctypes.c_char_p, []),
    "skn_bind": (ctypes.c_uint32, [ctypes.POINTER(BindDesc), ctypes.POINTER(_P)]),
    "skn_rig_destroy": (None, [_P]),
    "skn_rig_info_get": (ctypes.c_uint32, [_P, ctypes.POINTER(RigInfo)]),
    "skn_pose_create": (ctypes.c_uint32, [_P, ctypes.POINTER(_P)]),
    "skn_pose_destroy": (None, [_P]),
    "skn_pose_set_local": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(Transform)]),
    "skn_pose_set_model": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.c_uint32, c_float_p]),
    "skn_pose_palette": (ctypes.c_uint32, [_P, ctypes.c_uint32, _P, ctypes.c_size_t]),
    "skn_skin": (ctypes.c_uint32, [_P, _P, ctypes.POINTER(SkinDesc)]),
    "skn_gltf_open": (ctypes.c_uint32, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "skn_gltf_close": (None, [_P]),
    "skn_gltf_info_get": (ctypes.c_uint32, [_P, ctypes.POINTER(GltfInfo)]),
    "skn_gltf_primitive_info_get": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.POINTER(GltfPrimitiveInfo)]),
    "skn_gltf_animation_info_get": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.POINTER(GltfAnimationInfo)]),
    "skn_gltf_find_animation": (ctypes.c_uint32, [_P, ctypes.c_char_p, c_uint32_p]),
    "skn_gltf_triangles": (ctypes.c_uint32, [_P, ctypes.c_uint32, c_uint32_p, ctypes.c_size_t]),
    "skn_gltf_bind": (ctypes.c_uint32, [_P, ctypes.POINTER(GltfBindDesc), ctypes.POINTER(_P)]),
    "skn_gltf_pose": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_float, _P]),
    "skn_set_simd": (ctypes.c_uint32, [ctypes.c_uint32]),
    "skn_get_simd": (ctypes.c_uint32, []),
    # 1.1
    "skn_set_error": (ctypes.c_uint32, [ctypes.c_uint32, ctypes.c_char_p]),
    "skn_glsl_source": (ctypes.c_uint32, [ctypes.POINTER(GpuDesc), ctypes.c_void_p, ctypes.c_size_t,
                                          ctypes.POINTER(ctypes.c_size_t)]),
    "skn_gpu_layout_get": (ctypes.c_uint32, [ctypes.POINTER(GpuDesc), ctypes.POINTER(GpuLayout)]),
    "skn_pose_gpu_palette": (ctypes.c_uint32, [_P, ctypes.POINTER(GpuDesc), _P, ctypes.c_size_t]),
    "skn_rig_gpu_attributes": (ctypes.c_uint32, [_P, ctypes.POINTER(GpuAttributes)]),
    "skn_gltf_open_memory": (ctypes.c_uint32, [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(_P)]),
    # 1.2
    "skn_pose_set_morph_weights": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.c_uint32, c_float_p]),
    "skn_pose_morph_weights": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.c_uint32, c_float_p]),
    "skn_gltf_morph_target_name": (ctypes.c_uint32, [_P, ctypes.c_uint32, ctypes.c_uint32,
                                                      ctypes.POINTER(ctypes.c_char_p)]),
    # 1.3
    "skn_gltf_open_with": (ctypes.c_uint32, [ctypes.POINTER(GltfOpenDesc), ctypes.POINTER(_P)]),
    # 1.4
    "skn_rig_gpu_buffers": (ctypes.c_uint32, [_P, ctypes.POINTER(GpuDesc), ctypes.POINTER(GpuBuffers)]),
    # 1.5
    "skn_compute_weights": (ctypes.c_uint32, [ctypes.POINTER(WeightsDesc), _P, _P]),
    "skn_gltf_compute_weights": (ctypes.c_uint32, [_P, ctypes.POINTER(GltfWeightsDesc), _P, _P, ctypes.c_size_t,
                                                    ctypes.POINTER(ctypes.c_uint32)]),
}


def candidates():
    """Where the library may be, in order: $SKN_LIBRARY, beside this package (a wheel's, the add-on's,
    the build tree's build/python), the prefix the package was installed to (PREFIX/lib beside
    PREFIX/lib/pythonX.Y/site-packages/skn: `make install`, pip --prefix), the source tree this file
    lives in (plugins/python/skn -> build/), then the system's search path."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = [os.environ.get("SKN_LIBRARY"), os.path.join(here, "libskn.so.1"),
             os.path.join(here, "..", "..", "..", "libskn.so.1"),
             os.path.join(here, "..", "..", "..", "build", "libskn.so.1")]
    found = [os.path.normpath(p) if p != os.environ.get("SKN_LIBRARY") else p for p in found if p]
    return [p for p in found if os.path.exists(p) or p == os.environ.get("SKN_LIBRARY")] + \
        [ctypes.util.find_library("skn") or "libskn.so.1"]


def check_version(number, where):
    """Refuses a library of another ABI major than this package's."""
    if number // 10000 != ABI_MAJOR:
        raise ImportError(f"skn: {where} is libskn {number // 10000}.{number // 100 % 100}.{number % 100}, "
                          f"but this package needs ABI {ABI_MAJOR}.x; install a matching libskn or set SKN_LIBRARY")


def load():
    errors = []
    for path in candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        for name, (restype, argtypes) in PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        check_version(lib.skn_version(), path)
        return lib, path
    raise ImportError("skn: cannot load libskn.so.1 (set SKN_LIBRARY to its path): " + "; ".join(errors))
