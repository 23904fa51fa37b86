"""GPU (viewport) mode: the vertex shader skins, Blender's mesh never moves.

At the first draw after Bind, a bound object's rest mesh and skn's per-vertex
inputs (skn_rig_gpu_attributes: joints, weights, and Blend's b or Centers of
Rotation's centers) go to the GPU once, as one `gpu` batch. Per pose change
the add-on poses the rig on the CPU (a few microseconds a bone) and uploads
only the palette (skn_pose_gpu_palette): a uniform block where it fits in
this GL's GL_MAX_UNIFORM_BLOCK_SIZE (64 KB on desktop GPUs and llvmpipe, 16
KB at least), else a float texture, which a software rasterizer reads
slower. Shape keys are skn's morph targets on the GPU
too (Morphs): their sparse offsets go up once, their values per pose. The
shader is skn's GLSL (skn_glsl_source,
the same arithmetic as the CPU kernels) under a small main, and a fragment
stage lit like Blender's solid mode: studio lights fixed to the view over a
grey base.

Nothing here touches Blender's data: modes.py decides when an object is drawn
this way and hides Blender's own draw of it (Display As: Bounds).
"""
import copy
import ctypes
import ctypes.util
import sys

import gpu
import numpy
from mathutils import Matrix

from . import core, skn

UNIFORM_BLOCK_BYTES = 16384  # GL_MAX_UNIFORM_BLOCK_SIZE is at least this (OpenGL 3.3, table 6.43)
GL_MAX_UNIFORM_BLOCK_SIZE = 0x8A30
TEXTURE_WIDTH = 1024         # texels a row of a texture palette (every GL allows 1024)
SOFTWARE_DRAW_TRIANGLES = 8192  # triangles a draw on a software rasterizer (TriangleBatch)
BASE_COLOR = (0.8, 0.8, 0.8, 1.0)  # Blender's default solid-mode material colour

# The vertex stage after skn's functions (vertex_main): the rest position and normal in the rig's
# space, the shape keys added (Morphs), skinned, the mask's share of the motion kept, then to clip
# space and to view space for the lights.
MAIN_INPUTS = """
uniform mat4 viewport_model_view;    // rig space -> view space
uniform mat4 viewport_projection;
uniform mat3 viewport_normal_matrix; // the inverse transpose of model_view's 3x3
in vec3 position;
in vec3 normal;
out vec3 viewport_normal;
"""

MORPH_INPUTS = """
uniform sampler2D viewport_morph_entries; // an entry in 2 texels: (dv, the key), (dn, 0)
uniform sampler2D viewport_morph_weights; // key k's weight in texel k's red
in uvec2 viewport_morph_range;            // the vertex's entries: first, count

vec4 viewport_texel(sampler2D t, int i) {
  int width = textureSize(t, 0).x;
  return texelFetch(t, ivec2(i % width, i / width), 0);
}
"""

MORPH = """
  for (uint i = 0u; i < viewport_morph_range.y; ++i) {
    int e = 2 * int(viewport_morph_range.x + i);
    vec4 dv = viewport_texel(viewport_morph_entries, e);
    float w = viewport_texel(viewport_morph_weights, int(dv.w)).r;
    rest += w * dv.xyz;
    rest_normal += w * viewport_texel(viewport_morph_entries, e + 1).xyz;
  }"""

MASK = """
  p = mix(rest, p, viewport_mask);  // the modifier's mask scales the motion (notes/blender-deform.md §4)
  n = mix(rest_normal, n, viewport_mask);"""


