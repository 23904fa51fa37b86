"""The package's ctypes declarations (skn/_abi.py) against abi/skn.h as the
compiler lays it out (build/abi/layouts.txt, written by scripts/abi_layouts):
every struct the package declares, field by field (name, offset, size), every
enum constant its tables name, every prototype's parameter count and kinds.
Whatever of the header the package leaves out is listed here with the reason,
so a field or a call added to the header and not to the package fails."""
import ctypes
import os
import unittest

from skn import _abi

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUTS = os.environ.get("SKN_LAYOUTS", os.path.join(HERE, "..", "..", "..", "build", "abi", "layouts.txt"))

STRUCTS = {
    "skn_attrib": _abi.Attrib, "skn_out_attrib": _abi.Attrib, "skn_transform": _abi.Transform,
    "skn_bind_desc": _abi.BindDesc, "skn_rig_info": _abi.RigInfo, "skn_skin_desc": _abi.SkinDesc,
    "skn_morph_target": _abi.MorphTarget,
    "skn_gltf_info": _abi.GltfInfo, "skn_gltf_primitive_info": _abi.GltfPrimitiveInfo,
    "skn_gltf_animation_info": _abi.GltfAnimationInfo, "skn_gltf_bind_desc": _abi.GltfBindDesc,
    "skn_gltf_open_desc": _abi.GltfOpenDesc,
    "skn_gpu_desc": _abi.GpuDesc, "skn_gpu_layout": _abi.GpuLayout, "skn_gpu_attributes": _abi.GpuAttributes,
    "skn_gpu_buffers": _abi.GpuBuffers, "skn_weights_desc": _abi.WeightsDesc,
    "skn_gltf_weights_desc": _abi.GltfWeightsDesc,
}
LEFT_OUT_STRUCTS = {
    "skn_allocator": "a host's allocator is C code; Python's memory is the interpreter's",
    "skn_api": "ctypes finds each call by its name; the table is for C hosts that dlopen",
}
LEFT_OUT_FUNCTIONS = {
    "skn_set_allocator": "as skn_allocator",
    "skn_get_api": "as skn_api",
}
# The package's name tables, each the whole of one enum (FORCE_U32 aside).
ENUMS = {
    "skn_method": list(_abi.METHODS.values()), "skn_dqs_scale": list(_abi.DQS_SCALES.values()),
    "skn_weight_mode": list(_abi.WEIGHT_MODES.values()), "skn_bind_layout": list(_abi.LAYOUTS.values()),
    "skn_palette_format": [v[0] for v in _abi.PALETTES.values()], "skn_simd": list(_abi.SIMD.values()),
    "skn_glsl_dialect": list(_abi.GLSL_DIALECTS.values()), "skn_glsl_palette": list(_abi.GLSL_PALETTES.values()),
    "skn_status": list(range(len(_abi.STATUS_NAMES))), "skn_stores": list(_abi.STORES.values()),
    "skn_weights_method": list(_abi.WEIGHTS_METHODS.values()),
}
CONSTANTS = {
    "SKN_RIG_HAS_NORMALS": _abi.RIG_HAS_NORMALS, "SKN_RIG_HAS_TANGENTS": _abi.RIG_HAS_TANGENTS,
    "SKN_RIG_HAS_BLEND_WEIGHTS": _abi.RIG_HAS_BLEND_WEIGHTS, "SKN_RIG_HAS_CENTERS_OF_ROTATION": _abi.RIG_HAS_CENTERS,
    "SKN_RIG_COMPACT": _abi.RIG_COMPACT, "SKN_GPU_NORMALS": _abi.GPU_NORMALS, "SKN_GPU_TANGENTS": _abi.GPU_TANGENTS,
    "SKN_GLSL_NO_VERSION": _abi.GLSL_NO_VERSION, "SKN_GPU_NEEDS_BLEND_WEIGHTS": _abi.GPU_NEEDS_BLEND_WEIGHTS,
    "SKN_GPU_NEEDS_CENTERS": _abi.GPU_NEEDS_CENTERS, "SKN_GLTF_NO_ANIMATION": _abi.NO_ANIMATION,
    "SKN_VERSION_MAJOR": _abi.ABI_MAJOR, "SKN_GLTF_OPEN_ANY_PATH": _abi.GLTF_OPEN_ANY_PATH,
    "SKN_GLSL_COMPUTE": _abi.GLSL_COMPUTE, "SKN_GLSL_MORPHS": _abi.GLSL_MORPHS, "SKN_GLSL_PREVIOUS": _abi.GLSL_PREVIOUS,
    "SKN_GLSL_MORPH_PASS": _abi.GLSL_MORPH_PASS, "SKN_GLSL_VAT_PLAYER": _abi.GLSL_VAT_PLAYER,
    "SKN_GPU_ABSENT": _abi.GPU_ABSENT,
    "SKN_WEIGHTS_WELD": _abi.WEIGHTS_WELD, "SKN_WEIGHTS_NON_MANIFOLD": _abi.WEIGHTS_NON_MANIFOLD,
    "SKN_WEIGHTS_AS_BLENDER": _abi.WEIGHTS_AS_BLENDER,
}
LEFT_OUT_CONSTANTS = {
    "SKN_GLTF_HAS_NORMALS": "the package reads a primitive's flags through skn_gltf_primitive_info as a number",
    "SKN_GLTF_HAS_TANGENTS": "as SKN_GLTF_HAS_NORMALS",
    "SKN_VERSION_MINOR": "the package checks the major only (a minor adds, never changes)",
    "SKN_VERSION_PATCH": "as SKN_VERSION_MINOR",
}
# A ctypes type as the kinds layouts.txt gives.
KINDS = {ctypes.c_uint32: "u32", ctypes.c_int32: "i32", ctypes.c_uint64: "u64", ctypes.c_float: "f32",
         ctypes.c_size_t: "size", ctypes.c_char_p: "str", ctypes.c_void_p: "ptr", None: "void"}