def vertex_main(skinned=True, morphs=False, mask=False):
    """The GLSL main after skn's functions: skinned by them, or (not `skinned`) the mesh drawn as
    given (the tests' reference, skinned on the CPU); with the shape keys (`morphs`) and the
    Vertex Group mask (`mask`: the vertex input viewport_mask, 1 where it moves fully)."""
    return (MAIN_INPUTS + (MORPH_INPUTS if morphs else "") + ("in float viewport_mask;\n" if mask else "") +
            "\nvoid main() {\n  vec3 rest = position, rest_normal = normal;" + (MORPH if morphs else "") +
            ("\n  vec3 p = skn_skin_position(rest), n = skn_skin_normal(rest_normal);" if skinned else
             "\n  vec3 p = rest, n = rest_normal;") + (MASK if mask else "") +
            "\n  viewport_normal = viewport_normal_matrix * n;"
            "\n  gl_Position = viewport_projection * (viewport_model_view * vec4(p, 1.0));\n}\n")


# Solid mode's look: a key light above left of the viewer, a fill from the right and an ambient
# term, fixed to the view; both sides of a face lit (Blender draws them so).
FRAGMENT = """
uniform vec4 viewport_base_color;
in vec3 viewport_normal;
out vec4 viewport_color;

void main() {
  vec3 n = normalize(gl_FrontFacing ? viewport_normal : -viewport_normal);
  float key = max(dot(n, normalize(vec3(-0.4, 0.6, 0.7))), 0.0);
  float fill = max(dot(n, normalize(vec3(0.6, -0.2, 0.5))), 0.0);
  viewport_color = vec4(viewport_base_color.rgb * (0.25 + 0.65 * key + 0.2 * fill), viewport_base_color.a);
}
"""


_block_limit = [None]  # this GL's GL_MAX_UNIFORM_BLOCK_SIZE, once asked (uniform_block_limit)
_gl = [None]


def uniform_block_limit():
    """The bytes a uniform block may hold in the GL Blender draws with. Blender 3.4's gpu module
    does not say, so it is asked of the OpenGL library (glGetIntegerv) while a context is current
    (a draw callback's or an offscreen's); 16384, the least any GL offers, where it cannot be
    asked. Drawing lowers it where a shader with a larger block does not link."""
    if _block_limit[0] is None:
        asked = _gl_integer(GL_MAX_UNIFORM_BLOCK_SIZE)
        if asked is None:
            return UNIFORM_BLOCK_BYTES  # (not kept: asked again at the next drawing)
        _block_limit[0] = max(UNIFORM_BLOCK_BYTES, min(asked, 1 << 20))
    return _block_limit[0]


def _gl_integer(name):
    """glGetIntegerv(name) of the current GL context, or None (no GL library, no context)."""
    try:
        if _gl[0] is None:
            path = {"win32": "opengl32", "darwin": "/System/Library/Frameworks/OpenGL.framework/OpenGL"}.get(
                sys.platform) or ctypes.util.find_library("GL") or "libGL.so.1"
            lib = ctypes.CDLL(path)
            lib.glGetIntegerv.argtypes, lib.glGetIntegerv.restype = (ctypes.c_uint, ctypes.POINTER(ctypes.c_int)), None
            _gl[0] = lib
        value = ctypes.c_int(0)
        _gl[0].glGetIntegerv(name, ctypes.byref(value))
    except (OSError, AttributeError):
        return None
    return value.value if value.value >= UNIFORM_BLOCK_BYTES else None  # (0: no context current)


def palette_bytes(joints, method):
    """The bytes of `method`'s palette for `joints` joints, with the normals' matrices GPU mode draws by."""
    return joints * skn.gpu_layout(core.METHODS[core.method_key(method)], normals=True)["palette_vec4s"] * 16


def palette_kind(joints, method):
    """"uniform-block" where the palette fits this GL's uniform blocks, else "texture-2d"."""
    return "uniform-block" if palette_bytes(joints, method) <= uniform_block_limit() else "texture-2d"


def hilbert_codes(points, bits=10):
    """Each point's index along a 3-D Hilbert curve through a 2^bits grid over the points' bounding
    cube (int64; bits <= 20). Skilling's transpose form (J. Skilling, "Programming the Hilbert curve",
    AIP Conf. Proc. 707, 381, 2004): the grid coordinates' bits, undone from the top bit down
    (invert or exchange against x), Gray-coded, then interleaved x, y, z from the top bit. Points
    next to each other on the curve are in neighbouring cells: the curve never jumps (Morton's does)."""
    p = numpy.asarray(points, numpy.float64).reshape(-1, 3)
    if not len(p):
        return numpy.zeros(0, numpy.int64)
    lo = p.min(axis=0)
    span = max(float((p.max(axis=0) - lo).max()), 1e-30)
    x = [c.copy() for c in numpy.minimum((p - lo) / span * (1 << bits), (1 << bits) - 1).astype(numpy.int64).T]
    q = 1 << (bits - 1)
    while q > 1:  # undo the excess work, top bit first
        low = q - 1
        for i in range(3):
            high = (x[i] & q) != 0
            x[0] ^= numpy.where(high, low, 0)               # invert x's low bits
            swap = numpy.where(high, 0, (x[0] ^ x[i]) & low)
            x[0] ^= swap                                     # or exchange them with this axis's
            x[i] ^= swap
        q >>= 1
    x[1] ^= x[0]  # Gray encode
    x[2] ^= x[1]
    t = numpy.zeros_like(x[0])
    q = 1 << (bits - 1)
    while q > 1:
        t ^= numpy.where((x[2] & q) != 0, q - 1, 0)
        q >>= 1
    code = numpy.zeros_like(x[0])
    for bit in range(bits - 1, -1, -1):
        for i in range(3):
            code = (code << 1) | (((x[i] ^ t) >> bit) & 1)
    return code


def locality_order(positions, triangles, bits=10):
    """The triangles in drawing order, and the vertices a batch holds: (vertices, triangles), where
    vertices[k] is the mesh vertex that the batch's vertex k is, and triangles index the batch.

    Mesa's llvmpipe shades a vertex once per window of 1,024 indices (341 triangles), so a mesh's
    own face order, which comes back to a vertex a row of faces later, shades it about twice.
    Drawn along a Hilbert curve through their centroids, the triangles of a window lie together
    and share their vertices; numbered in the order the triangles first use them, the vertices
    are read in order too. Vertices no triangle uses are not drawn, so the batch leaves them out.
    (Measured with GL_VERTEX_SHADER_INVOCATIONS on `make bench-blender`'s tube: 2.02 shaded a
    vertex in face order, 1.42 in this order; a GPU, which reuses within batches of a few dozen
    vertices, shades 2.48 where the face order gives 2.16: see drawing_order.)"""
    tris = numpy.asarray(triangles, numpy.int64).reshape(-1, 3)
    if not len(tris):
        return numpy.arange(len(positions)), tris.astype(numpy.uint32)
    p = numpy.asarray(positions, numpy.float64)
    tris = tris[numpy.argsort(hilbert_codes((p[tris[:, 0]] + p[tris[:, 1]] + p[tris[:, 2]]) / 3, bits),
                              kind="stable")]
    flat = tris.ravel()
    _, first = numpy.unique(flat, return_index=True)
    vertices = flat[numpy.sort(first)]  # in the order of first use
    index = numpy.empty(len(p), numpy.int64)
    index[vertices] = numpy.arange(len(vertices))
    return vertices, index[tris].astype(numpy.uint32)


def drawing_order(positions, triangles, software):
    """(vertices, triangles) as locality_order gives them, for a batch drawn on a software
    rasterizer (`software`: llvmpipe, what a machine without a GPU, a VM or CI draws with), and
    the mesh's own order, every vertex, on a GPU, whose post-transform reuse the face order suits
    better. Measured on the tube of `make bench-blender` (1,000,000 vertices): in Blender on
    llvmpipe the Hilbert order makes a GPU-mode frame 10-16% shorter; on an NVIDIA H200 (skn
    bench's EGL harness) it makes the skinning draw 3% longer."""
    if software:
        return locality_order(positions, triangles)
    return numpy.arange(len(positions)), numpy.asarray(triangles, numpy.uint32).reshape(-1, 3)