def kind(t):
    if t in KINDS:
        return KINDS[t]
    if isinstance(t, type) and issubclass(t, ctypes._Pointer):
        return "ptr"
    raise AssertionError(f"no kind for {t}")


def read_layouts():
    structs, fields, enums, functions, consts = {}, {}, {}, {}, {}
    with open(LAYOUTS) as f:
        for line in f:
            w = line.split()
            if w[0] == "struct":
                structs[w[1]] = (int(w[2]), int(w[3]))
                fields[w[1]] = []
            elif w[0] == "field":
                fields[w[1]].append((w[2], int(w[3]), int(w[4]), w[5]))
            elif w[0] == "enum":
                enums.setdefault(w[1], {})[w[2]] = int(w[3])
            elif w[0] == "function":
                functions[w[1]] = (w[2], [] if w[3] == "-" else w[3:])
            elif w[0] == "const":
                consts[w[1]] = int(w[2])
    return structs, fields, enums, functions, consts


class Layouts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.structs, cls.fields, cls.enums, cls.functions, cls.consts = read_layouts()

    def test_every_struct_declared_or_left_out(self):
        self.assertEqual(set(self.structs), set(STRUCTS) | set(LEFT_OUT_STRUCTS))

    def test_struct_layouts(self):
        for name, cls in STRUCTS.items():
            with self.subTest(struct=name):
                self.assertEqual(ctypes.sizeof(cls), self.structs[name][0], "sizeof")
                self.assertEqual(ctypes.alignment(cls), self.structs[name][1], "alignment")
                ours = [(n, getattr(cls, n).offset, getattr(cls, n).size) for n, _ in cls._fields_]
                theirs = [(n, off, size) for n, off, size, _ in self.fields[name]]
                self.assertEqual(ours, theirs)

    def test_enums(self):
        for name, values in ENUMS.items():
            with self.subTest(enum=name):
                header = sorted(v for c, v in self.enums[name].items() if not c.endswith("FORCE_U32"))
                self.assertEqual(sorted(values), header)
        flags = self.enums["-"]
        for c, v in CONSTANTS.items():
            self.assertEqual(v, flags[c] if c in flags else self.consts[c], c)
        named = set(ENUMS) | {"-"}
        self.assertEqual(set(self.enums), named, "an enum the package has no table for")
        self.assertEqual(set(flags) | set(self.consts), set(CONSTANTS) | set(LEFT_OUT_CONSTANTS))
        self.assertEqual(_abi.STATUS_NAMES, list(self.enums["skn_status"])[:len(_abi.STATUS_NAMES)])

    def test_prototypes(self):
        self.assertEqual(set(self.functions), set(_abi.PROTOTYPES) | set(LEFT_OUT_FUNCTIONS))
        for name, (ret, params) in _abi.PROTOTYPES.items():
            with self.subTest(function=name):
                # the handles' C types are opaque pointers; an enum is passed as its u32
                self.assertEqual(kind(ret), self.functions[name][0])
                self.assertEqual([kind(p) for p in params], self.functions[name][1])


if __name__ == "__main__":
    unittest.main()