def vertex_format(extra=()):
    """position and normal (vec3), then `extra` as (name, comp_type, len, fetch_mode)."""
    return inputs_format((("position", "F32", 3, "FLOAT"), ("normal", "F32", 3, "FLOAT")) + tuple(extra))


def inputs_format(inputs):
    """A vertex format of `inputs`, each (name, comp_type, len, fetch_mode)."""
    fmt = gpu.types.GPUVertFormat()
    for name, comp, length, fetch in inputs:
        fmt.attr_add(id=name, comp_type=comp, len=length, fetch_mode=fetch)
    return fmt


def vertex_buffer(fmt, count, arrays):
    vbo = gpu.types.GPUVertBuf(fmt, count)
    for name, a in arrays.items():
        vbo.attr_fill(name, numpy.ascontiguousarray(a))
    return vbo


class TriangleBatch:
    """`count` vertices in format `fmt`, each input filled from arrays[name], drawn as the (t, 3)
    triangles given: one vertex buffer, and one `gpu` batch per SOFTWARE_DRAW_TRIANGLES triangles
    on a software rasterizer (`software`), else one batch for all. draw(shader) draws them in order.
    `inputs`: a second vertex buffer of the same vertices, (fmt, arrays) as the first: what changes
    where the first does not (skn's influences, beside the rest mesh), which with_inputs replaces
    while the first buffer and the triangles stay on the GPU.

    Why more than one draw: on Mesa's llvmpipe in Blender, 2,000,000 triangles drawn as 244 draws
    of 8,192 take about 100 ms less a frame than as one (`make bench-blender`'s 1,000,000-vertex
    tube, GPU mode and the plain draw alike; 1,023 to 8,192 a draw much the same, 65,536 half way).
    A profile of the one draw spends a quarter of Blender's main thread in the kernel, faulting in
    fresh pages that Blender's allocator (jemalloc) had just given back; the split draws do not
    churn so. A GPU takes one draw (Drawing.software decides)."""

    def __init__(self, fmt, count, arrays, triangles, software=False, inputs=None):
        self.vbo, self.count = vertex_buffer(fmt, count, arrays), count
        t = numpy.ascontiguousarray(triangles, numpy.uint32).reshape(-1, 3)
        self.triangles = len(t)
        step = SOFTWARE_DRAW_TRIANGLES if software else max(len(t), 1)
        self.elems = [gpu.types.GPUIndexBuf(type="TRIS", seq=t[i:i + step]) for i in range(0, len(t), step)]
        self.batches = self._batches(inputs)

    def _batches(self, inputs):
        extra = vertex_buffer(inputs[0], self.count, inputs[1]) if inputs is not None else None
        batches = []
        for elem in self.elems:
            batch = gpu.types.GPUBatch(type="TRIS", buf=self.vbo, elem=elem)
            if extra is not None:
                batch.vertbuf_add(extra)
            batches.append(batch)
        return batches

    def with_inputs(self, fmt, arrays):
        """These vertices and triangles with other second-buffer inputs: a new batch a draw, the
        first buffer and the index buffers shared."""
        other = copy.copy(self)
        other.batches = self._batches((fmt, arrays))
        return other

    def draw(self, shader):
        for batch in self.batches:
            batch.draw(shader)


def plain_batch(positions, normals, triangles, software=False):
    """A mesh skinned elsewhere (float32 positions and normals), for plain_shader(), in draws as
    a batch for `software` (TriangleBatch)."""
    return TriangleBatch(vertex_format(), len(positions), {"position": positions, "normal": normals}, triangles,
                         software)


def draw_batch(shader, batch, model_view, projection, color=BASE_COLOR, cull=False, mirrored=False):
    """Draws `batch` lit by FRAGMENT, depth-tested, back faces culled where `cull` (the viewport's
    Backface Culling), with the matrices given (mathutils or numpy). `mirrored`: the object's
    matrix has a negative determinant (scaled -1 on an axis, as a mirrored copy is), which turns
    its faces' winding on the screen; its front faces are then the clockwise ones, as Blender
    draws such an object, so that culling and two-sided lighting (gl_FrontFacing) see the faces
    the object's normals face."""
    model_view = Matrix(numpy.asarray(model_view, numpy.float64).tolist())
    shader.bind()
    shader.uniform_float("viewport_model_view", model_view)
    shader.uniform_float("viewport_projection", Matrix(numpy.asarray(projection, numpy.float64).tolist()))
    shader.uniform_float("viewport_normal_matrix", model_view.to_3x3().inverted_safe().transposed())
    shader.uniform_float("viewport_base_color", color)
    gpu.state.depth_test_set("LESS_EQUAL")
    gpu.state.depth_mask_set(True)
    gpu.state.face_culling_set("BACK" if cull else "NONE")
    gpu.state.front_facing_set(bool(mirrored))
    batch.draw(shader)
    gpu.state.front_facing_set(False)
    gpu.state.face_culling_set("NONE")
    gpu.state.depth_test_set("NONE")


def is_mirrored(obj):
    """Whether obj's matrix turns its faces' winding (a negative determinant): what Blender's own
    draw flips front faces for. The rig's space does not decide it: a rig bound in the armature's
    space holds the object's reflection in its rest mesh (premat), drawn by the armature's matrix."""
    return core.mirrors(core.matrix(obj.matrix_world))


def plain_shader():
    return gpu.types.GPUShader(vertex_main(skinned=False), FRAGMENT, name="skn_plain")


GPU_INFLUENCES = core.GPU_INFLUENCES  # skn's GLSL reads 4, 8, 12 or 16 influences a vertex


def gpu_influences(rig):
    """4, 8, 12 or 16: the influences a vertex the widest shader reads for `rig`, its most rounded
    up to four (B-Bones split a bone's weight between two segments, so 4 bones a vertex can be 8
    joints; a Rigify human has up to 13)."""
    return min(GPU_INFLUENCES, max(4, (rig.max_influences_per_vertex + 3) // 4 * 4))


def slot_classes(weights, triangles):
    """Each triangle's slots, 4, 8, 12 or 16: the most influences any of its corners uses, rounded
    up to four. `weights` (n, k) are the vertices' as skn_rig_gpu_attributes writes them, a
    vertex's own first, then weight 0. A vertex shader reads every slot it declares, so a mesh
    whose few vertices need 16 (a Rigify human's B-Bone joints) draws the rest with fewer."""
    used = numpy.asarray(weights) != 0
    last = (used * numpy.arange(1, used.shape[1] + 1, dtype=numpy.uint8)).max(axis=1, initial=0)  # last used + 1
    slots = numpy.maximum(4, (last.astype(numpy.int64) + 3) // 4 * 4)
    tris = numpy.asarray(triangles).reshape(-1, 3)  # corner by corner: 7x faster than slots[tris].max(axis=1)
    return numpy.maximum(numpy.maximum(slots[tris[:, 0]], slots[tris[:, 1]]), slots[tris[:, 2]])


class Drawing:
    """One bound object drawn by `method`: its shaders, its batches, and its palette on the GPU.
    Made in a GL context (a draw callback's, or an offscreen's); freed with it by Python.

    The triangles are drawn in parts by their slots (slot_classes), each part a batch of the
    vertices its triangles use and a shader that reads as many influences: a vertex stage's
    cost grows with the influences it reads (`skn bench --gpu`'s viewport frames on an NVIDIA
    H200: 4.27 ms of skinning per million vertices with 8 slots against 1.88 with 4), so a mesh
    draws each vertex with no more slots than its triangles need."""

    def __init__(self, binding, method, software=None):
        if not binding.serves(method, normals=True):
            raise ValueError("this binding cannot be drawn on the GPU: bind again")
        rig = binding.rig
        self.method, self.kind = core.method_key(method), core.METHODS[core.method_key(method)]
        self.influences = gpu_influences(rig)
        self.morphs = Morphs(binding.morphs, binding.vertex_count) if binding.morphs else None
        self.mask = binding.mask
        self.palette = palette_kind(rig.joint_count, method)
        self.shaders = {}  # slots -> shader, the widest made first, the others as parts need them
        try:
            self.shaders[self.influences] = self._shader(rig, self.influences)
        except Exception:  # a block past 16 KB that this GL does not link after all: the texture, from now on
            if self.palette != "uniform-block" or palette_bytes(rig.joint_count, method) <= UNIFORM_BLOCK_BYTES:
                raise
            _block_limit[0], self.palette = UNIFORM_BLOCK_BYTES, "texture-2d"
            self.shaders[self.influences] = self._shader(rig, self.influences)
        # the triangles' order for a software rasterizer or a GPU (drawing_order)
        self.software = gpu.platform.device_type_get() == "SOFTWARE" if software is None else software
        self._order = None  # drawing_order's (vertices, triangles): the rest mesh's, kept
        self._split = None  # the parts' classes and their vertices (_split_parts), kept while they hold
        self._rest = None  # (split, rest mesh inputs) the parts' first buffers hold (_parts)
        self.parts, self.rig = self._parts(binding), rig
        self._ubo = self._texture = None
        self.pose_key = None  # the bone matrices (and shape keys) the palette on the GPU was made from

    def _shader(self, rig, influences):
        text = skn.glsl_source(self.kind, dqs_scale=core.dqs_scale(self.kind), normals=True, palette=self.palette,
                               influences=influences,
                               joint_count=rig.joint_count, version_line=False)  # Blender writes #version
        main = vertex_main(morphs=self.morphs is not None, mask=self.mask is not None)
        return gpu.types.GPUShader(text + main, FRAGMENT, name=f"skn_{self.kind}")

    def rebound(self, binding):
        """This drawing for the binding's new rig where only its influences changed (a shape key
        moving B-Bone-weighted points: Binding._bind's refresh): the shaders kept, the parts made
        again in the same order and split (_split_parts); None where the widest shader no longer
        fits (more influences a vertex)."""
        rig = binding.rig
        if rig is None or gpu_influences(rig) != self.influences or palette_kind(rig.joint_count, self.method) != self.palette:
            return None
        self.parts, self.rig, self.pose_key = self._parts(binding), rig, None
        return self

    def _parts(self, binding):
        """[(slots, TriangleBatch)]: the rest mesh and skn's inputs in drawing order, split by
        the triangles' slots, each part's joints and weights as many a vertex. Each part holds two
        vertex buffers: the rest mesh (positions, normals, the shape keys' ranges, the mask), and
        what the rig gives the shader (joints, weights, Blend's b, Centers of Rotation's centers).
        A rig bound again with the same rest and split (rebound) makes only the second again:
        on the Rigify human's frame (a keyed key moving B-Bone-weighted points), the rest mesh
        was most of the batches' bytes made again each frame."""
        a = binding.rig.gpu_attributes(self.influences)  # the influences as the rig skins them, rest mesh too
        varying = {"blend": [("skn_blend", "F32", 1, "FLOAT", "blend_weights")],
                   "cor": [("skn_center", "F32", 4, "FLOAT", "centers")]}.get(self.kind, [])
        fixed = []
        if self.morphs is not None:
            fixed.append(("viewport_morph_range", "U32", 2, "INT", "morph_range"))  # uvec2
            a["morph_range"] = self.morphs.ranges
        if self.mask is not None:
            fixed.append(("viewport_mask", "F32", 1, "FLOAT", "mask"))
            a["mask"] = numpy.asarray(self.mask, numpy.float32)
        if self._order is None:
            self._order = drawing_order(a["positions"], binding.triangles, self.software)
        vertices, triangles = self._order
        rest = dict((name, a[key]) for name, _, _, _, key in fixed)
        rest.update(position=a["positions"], normal=a["normals"])
        split = self._split_parts(slot_classes(a["weights"][vertices], triangles), triangles)
        kept = self.parts if self._rest is not None and self._rest[0] is split and \
            all(numpy.array_equal(rest[k], self._rest[1][k]) for k in rest) else None  # (with modifiers above it moves)
        parts = []
        for n, (slots, used, local) in enumerate(split):
            rows = vertices[used]  # the part's vertices, as the rig numbers them
            inputs, formats = {}, []
            for k in range(0, slots, 4):  # skn_joints0 the first four, skn_joints1 the next
                inputs[f"skn_joints{k // 4}"] = a["joints"][rows, k:k + 4]
                inputs[f"skn_weights{k // 4}"] = a["weights"][rows, k:k + 4]
                formats += [(f"skn_joints{k // 4}", "U16", 4, "INT"), (f"skn_weights{k // 4}", "F32", 4, "FLOAT")]
            for name, comp, length, fetch, key in varying:
                inputs[name] = a[key][rows]
                formats.append((name, comp, length, fetch))
            if slots not in self.shaders:
                self.shaders[slots] = self._shader(binding.rig, slots)
            fmt = inputs_format(formats)  # uvec4 joints in the shader
            if kept is not None:
                batch = kept[n][1].with_inputs(fmt, inputs)
            else:
                batch = TriangleBatch(vertex_format([i[:4] for i in fixed]), len(used),
                                      dict((name, array[rows]) for name, array in rest.items()), local, self.software,
                                      inputs=(fmt, inputs))
            parts.append((slots, batch))
        self._rest = (split, rest)
        return parts

    def _split_parts(self, classes, triangles):
        """[(slots, the batch vertices its triangles use, those triangles indexing them)], kept while
        no triangle needs more slots than its part has. A refresh of the B-Bone split (a keyed shape
        key moving B-Bone-weighted points) changes a few vertices' influences every frame, a split
        weight turning 0 (which bind prunes) and back, so a split made again takes the most slots
        each triangle has needed: a part may read slots of weight 0, and the split settles."""
        if self._split is not None and len(classes) == len(self._split[0]):
            if not (classes > self._split[0]).any():
                return self._split[1]
            classes = numpy.maximum(classes, self._split[0])
        split = []
        for slots in numpy.unique(classes):
            used, local = numpy.unique(triangles[classes == slots], return_inverse=True)
            split.append((int(slots), used, local.reshape(-1, 3).astype(numpy.uint32)))
        self._split = (classes, split)
        return split

    def upload(self, palette):
        """The palette (joints, vec4s, 4) float32 into the uniform block or the texture."""
        flat = numpy.ascontiguousarray(palette, numpy.float32).ravel()
        if self.palette == "uniform-block":
            data = gpu.types.Buffer("FLOAT", flat.size, flat)
            if self._ubo is None:
                self._ubo = gpu.types.GPUUniformBuf(data)
            else:
                self._ubo.update(data)
            return
        self._texture = float_texture(flat)  # Blender 3.4's GPUTexture has no update: a new one a pose (a few KB)

    def update(self, binding, arm, obj, stamp=None):
        """Poses the rig as `arm` stands and uploads the palette (and the shape keys' values), where
        the bones, the objects or the values changed."""
        posed = binding.posed(arm, stamp)  # read once: a B-Bone's segments are a call each
        values = binding.key_values(obj)
        key = binding.frame_key(obj, arm, posed, values)
        if key == self.pose_key:
            return
        kind = binding.set_pose(arm, self.method, obj, posed, values)
        self.upload(binding.gpu_palette(kind))
        if self.morphs is not None:
            self.morphs.set_weights(values)
        self.pose_key = key

    def draw(self, model_view, projection, color=BASE_COLOR, cull=False, mirrored=False):
        for slots, batch in self.parts:
            shader = self.shaders[slots]
            shader.bind()
            if self.palette == "uniform-block":
                shader.uniform_block("SknPalette", self._ubo)
            else:
                shader.uniform_sampler("skn_palette", self._texture)
            if self.morphs is not None:
                shader.uniform_sampler("viewport_morph_entries", self.morphs.entries)
                shader.uniform_sampler("viewport_morph_weights", self.morphs.weights)
            draw_batch(shader, batch, model_view, projection, color, cull, mirrored)


class Morphs:
    """Shape keys on the GPU, sparse as skn's morph targets are (Binding.morphs: each key's
    vertices, dv, dn): every vertex's entries together, 2 texels an entry in a float texture made
    once — (dv, the key's index), (dn, 0) — found by the vertex input viewport_morph_range (first
    entry, count); per pose only the keys' weights go up, a texel a key. The shader adds
    w dv to the rest position and w dn to the rest normal before skinning, as skn_skin does."""

    def __init__(self, morphs, vertex_count):
        vertex = numpy.concatenate([v for v, _, _ in morphs]).astype(numpy.int64)
        target = numpy.concatenate([numpy.full(len(v), k, numpy.float32) for k, (v, _, _) in enumerate(morphs)])
        order = numpy.argsort(vertex, kind="stable")  # a vertex's entries together, in the keys' order
        count = numpy.bincount(vertex, minlength=vertex_count)
        first = numpy.concatenate([[0], numpy.cumsum(count)[:-1]])
        self.ranges = numpy.stack([first, count], axis=1).astype(numpy.uint32)
        texels = numpy.zeros((len(vertex), 2, 4), numpy.float32)
        texels[:, 0, :3] = numpy.concatenate([dv for _, dv, _ in morphs])[order]
        texels[:, 0, 3] = target[order]
        texels[:, 1, :3] = numpy.concatenate([dn for _, _, dn in morphs])[order]
        self.entries = float_texture(texels.ravel())
        self.target_count = len(morphs)
        self.set_weights(numpy.zeros(len(morphs), numpy.float32))

    def set_weights(self, values):
        texels = numpy.zeros((self.target_count, 4), numpy.float32)
        texels[:, 0] = values
        self.weights = float_texture(texels.ravel())


def float_texture(flat):
    """An RGBA32F texture of the float32 `flat` (4 a texel), TEXTURE_WIDTH texels a row (fewer when
    there are fewer), the last row padded with zeros: texel i at (i % width, i // width)."""
    texels = max(1, flat.size // 4)
    width = min(texels, TEXTURE_WIDTH)
    height = -(-texels // width)
    padded = numpy.zeros(width * height * 4, numpy.float32)
    padded[:flat.size] = flat
    return gpu.types.GPUTexture((width, height), format="RGBA32F", data=gpu.types.Buffer("FLOAT", padded.size, padded))


def model_matrix(binding, obj, arm):
    """The rig's space -> world: the object's own where the rig is bound in object space, else the
    object's through the modifier's postmat (the armature's, but where an object is scaled to 0:
    core.postmat)."""
    world = core.matrix(obj.matrix_world)
    return world if binding.object_space else world @ binding.post


def draw_object(obj, binding, view, projection, color=BASE_COLOR, live=True, cull=False, stamp=None):
    """Draws a bound object skinned by the GPU, as its armature stands (or, not `live`, as it stood
    at the first draw), with the view and projection given (a viewport's, or a test's camera).
    `stamp`: the pose's (rules.Skeleton.posed_joint_matrices)."""
    arm, _ = core.find_armature(obj)
    if live:
        binding.update(obj, arm)  # bound again where the objects moved: a new rig, a new drawing
    drawing = getattr(binding, "drawing", None)
    if drawing is not None and drawing.rig is not binding.rig:
        drawing = binding.drawing = drawing.rebound(binding)
    if drawing is None or drawing.method != core.method_key(obj.skn.method):
        drawing = binding.drawing = Drawing(binding, obj.skn.method)
    if live or drawing.pose_key is None:
        drawing.update(binding, arm, obj, stamp)
    drawing.draw(numpy.asarray(view, numpy.float64) @ model_matrix(binding, obj, arm), projection, color, cull,
                 is_mirrored(obj))
    return drawing
