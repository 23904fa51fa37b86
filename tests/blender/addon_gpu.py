"""addon_gpu.py — the add-on's GPU (viewport) mode in a Blender with a window
(xvfb-run, Mesa's llvmpipe): its images against the CPU path's, and its mode
switches against the Armature modifier. Prints "blender-gpu: N passed, N failed".

Images: one rig and pose drawn offscreen two ways — by GPU mode (skn's GLSL
skinning the rest mesh, the palette uploaded) and as the mesh skinned on the
CPU by the same binding (positions and normals from skn_skin), drawn with the
same fragment stage — for Linear, Dual Quaternion, Blend and Centers of
Rotation, and a 300-bone rig whose palette is a uniform block past 16 KB
(llvmpipe's hold 64 KB), a texture where blocks hold 16 KB, and one the GL
does not link, the texture. The two must agree to within MAX_LEVELS levels (of
255) at all but MAX_PIXELS pixels; a palette with one wrong row, and
another method's image, must not. The batch's triangle order (a Hilbert curve
on llvmpipe, viewport.drawing_order): the same triangles, fewer vertices
shaded (GL_VERTEX_SHADER_INVOCATIONS), the image of the mesh's own order;
and the batch split into draws (viewport.TriangleBatch), the image of one.
The rigs artists have: curved B-Bones (a joint a segment; 6 segments a
vertex in the shader's 8 slots), shape keys (against skn_skin with the keys
as morph targets, normals included) and the modifier's mask, plain and
inverted, each against skn_skin's image; Mirror above the Armature modifier
(the input helper's mesh drawn), with a keyed shape key under it too; an
object scaled -1 on an axis against its twin of positive scale (the same
world geometry, its mesh mirrored instead), culled and not; a mesh
shared by two objects, each its own armature's image; on the CPU, saying why, 9 segments a vertex, a modifier below, and a draw that
fails. Undo and redo of Bind, Unbind and Apply, in CPU and GPU mode (only a
Blender with a window has an undo stack).

  tests/blender/run --window addon_gpu.py -- ADDON.zip
"""
import ctypes
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arm_scene import (arm_mesh, arm_rig, chain_rig, check, coords, evaluated, finish, install_addon,  # noqa: E402
                       numpy, panel_labels)

import bpy  # noqa: E402
import gpu  # noqa: E402
from mathutils import Matrix, Quaternion, Vector  # noqa: E402

SIZE = 200          # pixels a side
MAX_LEVELS = 3      # of 255: the GPU's float rounding against the CPU's, in the lighting
MAX_PIXELS = 40     # of 40,000: edge pixels whose coverage a 1e-6 difference can flip


def camera(eye, target):
    """View and projection matrices (numpy) looking from eye at target, 40° field of view."""
    eye, target = Vector(eye), Vector(target)
    rot = (eye - target).to_track_quat("Z", "Y").to_matrix().to_4x4()
    view = (Matrix.Translation(eye) @ rot).inverted()
    near, far, f = 0.1, 50.0, 1 / math.tan(math.radians(20))
    proj = Matrix(((f, 0, 0, 0), (0, f, 0, 0), (0, 0, (far + near) / (near - far), 2 * far * near / (near - far)),
                   (0, 0, -1, 0)))
    return numpy.array(view), numpy.array(proj)


def render(draw):
    """draw() into an offscreen SIZE x SIZE image with depth; its pixels (SIZE, SIZE, 4) uint8."""
    off = gpu.types.GPUOffScreen(SIZE, SIZE)
    with off.bind():
        fb = gpu.state.active_framebuffer_get()
        fb.clear(color=(0.0, 0.0, 0.0, 1.0), depth=1.0)
        draw()
        px = numpy.array(fb.read_color(0, 0, SIZE, SIZE, 4, 0, "UBYTE").to_list(), numpy.uint8)
    off.free()
    return px.reshape(SIZE, SIZE, 4)


def differ(a, b):
    """(the largest difference in levels, pixels differing by more than MAX_LEVELS)."""
    d = numpy.abs(a.astype(int) - b.astype(int)).max(axis=2)
    return int(d.max()), int((d > MAX_LEVELS).sum())


def same_image(a, b):
    worst, count = differ(a, b)
    return count <= MAX_PIXELS, f"max {worst} levels, {count} pixels over {MAX_LEVELS}"


def gpu_image(addon, viewport, obj, view, proj, cull=False):
    b = addon.live.binding(obj)
    return render(lambda: viewport.draw_object(obj, b, view, proj, cull=cull)), b


def cpu_image(addon, viewport, core, obj, view, proj, cull=False):
    """The same binding skinned on the CPU (positions and normals), drawn by the same fragment stage."""
    b = addon.live.binding(obj)
    arm, _ = core.find_armature(obj)
    kind = b.set_pose(arm, obj.skn.method, obj)
    p, n, _ = b.rig.skin(b.pose, method=kind, normals=True, dqs_scale=core.dqs_scale(kind))
    return mesh_image(viewport, b, obj, arm, p, n, view, proj, cull)


def mesh_image(viewport, b, obj, arm, positions, normals, view, proj, cull=False):
    """Positions and normals in the rig's space of binding `b`, drawn by GPU mode's fragment stage."""
    batch = viewport.plain_batch(positions, normals, b.triangles)
    model_view = view @ viewport.model_matrix(b, obj, arm)
    return render(lambda: viewport.draw_batch(viewport.plain_shader(), batch, model_view, proj, cull=cull,
                                              mirrored=viewport.is_mirrored(obj)))


def bound_in_gpu_mode(obj, method, frame=10):
    """Binds obj in GPU mode by `method` at frame 1 and goes to `frame`; returns the modifier's
    mesh at `frame`, recorded before Bind."""
    scene = bpy.context.scene
    scene.frame_set(frame)
    want = evaluated(obj)
    scene.frame_set(1)
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "GPU", method
    bpy.ops.skn.bind()
    scene.frame_set(frame)
    return want


def covered(img):
    return int((img[..., :3].max(axis=2) > 0).sum())


def images(mods):
    """Every method's GPU image against its CPU image, the mutation, and methods told apart."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    obj = make_arm("Arm", blend=True)
    view, proj = camera((1.0, -3.2, 1.6), (1.0, 0.3, 0.2))
    scene.frame_set(10)
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode = "GPU"
    obj.skn.blend_group = "blend"
    seen = {}
    for method in ("LINEAR", "DQS", "BLEND", "COR"):
        obj.skn.method = method
        if not obj.skn.bound:
            check("GPU mode: Bind", bpy.ops.skn.bind() == {"FINISHED"} and obj.skn.bound, obj.skn.error)
        got, b = gpu_image(addon, viewport, obj, view, proj)
        want = cpu_image(addon, viewport, core, obj, view, proj)
        ok, detail = same_image(got, want)
        check(f"{method}: the GPU image is the CPU-skinned mesh's", ok and covered(want) > 3000,
              f"{detail}; {covered(want)} pixels covered; palette in a {b.drawing.palette}")
        seen[method] = want
        if method == "LINEAR":  # a GPU's batch, the mesh's own triangle order, draws the same
            check("on llvmpipe the batch takes the Hilbert order (viewport.drawing_order)", b.drawing.software)
            arm, _ = core.find_armature(obj)
            own = viewport.Drawing(b, method, software=False)
            own.update(b, arm, obj)
            model_view = view @ viewport.model_matrix(b, obj, arm)
            ok, detail = same_image(render(lambda: own.draw(model_view, proj)), got)
            check("LINEAR: the mesh's own triangle order (a GPU's) draws the Hilbert order's image", ok, detail)
            triangles = len(b.triangles)
            check("a GPU's batch is one draw; llvmpipe's, draws of SOFTWARE_DRAW_TRIANGLES (one part: 4 slots)",
                  draws(own) == 1 and draws(b.drawing) == -(-triangles // viewport.SOFTWARE_DRAW_TRIANGLES) and
                  [k for k, _ in b.drawing.parts] == [4], f"{draws(own)} and {draws(b.drawing)} draws of "
                  f"{triangles} triangles, parts {[(k, t.triangles) for k, t in b.drawing.parts]}")
            per_draw, viewport.SOFTWARE_DRAW_TRIANGLES = viewport.SOFTWARE_DRAW_TRIANGLES, 97
            try:  # the triangles split over many draws (TriangleBatch) draw the one draw's image
                split = viewport.Drawing(b, method, software=True)
            finally:
                viewport.SOFTWARE_DRAW_TRIANGLES = per_draw
            split.update(b, arm, obj)
            ok, detail = same_image(render(lambda: split.draw(model_view, proj)), got)
            check(f"LINEAR: {draws(split)} draws of at most 97 triangles draw the image of one", ok
                  and draws(split) == -(-triangles // 97), detail)
        if method == "LINEAR":  # the viewport's Backface Culling: looking into the open shoulder end,
            end = camera((-2.0, -0.6, 0.5), (0.5, 0.0, 0.0))  # the inside goes, both ways alike
            culled, _ = gpu_image(addon, viewport, obj, *end, cull=True)
            ok, detail = same_image(culled, cpu_image(addon, viewport, core, obj, *end, cull=True))
            inside = differ(culled, gpu_image(addon, viewport, obj, *end)[0])[1]
            check("LINEAR, back faces culled: the GPU image is the CPU-skinned mesh's", ok and inside > 200,
                  f"{detail}; culling changed {inside} pixels")
        real_upload = b.drawing.upload

        def wrong_row(palette, real=real_upload):  # joint 1's first row from joint 0's
            palette = palette.copy()
            palette[1, 0] = palette[0, 0]
            real(palette)

        b.drawing.upload, b.drawing.pose_key = wrong_row, None
        bad, _ = gpu_image(addon, viewport, obj, view, proj)
        del b.drawing.upload
        b.drawing.pose_key = None
        ok, detail = same_image(bad, want)
        check(f"{method}: a palette with one wrong row fails the comparison", not ok, detail)
    for a, b in (("LINEAR", "DQS"), ("DQS", "COR"), ("LINEAR", "BLEND")):
        ok, detail = same_image(seen[a], seen[b])
        check(f"{a} and {b} images are told apart", not ok, detail)
    bpy.ops.skn.unbind()
    scene.frame_set(1)
    bpy.data.objects.remove(obj)


def big_rig(mods):
    """300 bones: LBS's palette (300 x 6 vec4, 28.8 KB) in a uniform block where this GL's hold it
    (llvmpipe's: 64 KB), the image the CPU's; in a texture where they hold 16 KB, the image the
    same; a block the GL does not link (its limit taken as a megabyte, 1,200 bones, 115 KB): the
    texture, from then on."""
    addon, viewport, core = mods
    bones = 300
    arm = chain_rig("LongRig", bones, 0.01)
    for i, pb in enumerate(arm.pose.bones):  # a coil: every bone turned a little about two axes
        pb.rotation_mode = "QUATERNION"
        pb.rotation_quaternion = Quaternion((0, 0, 1), 0.02) @ Quaternion((1, 0, 0), 0.01 * math.sin(i / 7))
    obj = arm_mesh("Long", arm, 301, 12, groups=("b0", "b1"))
    for g in list(obj.vertex_groups):
        obj.vertex_groups.remove(g)
    groups = [obj.vertex_groups.new(name=f"b{i}") for i in range(bones)]
    for v in obj.data.vertices:  # x runs 0..2 over the mesh, 0..3 over the bones: stretch it
        v.co.x *= 1.5
        t = min(bones - 1.001, max(0.0, v.co.x * 100 - 0.5))
        i, s = int(t), t - int(t)
        groups[i].add([v.index], 1 - s, "REPLACE")
        groups[min(i + 1, bones - 1)].add([v.index], s, "REPLACE")
    bpy.context.view_layer.update()
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "GPU", "LINEAR"
    check("300 bones: Bind", bpy.ops.skn.bind() == {"FINISHED"}, obj.skn.error)
    view, proj = camera((0.8, -1.0, 4.5), (0.8, 0.9, 0.0))
    got, b = gpu_image(addon, viewport, obj, view, proj)
    want = cpu_image(addon, viewport, core, obj, view, proj)
    ok, detail = same_image(got, want)
    limit = viewport.uniform_block_limit()
    check("300 bones: the palette in a uniform block, this GL holding 64 KB in one",
          limit == 65536 and b.drawing.palette == "uniform-block", f"{limit} bytes, {b.drawing.palette}")
    check("300 bones: the GPU image is the CPU-skinned mesh's", ok and covered(want) > 3000,
          f"{detail}; {covered(want)} pixels covered")
    b.drawing.upload, b.drawing.pose_key = (lambda p, real=b.drawing.upload: real(p * 1.01)), None
    bad, _ = gpu_image(addon, viewport, obj, view, proj)
    check("300 bones: a palette 1% off fails the comparison", not same_image(bad, want)[0], same_image(bad, want)[1])
    viewport._block_limit[0], b.drawing = viewport.UNIFORM_BLOCK_BYTES, None  # a GL of 16 KB blocks
    got, b = gpu_image(addon, viewport, obj, view, proj)
    ok, detail = same_image(got, want)
    check("300 bones, 16 KB blocks: the palette a texture, the image the CPU's",
          b.drawing.palette == "texture-2d" and ok, f"{b.drawing.palette}; {detail}")
    viewport._block_limit[0] = None
    bpy.ops.skn.unbind()
    bpy.data.objects.remove(obj)
    bpy.data.objects.remove(arm)
    arm = chain_rig("LongerRig", 1200, 0.01)  # 1,200 joints: 115 KB of palette, past llvmpipe's 64 KB
    arm.pose.bones["b0"].rotation_mode = "QUATERNION"
    arm.pose.bones["b0"].rotation_quaternion = Quaternion((0, 0, 1), 0.3)
    obj = arm_mesh("Longer", arm, 21, 12, groups=("b0", "b1"))
    bpy.context.view_layer.update()
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "GPU", "LINEAR"
    bpy.ops.skn.bind()
    viewport._block_limit[0] = 1 << 20  # a GL that says a megabyte
    got, b = gpu_image(addon, viewport, obj, view, proj)
    want = cpu_image(addon, viewport, core, obj, view, proj)
    ok, detail = same_image(got, want)
    check("a uniform block the GL does not link: the palette a texture, the image the CPU's, 16 KB from then on",
          b.drawing.palette == "texture-2d" and ok and covered(want) > 500 and viewport.uniform_block_limit() == 16384,
          f"{b.drawing.palette}; {detail}; {covered(want)} pixels; limit {viewport.uniform_block_limit()}")
    viewport._block_limit[0] = None
    bpy.ops.skn.unbind()
    bpy.data.objects.remove(obj)
    bpy.data.objects.remove(arm)


def curved_and_keyed(mods):
    """B-Bones in GPU mode: each segment a joint of the palette, the image the CPU's; 6 segments a
    vertex in 8 slots; 9 on the CPU, saying so; a draw that fails, the CPU too. Shape keys in GPU
    mode: morph targets in the shader, the image that of skn_skin with the keys as morph targets
    (normals included) in a rig of its own. A modifier below: the CPU, saying so, until removed."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    arm = chain_rig("CurvedRig", 3, 2 / 3)
    for bone, segments in zip(arm.data.bones, (4, 6, 8)):
        bone.bbone_segments = segments
    for name, angle in (("b0", 20), ("b1", 45), ("b2", 50)):
        pb = arm.pose.bones[name]
        pb.rotation_mode = "QUATERNION"
        pb.rotation_quaternion = Quaternion((0, 0, 1), math.radians(angle)) @ Quaternion((1, 0, 0), 0.3)
    obj = arm_mesh("Curved", arm, 49, 16, groups=("b0", "b1"))
    for g in list(obj.vertex_groups):
        obj.vertex_groups.remove(g)
    groups = [obj.vertex_groups.new(name=f"b{i}") for i in range(3)]
    for v in obj.data.vertices:  # every vertex on all three bones
        for i, g in enumerate(groups):
            g.add([v.index], max(0.05, 1 - abs(v.co.x * 1.5 - i - 0.5) / 1.5), "REPLACE")
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "GPU", "DQS"
    check("B-Bones in GPU mode: Bind", bpy.ops.skn.bind() == {"FINISHED"} and not obj.skn.error, obj.skn.error)
    view, proj = camera((0.8, -3.0, 1.8), (0.8, 0.6, 0.0))
    got, b = gpu_image(addon, viewport, obj, view, proj)
    want = cpu_image(addon, viewport, core, obj, view, proj)
    ok, detail = same_image(got, want)
    check("B-Bones in GPU mode: a joint a segment, the GPU image the CPU-skinned mesh's",
          b.rig.joint_count == 5 + 7 + 9 and ok and covered(want) > 3000,
          f"{b.rig.joint_count} joints; {detail}; {covered(want)} pixels covered")
    real = viewport.draw_object
    viewport.draw_object = lambda *a, **k: 1 / 0  # a draw that fails: the CPU takes over, saying so
    try:
        render(lambda: addon.modes.draw_viewport())
    finally:
        viewport.draw_object = real
    addon.modes._fall_back(obj.name)
    check("a draw that fails: skinned on the CPU, drawn by Blender, saying why", not addon.modes.gpu_drawn(obj) and
          obj.display_type != "BOUNDS" and "could not draw" in obj.skn.error and
          numpy.abs(evaluated(obj) - coords(obj)).max() > 0.1, obj.skn.error)
    obj.skn.mode = "CPU"
    cpu_mesh = evaluated(obj)
    bpy.ops.skn.unbind()
    obj.modifiers["Armature"].use_deform_preserve_volume = True  # the modifier's Dual Quaternion
    worst = numpy.abs(cpu_mesh - evaluated(obj)).max()
    check("B-Bones: CPU mode's mesh is the modifier's", worst < 1e-5, f"worst {worst:.2e}")
    bpy.data.objects.remove(obj)

    for bones, slots in ((5, 8), (8, 12), (12, 16), (16, 0)):  # a vertex on every bone: bones + 1 segments
        obj = many_bones(bones)
        scene.frame_set(2)
        want = evaluated(obj)
        bpy.context.view_layer.objects.active = obj
        obj.skn.mode, obj.skn.method = "GPU", "LINEAR"
        bpy.ops.skn.bind()
        scene.frame_set(2)
        b = addon.live.binding(obj)
        if slots:
            view, proj = camera((1.0, -3.2, 1.6), (1.0, 0.3, 0.2))
            got, b = gpu_image(addon, viewport, obj, view, proj)
            ok, detail = same_image(got, cpu_image(addon, viewport, core, obj, view, proj))
            check(f"{bones} B-Bones a vertex ({bones + 1} segments) in GPU mode: {slots} slots a vertex, the GPU "
                  f"image the CPU-skinned mesh's", addon.modes.gpu_drawn(obj) and b.drawing.influences == slots and ok and
                  covered(got) > 1500, f"{b.rig.max_influences_per_vertex} a vertex, {b.drawing.influences} slots, "
                  f"drawn {addon.modes.gpu_drawn(obj)} ({obj.skn.error}), {covered(got)} pixels; {detail}")
        else:
            check(f"{bones} B-Bones a vertex ({bones + 1} segments) in GPU mode: skinned on the CPU, saying why",
                  not addon.modes.gpu_drawn(obj) and obj.display_type != "BOUNDS" and "at most 16" in obj.skn.error and
                  numpy.abs(evaluated(obj) - want).max() < 1e-5, obj.skn.error)
        bpy.ops.skn.unbind()
        arm = obj.modifiers["Armature"].object
        bpy.data.objects.remove(obj)
        bpy.data.objects.remove(arm)

    # Triangles drawn by their slots (viewport.slot_classes): the tube's first half weighted to one
    # B-Bone (3 segment joints at most: 4 slots), the rest to all eight (up to 9: 12 slots; where
    # the halves meet, 8)
    obj = many_bones(8)
    first = [v.index for v in obj.data.vertices if v.co.x < 1.0]
    for g in obj.vertex_groups[1:]:
        g.remove(first)
    scene.frame_set(2)
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "GPU", "LINEAR"
    bpy.ops.skn.bind()
    scene.frame_set(2)
    view, proj = camera((1.0, -3.2, 1.6), (1.0, 0.3, 0.2))
    got, b = gpu_image(addon, viewport, obj, view, proj)
    ok, detail = same_image(got, cpu_image(addon, viewport, core, obj, view, proj))
    parts = [(k, t.triangles) for k, t in b.drawing.parts]
    stub = type("Stub", (), {"_split": None})()  # the split kept from frame to frame (Drawing._split_parts)
    tris = numpy.arange(12, dtype=numpy.uint32).reshape(4, 3)
    first = viewport.Drawing._split_parts(stub, numpy.array([4, 8, 4, 12]), tris)
    kept = viewport.Drawing._split_parts(stub, numpy.array([4, 4, 4, 12]), tris)  # fewer slots: kept
    grown = viewport.Drawing._split_parts(stub, numpy.array([8, 4, 4, 12]), tris)  # more: the most of both
    check("a refresh needing fewer slots keeps the split; one needing more makes it with the most each triangle "
          "has needed", kept is first and [(k, list(u)) for k, u, _ in grown] ==
          [(4, [6, 7, 8]), (8, [0, 1, 2, 3, 4, 5]), (12, [9, 10, 11])] and
          grown[1][2].tolist() == [[0, 1, 2], [3, 4, 5]],
          f"{[(k, list(u), t.tolist()) for k, u, t in grown]}")
    classes = [k for k, _ in parts]
    check("a mesh of 4 to 12 slots a vertex: a part a class, each read by a shader of its slots, the GPU image the "
          "CPU-skinned mesh's", addon.modes.gpu_drawn(obj) and classes[0] == 4 and classes[-1] == 12 and parts[0][1] >= 400
          and sum(t for _, t in parts) == len(b.triangles) and sorted(b.drawing.shaders) == classes and ok and
          covered(got) > 1500, f"parts (slots, triangles) {parts}, {len(b.triangles)} triangles; {detail}")
    bpy.ops.skn.unbind()
    arm = obj.modifiers["Armature"].object
    bpy.data.objects.remove(obj)
    bpy.data.objects.remove(arm)

    obj = make_arm("Keyed")
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Fat", from_mix=False)
    for p in key.data:
        p.co.y, p.co.z = p.co.y * 1.5, p.co.z * 1.5
    key.value = 0.7
    bulge = obj.shape_key_add(name="Bulge", from_mix=False)  # turns the normals: an elliptic swelling
    for p in bulge.data:
        p.co.y *= 1 + 0.8 * max(0.0, 1 - abs(p.co.x - 1.4) / 0.4)
    bulge.value = 0.6
    next(m for m in obj.modifiers if m.type == "ARMATURE").use_deform_preserve_volume = True
    want = bound_in_gpu_mode(obj, "DQS")
    check("shape keys in GPU mode: drawn by the shader", not obj.skn.error and addon.modes.gpu_drawn(obj) and
          obj.display_type == "BOUNDS", obj.skn.error)
    view, proj = camera((1.0, -3.2, 1.6), (1.0, 0.3, 0.2))
    for value in (0.7, 0.2):
        key.value = value
        got, b = gpu_image(addon, viewport, obj, view, proj)
        ok, detail = same_image(got, keyed_image(viewport, core, obj, b, view, proj))
        check(f"shape keys in GPU mode, Fat at {value}, Bulge at 0.6: the image of skn_skin's morph targets",
              ok and covered(got) > 3000, f"{detail}; {covered(got)} pixels covered")
    differs, _ = same_image(got, keyed_image(viewport, core, obj, b, view, proj, value=0.7))
    check("... and a mix of other values draws another image", not differs)
    key.value = 0.7
    obj.modifiers.new("Smooth", "SMOOTH")
    bpy.context.view_layer.update()
    check("a modifier below in GPU mode: skinned on the CPU, saying why", not addon.modes.gpu_drawn(obj) and
          obj.display_type != "BOUNDS" and "Smooth" in obj.skn.error, obj.skn.error)
    obj.modifiers.remove(obj.modifiers["Smooth"])
    bpy.context.view_layer.update()
    check("... and drawn by the shader again once it is removed", addon.modes.gpu_drawn(obj) and
          obj.display_type == "BOUNDS" and not obj.skn.error, obj.skn.error)
    obj.skn.mode = "CPU"
    check("shape keys, CPU mode: the mesh is the modifier's", numpy.abs(evaluated(obj) - want).max() < 1e-5)
    bpy.ops.skn.unbind()
    bpy.data.meshes.remove(obj.data)  # and its object (its Key goes with the mesh)


def mirrored(mods):
    """Modifiers above the Armature modifier in GPU mode: the shader draws the input helper's mesh
    (Mirror's: twice the vertices), its image the CPU-skinned binding's and that binding's positions
    the modifier's mesh; with a keyed shape key under Mirror (the input moving every frame: the rig
    bound again, the batch made again), at two frames."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    arm = chain_rig("MirroredRig", 2, 1.0)
    for frame, angle in ((1, 0), (20, 70)):
        pb = arm.pose.bones["b1"]
        pb.rotation_mode = "QUATERNION"
        pb.rotation_quaternion = Quaternion((0, 0, 1), math.radians(angle)) @ Quaternion((1, 0, 0), angle / 100)
        pb.keyframe_insert("rotation_quaternion", frame=frame)
    view, proj = camera((0.0, -4.5, 2.2), (0.0, 0.3, 0.0))
    for keyed in (False, True):
        obj = arm_mesh("Mirrored keyed" if keyed else "Mirrored", arm, 25, 16, groups=("b0", "b1"))
        mirror = obj.modifiers.new("Mirror", "MIRROR")
        with bpy.context.temp_override(object=obj):
            bpy.ops.object.modifier_move_to_index(modifier=mirror.name, index=0)
        if keyed:
            obj.shape_key_add(name="Basis")
            wide = obj.shape_key_add(name="Wide", from_mix=False)
            for p in wide.data:
                p.co.y, p.co.z = p.co.y * 1.6, p.co.z * 1.6
            for value, frame in ((0.0, 1), (1.0, 20)):
                wide.value = value
                wide.keyframe_insert("value", frame=frame)
        frames = (10, 16) if keyed else (10,)
        wants = {}
        for f in frames:
            scene.frame_set(f)
            wants[f] = evaluated(obj).copy()
        bound_in_gpu_mode(obj, "LINEAR", frame=frames[0])
        label = "Mirror above, a keyed shape key under it" if keyed else "Mirror above"
        check(f"{label}: GPU mode draws it", addon.modes.gpu_drawn(obj) and not obj.skn.error, obj.skn.error)
        for f in frames:
            scene.frame_set(f)
            got, b = gpu_image(addon, viewport, obj, view, proj)
            want = cpu_image(addon, viewport, core, obj, view, proj)
            ok, detail = same_image(got, want)
            p = b.rig.skin(b.pose, method="lbs")
            off = float(numpy.abs(b.to_object(p) - wants[f]).max())
            check(f"{label}, frame {f}: the GPU image the CPU-skinned binding's, its positions the modifier's",
                  ok and covered(want) > 3000 and len(p) == len(wants[f]) > len(obj.data.vertices) and off < 1e-5,
                  f"{detail}; {covered(want)} pixels covered; {len(p)} vertices, {off:.1e} from the modifier's")
        drawn = render(lambda: addon.modes.draw_viewport())  # the viewport's own draw callback, as Blender calls it
        check(f"{label}: the viewport's draw callback draws it", obj.name not in addon.state.draw_failures and
              addon.modes.gpu_drawn(obj) and covered(drawn) > 3000, f"{addon.state.draw_failures.get(obj.name)}; {covered(drawn)} pixels")
        bpy.ops.skn.unbind()


def masked(mods):
    """The modifier's Vertex Group mask (and Invert) in GPU mode: drawn by the shader, the image
    that of skn_skin's positions and normals each moved by the mask's share from the rest mesh's;
    CPU mode's mesh the modifier's."""
    addon, viewport, core = mods
    obj = make_arm("Masked")
    group = obj.vertex_groups.new(name="mask")
    for v in obj.data.vertices:
        group.add([v.index], min(1.0, v.co.x / 1.5), "REPLACE")
    mod = next(m for m in obj.modifiers if m.type == "ARMATURE")
    mod.vertex_group, mod.use_deform_preserve_volume = "mask", True
    view, proj = camera((1.0, -3.2, 1.6), (1.0, 0.3, 0.2))
    for invert in (False, True):
        mod.invert_vertex_group = invert
        want = bound_in_gpu_mode(obj, "DQS")
        got, b = gpu_image(addon, viewport, obj, view, proj)
        m = numpy.array([group.weight(v.index) for v in obj.data.vertices], numpy.float32)[:, None]
        m = 1 - m if invert else m
        arm, _ = core.find_armature(obj)
        kind = b.set_pose(arm, "DQS", obj)
        p, n, _ = b.rig.skin(b.pose, method=kind, normals=True, dqs_scale=core.dqs_scale(kind))
        rest = b.rig.gpu_attributes()
        ok, detail = same_image(got, mesh_image(viewport, b, obj, arm, rest["positions"] + m * (p - rest["positions"]),
                                                rest["normals"] + m * (n - rest["normals"]), view, proj))
        label = "an inverted" if invert else "a"
        check(f"{label} mask in GPU mode: drawn by the shader, the image of skn_skin's motion scaled by it",
              addon.modes.gpu_drawn(obj) and not obj.skn.error and ok and covered(got) > 3000, f"{detail}; {obj.skn.error}")
        obj.skn.mode = "CPU"
        worst = numpy.abs(evaluated(obj) - want).max()
        check(f"{label} mask, CPU mode: the modifier's mesh", worst < 1e-5, f"worst {worst:.2e}")
        bpy.ops.skn.unbind()
    bpy.data.objects.remove(obj)


def draws(drawing):
    """The draw calls a Drawing makes: each part's batch's."""
    return sum(len(batch.batches) for _, batch in drawing.parts)


def many_bones(bones):
    """The arm's tube along a bent chain of `bones` B-Bones of 3 segments, every vertex weighted
    to every bone: bones + 1 segment joints a vertex."""
    arm = chain_rig(f"Rig{bones}", bones, 2 / bones)
    for bone in arm.data.bones:
        bone.bbone_segments = 3
    for pb in arm.pose.bones:
        pb.rotation_mode = "XYZ"
        pb.rotation_euler = (0.2, 0.1, 0.3)
    obj = arm_mesh(f"Many{bones}", arm, 33, 16, groups=("b0", "b1"))
    for k in range(2, bones):
        obj.vertex_groups.new(name=f"b{k}")
    for k, g in enumerate(obj.vertex_groups):
        g.add([v.index for v in obj.data.vertices], 0.1 + 0.05 * k, "REPLACE")
    return obj


def keyed_image(viewport, core, obj, b, view, proj, value=None):
    """GPU mode's picture worked another way: each shape key read from its key block as an skn
    morph target with normals (dv, and the change of the rest normals when it is applied at 1),
    weighted by the keys' values (the first `value` where given) and skinned by skn_skin in a rig
    of its own, positions and normals, on the CPU."""
    blocks = obj.data.shape_keys.key_blocks
    co = [numpy.array([p.co for p in k.data], numpy.float64) for k in blocks]
    rig_map = numpy.eye(4) if b.object_space else b.pre
    to_rig = lambda c: (c @ rig_map[:3, :3].T + rig_map[:3, 3]).astype(numpy.float32)  # noqa: E731
    rest = to_rig(co[0])
    rest_normals = core.vertex_normals(rest, b.triangles)
    targets = [{"positions": to_rig(c) - rest, "normals": core.vertex_normals(to_rig(c), b.triangles) - rest_normals}
               for c in co[1:]]
    weights = [value if value is not None and i == 0 else k.value for i, k in enumerate(blocks[1:])]
    a = b.rig.gpu_attributes(8)
    rig = core.skn.Rig(bind_matrices=b.to_rig @ b.frames, positions=rest, normals=rest_normals,
                       joints=a["joints"].astype(numpy.uint32), weights=a["weights"], morph_targets=targets,
                       morph_weights=numpy.array(weights, numpy.float32))
    arm, _ = core.find_armature(obj)
    pose = rig.pose()
    pose.set_model(b.to_rig @ (b.posed(arm) @ b.inverse_rest) @ b.frames)
    kind = core.METHODS[core.method_key(obj.skn.method)]
    p, n, _ = rig.skin(pose, method=kind, normals=True, dqs_scale=core.dqs_scale(kind))
    return mesh_image(viewport, b, obj, arm, p, n, view, proj)


def shaded_vertices(viewport, positions, triangles):
    """The vertices the GL's vertex stage shades drawing `triangles` once (offscreen, plain shader):
    GL_VERTEX_SHADER_INVOCATIONS, the pipeline statistics query (GL 4.6, ARB_pipeline_statistics_query),
    called through libGL since Blender's gpu module has no queries."""
    gl = ctypes.CDLL("libGL.so.1")
    gl.glGetError.restype = ctypes.c_uint
    query, count, errors = (ctypes.c_uint * 1)(), (ctypes.c_uint64 * 1)(), []
    p = numpy.asarray(positions, numpy.float32)
    batch = viewport.plain_batch(p, p / numpy.linalg.norm(p, axis=1, keepdims=True), triangles)
    shader, eye = viewport.plain_shader(), numpy.diag([0.1, 0.1, 0.1, 1.0])

    def draw():
        while gl.glGetError():  # what Blender's own calls left
            pass
        gl.glGenQueries(1, query)
        gl.glBeginQuery(0x82F0, query[0])  # GL_VERTEX_SHADER_INVOCATIONS
        viewport.draw_batch(shader, batch, eye, eye)
        errors.append(gl.glGetError())
        gl.glEndQuery(0x82F0)
        gl.glGetQueryObjectui64v(query[0], 0x8866, count)  # GL_QUERY_RESULT
        gl.glDeleteQueries(1, query)
    render(draw)
    errors.append(gl.glGetError())
    return int(count[0]) if not any(errors) else 0


def drawing_order(mods):
    """The batch's triangle order (viewport.locality_order): a Hilbert curve through the centroids,
    the vertices renumbered by first use. Checked against the curve's defining property, and on a
    tube for the same triangles drawn and fewer vertices shaded."""
    _, viewport, _ = mods
    for bits in (1, 2, 3, 4):  # every cell of a 2^bits grid, in curve order: each step moves one cell
        side = numpy.arange(1 << bits)
        cells = numpy.stack(numpy.meshgrid(side, side, side, indexing="ij"), axis=-1).reshape(-1, 3)
        codes = viewport.hilbert_codes(cells, bits)
        steps = numpy.abs(numpy.diff(cells[numpy.argsort(codes)], axis=0)).sum(axis=1)
        check(f"Hilbert curve on a {1 << bits}^3 grid: one code a cell, each step to a neighbouring cell",
              len(numpy.unique(codes)) == len(cells) and (steps == 1).all(),
              f"{len(numpy.unique(codes))} codes for {len(cells)} cells, steps {sorted(set(steps.tolist()))}")
    # a tube of square quads, its faces ring by ring as Blender lists them, a window a third of a ring
    rings, segs = 40, 500
    a = numpy.linspace(0, 2 * math.pi, segs, endpoint=False)
    length = (rings - 1) * 2 * math.pi / segs
    positions = numpy.stack([numpy.repeat(numpy.linspace(0, length, rings), segs), numpy.tile(numpy.cos(a), rings),
                             numpy.tile(numpy.sin(a), rings)], axis=1)
    i, j = numpy.meshgrid(numpy.arange(rings - 1), numpy.arange(segs), indexing="ij")
    v00, v01 = i * segs + j, i * segs + (j + 1) % segs
    v10, v11 = v00 + segs, v01 + segs
    tris = numpy.stack([numpy.stack([v00, v01, v11], -1), numpy.stack([v00, v11, v10], -1)], axis=2).reshape(-1, 3)
    vertices, order = viewport.locality_order(positions, tris)
    same = sorted(map(tuple, vertices[order].tolist())) == sorted(map(tuple, tris.tolist()))
    check("drawing order: the same triangles, every vertex once", same and len(vertices) == len(positions)
          and len(numpy.unique(vertices)) == len(vertices), f"{len(vertices)} vertices of {len(positions)}")
    before, after = shaded_vertices(viewport, positions, tris), shaded_vertices(viewport, positions[vertices], order)
    check("drawing order: llvmpipe shades fewer vertices (GL_VERTEX_SHADER_INVOCATIONS)",
          len(positions) <= after < 0.8 * before, f"{after} against {before} in face order, {len(positions)} vertices")
    loose = viewport.locality_order(numpy.vstack([positions, [[0, 9, 9]]]), tris)[0]
    check("drawing order: a vertex of no triangle is left out of the batch", len(loose) == len(positions),
          f"{len(loose)} vertices")
    empty = viewport.locality_order(positions, numpy.zeros((0, 3), numpy.uint32))
    check("drawing order: a mesh without faces keeps its vertices", len(empty[0]) == len(positions) and
          not len(empty[1]), f"{len(empty[0])} vertices, {len(empty[1])} triangles")


def negative_scale(mods):
    """An object scaled -1 on an axis (a mirrored copy) turns its faces' winding on the screen;
    Blender draws it with its front faces clockwise, and so must GPU mode, or its lighting
    (gl_FrontFacing) and Backface Culling see the wrong side. Against an independent twin: the
    same world geometry from an object of positive scale (its mesh mirrored instead, the faces
    turned so that their normals keep facing out), drawn by GPU mode, culled and not, with a
    shape key (its change of the rest normals drawn too). Scaled -1 uniformly, the rig is bound
    in the object's space; scaled non-uniformly, in the armature's, where the reflection is in
    the rig's rest mesh and the normals made from it."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    view, proj = camera((1.0, -3.2, 1.6), (1.0, 0.3, 0.2))
    for label, scale in (("scaled -1 in x", (-1.0, 1.0, 1.0)), ("scaled (1, -1.3, 0.8)", (1.0, -1.3, 0.8))):
        arm = arm_rig(f"Flip {label}", Quaternion((0, 0, 1), math.radians(60)) @ Quaternion((0, 1, 0), math.radians(150)))
        plain, flipped = arm_mesh(f"Plain {label}", arm, 25, 16), arm_mesh(f"Flipped {label}", arm, 25, 16)
        place = Matrix.Translation((0.1, 0.0, -0.1))
        plain.matrix_world = place
        for obj in (plain, flipped):  # a shape key bulging the forearm: the rest normals' change drawn too
            obj.shape_key_add(name="Basis")
            key = obj.shape_key_add(name="Bulge")
            for p in key.data:
                if p.co.x > 1.2:
                    p.co += Vector((0.0, p.co.y, p.co.z)) * 0.4 * (p.co.x - 1.2)
            key.value = 0.7
        for block in flipped.data.shape_keys.key_blocks:  # its mesh the twin's mirrored, its object mirroring it back
            for p in block.data:
                p.co = Vector([c / s for c, s in zip(p.co, scale)])
        for v in flipped.data.vertices:
            v.co = Vector([c / s for c, s in zip(v.co, scale)])
        flipped.data.flip_normals()
        flipped.matrix_world = place @ Matrix.Diagonal((*scale, 1.0))
        scene.frame_set(1)
        for obj in (plain, flipped):
            bpy.context.view_layer.objects.active = obj
            obj.skn.mode, obj.skn.method = "GPU", "LINEAR"
            bpy.ops.skn.bind()
        scene.frame_set(10)
        check(f"{label}: the object's matrix mirrors it (viewport.is_mirrored), its twin's does not",
              viewport.is_mirrored(flipped) and not viewport.is_mirrored(plain) and
              addon.live.binding(flipped).object_space == (label == "scaled -1 in x"))
        for cull in (False, True):
            want, _ = gpu_image(addon, viewport, plain, view, proj, cull=cull)
            got, _ = gpu_image(addon, viewport, flipped, view, proj, cull=cull)
            ok, detail = same_image(got, want)
            check(f"{label}{', back faces culled' if cull else ''}: GPU mode draws its twin's image", ok and
                  covered(want) > 3000, detail)
        check(f"{label}: the shape key drawn by the shader (its morph targets)",
              all(addon.live.binding(o).drawing.morphs is not None and addon.modes.gpu_drawn(o) for o in (plain, flipped)))
        for obj in (plain, flipped):
            bpy.context.view_layer.objects.active = obj
            bpy.ops.skn.unbind()
            mesh = obj.data
            bpy.data.objects.remove(obj)
            bpy.data.meshes.remove(mesh)  # (its shape keys with it: a file saved later holds none without a mesh)
        bpy.data.objects.remove(arm)


def scaled_to_0(mods):
    """Objects scaled to 0 (a scale keyed to 0 hides or pops in a character), the armature scaled
    non-uniformly, so that the rig is bound in the armature's space: GPU mode draws what the
    modifier makes of them, the rig's space taken to the world by the object's matrix and the
    modifier's postmat (viewport.model_matrix, core.postmat). With either object scaled to 0 on an
    axis the modifier's premat is 0: every vertex deformed as the armature's origin, by its weights
    alone, a line of points where the mesh was the one scaled (at its origin), faces of no area,
    nothing drawn. Before, each failed the draw ("Singular matrix"). Against a twin's evaluated mesh
    drawn in world space by the same fragment stage: their silhouettes, the mesh's again after."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    view, proj = camera((1.0, -3.2, 1.6), (1.0, 0.3, 0.2))
    arm = arm_rig("Scaled0", Quaternion((0, 0, 1), math.radians(60)) @ Quaternion((0, 1, 0), math.radians(150)))
    obj, twin = arm_mesh("Scaled0", arm, 25, 16), arm_mesh("Scaled0Twin", arm, 25, 16)
    arm.scale = (1.0, 1.2, 0.9)
    scene.frame_set(1)
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "GPU", "LINEAR"
    bpy.ops.skn.bind()
    cases = (("the mesh scaled to 0", (0, 0, 0), (1, 1.2, 0.9)), ("the mesh flattened along y", (1, 0, 1), (1, 1.2, 0.9)),
             ("the armature flattened along y", (1, 1, 1), (1, 0, 0.9)), ("both back", (1, 1, 1), (1, 1.2, 0.9)))
    for label, mesh_scale, arm_scale in cases:
        obj.scale = twin.scale = mesh_scale
        arm.scale = arm_scale
        scene.frame_set(10)
        world = numpy.array([tuple(twin.matrix_world @ Vector(p)) for p in evaluated(twin)], numpy.float32)
        b = addon.live.binding(obj)
        facing = numpy.tile(numpy.array([0.0, -1.0, 0.0], numpy.float32), (len(world), 1))  # (a sheet faces the camera)
        batch = viewport.plain_batch(world, facing, b.triangles)
        want = render(lambda: viewport.draw_batch(viewport.plain_shader(), batch, view, proj))
        got, _ = gpu_image(addon, viewport, obj, view, proj)
        a, w = got[..., :3].max(axis=2) > 0, want[..., :3].max(axis=2) > 0
        check(f"{label}: GPU mode draws the modifier's silhouette", addon.modes.gpu_drawn(obj) and
              int((a != w).sum()) <= MAX_PIXELS and (w.sum() > 1000) == (label == "both back"),
              f"{int((a != w).sum())} pixels differ, {int(w.sum())} covered; {obj.skn.error}")
    bpy.ops.skn.unbind()
    for o in (obj, twin):
        bpy.data.objects.remove(o)
    bpy.data.objects.remove(arm)


def viewport_render(mods):
    """Blender draws no add-on's drawing in a Viewport Render (render.opengl) and tells add-ons
    nothing of one (no render handler runs), so a GPU-mode mesh is missing from it: skn's Viewport
    Render (View menu, skn.viewport_render) skins GPU-mode meshes on the CPU for its duration, and
    its image, a still and an animation's frame, is the modifier's; the shader draws them after."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    obj = make_arm("Filmed")
    arm = obj.modifiers["Armature"].object
    camera_object = scene.camera
    camera_object.location, camera_object.rotation_euler = (1.0, -6.0, 1.0), (math.radians(85), 0.0, 0.0)
    render = scene.render
    render.resolution_x, render.resolution_y, render.resolution_percentage = 200, 150, 100
    folder = tempfile.mkdtemp()
    win = bpy.context.window_manager.windows[0]
    area = next(a for a in win.screen.areas if a.type == "VIEW_3D")
    space = area.spaces[0]
    space.region_3d.view_perspective, space.overlay.show_overlays = "CAMERA", False
    hidden = [o for o in scene.objects if o not in (obj, arm, camera_object) and o.visible_get()]
    for o in hidden:  # (the default cube, whose place the arm's picture does not need)
        o.hide_set(True)

    def picture(op, path=None, **kw):
        with bpy.context.temp_override(window=win, area=area):
            op(**kw)
        if path is None:
            path = os.path.join(folder, "still.png")
            bpy.data.images["Render Result"].save_render(path)
        image = bpy.data.images.load(path)
        px = numpy.array(image.pixels[:], numpy.float32).reshape(150, 200, 4)
        bpy.data.images.remove(image)
        return (px * 255 + 0.5).astype(numpy.uint8)

    scene.frame_set(10)
    want = picture(bpy.ops.render.opengl)
    scene.frame_set(1)
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "GPU", "LINEAR"
    bpy.ops.skn.bind()
    scene.frame_set(10)
    check("Viewport Render: the mesh drawn by the shader in GPU mode", addon.modes.gpu_drawn(obj))
    missing = differ(picture(bpy.ops.render.opengl), want)[1]
    check("... Blender's Viewport Render leaves it out (no add-on's drawing there)", missing > 500,
          f"{missing} pixels differ from the modifier's")
    ok, detail = same_image(picture(bpy.ops.skn.viewport_render), want)
    check("... skn's Viewport Render: the modifier's image", ok, detail)
    check("... and the shader draws it again after", addon.modes.gpu_drawn(obj) and obj.display_type == "BOUNDS")
    frame_range = scene.frame_start, scene.frame_end
    scene.frame_start, scene.frame_end, render.filepath = 9, 10, os.path.join(folder, "frame_")
    frames = picture(bpy.ops.skn.viewport_render, os.path.join(folder, "frame_0010.png"), animation=True)
    ok, detail = same_image(frames, want)
    check("... an animation: each frame written, the last the modifier's image",
          ok and os.path.exists(os.path.join(folder, "frame_0009.png")), detail)
    check("... and the shader draws it again after the animation", addon.modes.gpu_drawn(obj))
    windows = list(bpy.context.window_manager.windows)
    with bpy.context.temp_override(window=win, area=area):
        bpy.ops.skn.viewport_render("INVOKE_DEFAULT")  # as the View menu runs it
    shown = [w for w in bpy.context.window_manager.windows if w not in windows]
    check("... from the menu, the image shown as Blender's Viewport Render shows it (Render Result)",
          any(a.type == "IMAGE_EDITOR" and a.spaces[0].image is not None and a.spaces[0].image.type == "RENDER_RESULT"
              for w in shown or windows for a in w.screen.areas), f"{len(shown)} new windows")
    for w in shown:  # left open (closed from a script, it takes the script's context with it), showing nothing
        w.screen.areas[0].spaces[0].image = None
    check("... the panel points to it", "Viewport Render shows no GPU-mode mesh: View > Viewport Render (skn)" in
          panel_labels(obj), str(panel_labels(obj)))
    check("... the View menu offers it, a still and an animation, while a mesh is in GPU mode",
          view_menu_entries() == [("skn.viewport_render", "Viewport Render Image (skn)", False),
                                  ("skn.viewport_render", "Viewport Render Animation (skn)", True)],
          str(view_menu_entries()))
    scene.frame_start, scene.frame_end = frame_range
    bpy.ops.skn.unbind()
    check("... and not without one", view_menu_entries() == [], str(view_menu_entries()))
    for o in hidden:
        o.hide_set(False)
    space.region_3d.view_perspective, space.overlay.show_overlays = "PERSP", True
    for o in (obj, arm):
        bpy.data.objects.remove(o)


def view_menu_entries():
    """The operators skn adds to the 3D viewport's View menu, as (idname, text, animation): its
    draw run on a layout that records them."""
    import skn_blender.ui as ui
    entries = []

    class Layout:
        def separator(self):
            pass

        def operator(self, idname, text="", **_):
            entry = type("Entry", (), {"animation": False})()
            entries.append((idname, text, entry))
            return entry
    ui.view_menu(type("Menu", (), {"layout": Layout()})(), bpy.context)
    return [(idname, text, entry.animation) for idname, text, entry in entries]


def make_arm(name, blend=False):
    arm = arm_rig(name, Quaternion((0, 0, 1), math.radians(60)) @ Quaternion((0, 1, 0), math.radians(150)))
    obj = arm_mesh(name, arm, 25, 16)
    if blend:  # Blend's vertex group: Linear at the shoulder, Dual Quaternion at the hand
        g = obj.vertex_groups.new(name="blend")
        for v in obj.data.vertices:
            g.add([v.index], v.co.x / 2, "REPLACE")
    return obj


def modifier_positions(obj, frame):
    """The Armature modifier's deformation at `frame` (Preserve Volume as set), object space."""
    bpy.context.scene.frame_set(frame)
    return evaluated(obj)


def redraw():
    """A real redraw of the window: the viewport's draw callback runs."""
    win = bpy.context.window_manager.windows[0]
    with bpy.context.temp_override(window=win, screen=win.screen):
        bpy.ops.wm.redraw_timer(type="DRAW_WIN_SWAP", iterations=1)


def switches(mods):
    """CPU -> GPU (Weight Paint in it) -> CPU, Unbind, Apply, save and reopen without the add-on,
    disable: the rest mesh, the modifier and the object's display as they were."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    obj = make_arm("Switch")
    mod = obj.modifiers["Armature"]
    rest = coords(obj).copy()
    want = modifier_positions(obj, 10)
    scene.frame_set(1)
    bpy.context.view_layer.objects.active = obj
    obj.skn.mode, obj.skn.method = "CPU", "LINEAR"
    bpy.ops.skn.bind()
    scene.frame_set(10)
    check("CPU mode: the mesh is the modifier's", numpy.abs(evaluated(obj) - want).max() < 1e-5)
    obj.skn.mode = "GPU"
    check("CPU -> GPU: the mesh Blender evaluates is the rest, exactly", numpy.array_equal(evaluated(obj), rest)
          and numpy.array_equal(coords(obj), rest))
    check("GPU mode: Blender draws the bounds, the modifier stays off",
          obj.display_type == "BOUNDS" and not mod.show_viewport and not mod.show_render)
    scene.frame_set(5)
    scene.frame_set(10)
    check("GPU mode: frame changes leave the mesh at rest", numpy.array_equal(evaluated(obj), rest))
    redraw()
    b = addon.state.bindings.get(obj.name)
    drawn = b is not None and getattr(b, "drawing", None) is not None and b.drawing.pose_key is not None
    check("GPU mode: the viewport's draw callback draws it", drawn and not obj.skn.error, obj.skn.error)
    bpy.ops.object.mode_set(mode="WEIGHT_PAINT")  # painted: Blender draws it, the modifier deforming
    redraw()
    check("GPU mode, Weight Paint: Blender draws the mesh, the modifier deforming it, not the shader",
          obj.display_type == "TEXTURED" and mod.show_viewport and mod.object is not None and
          not addon.modes.gpu_drawn(obj) and numpy.abs(evaluated(obj) - want).max() < 1e-5, obj.display_type)
    bpy.ops.object.mode_set(mode="OBJECT")
    redraw()
    check("GPU mode, Weight Paint left: the shader draws it again",
          obj.display_type == "BOUNDS" and not mod.show_viewport and addon.modes.gpu_drawn(obj) and
          numpy.array_equal(evaluated(obj), rest), obj.display_type)
    obj.skn.mode = "CPU"
    check("GPU -> CPU: the mesh is the modifier's again", numpy.abs(evaluated(obj) - want).max() < 1e-5)
    check("GPU -> CPU: Blender draws the object itself again", obj.display_type == "TEXTURED")
    obj.skn.mode = "GPU"
    bpy.ops.skn.unbind()
    check("Unbind in GPU mode: rest mesh exact, modifier and display given back",
          numpy.array_equal(coords(obj), rest) and mod.show_viewport and mod.show_render
          and obj.display_type == "TEXTURED")
    check("Unbind in GPU mode: the modifier deforms as before", numpy.abs(evaluated(obj) - want).max() < 1e-6)

    # Apply in GPU mode keeps the CPU's deformation
    obj.display_type = "SOLID"  # not the default: what is given back is what was there
    bpy.ops.skn.bind()
    bpy.ops.skn.apply()
    check("Apply in GPU mode: the mesh is the modifier's deformation",
          numpy.abs(coords(obj) - want).max() < 1e-5 and "Armature" not in obj.modifiers)
    check("Apply in GPU mode: the display is given back", obj.display_type == "SOLID")
    bpy.data.objects.remove(obj)

    # render: the CPU path, matching the modifier's own render
    obj = make_arm("Render")
    bpy.context.view_layer.objects.active = obj
    want = modifier_positions(obj, 10)
    base = workbench_render(obj)
    obj.skn.mode = "GPU"
    bpy.ops.skn.bind()
    seen = []
    probe = lambda *_: seen.append(evaluated(obj).copy())  # noqa: E731
    bpy.app.handlers.render_pre.append(probe)
    img = workbench_render(obj)
    bpy.app.handlers.render_pre.remove(probe)
    check("render in GPU mode: the mesh holds the CPU's deformation while it renders",
          seen and numpy.abs(seen[0] - want).max() < 1e-5)
    check("render in GPU mode: after it, the mesh is at rest and drawn by the shader again",
          numpy.array_equal(evaluated(obj), coords(obj)) and obj.display_type == "BOUNDS")
    diff = float(numpy.abs(img - base).max())
    pixels = img.reshape(-1, 4)
    shown = int((numpy.abs(pixels - pixels[0]).max(axis=1) > 0.05).sum())
    check("render in GPU mode: the image is the Armature modifier's render", diff < 2 / 255 and shown > 300,
          f"max {diff:.4f}, {shown} of {len(pixels)} pixels show the arm")

    # save in GPU mode, open without the add-on
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "gpu.blend")
        bpy.ops.wm.save_as_mainfile(filepath=path)
        check("after saving: still in GPU mode", obj.display_type == "BOUNDS" and not obj.modifiers[0].show_viewport)
        bpy.ops.preferences.addon_disable(module="skn_blender")
        bpy.ops.wm.open_mainfile(filepath=path)
        obj = bpy.data.objects["Render"]
        m = obj.modifiers["Armature"]
        check("reopened without the add-on: rest mesh, modifier on, display as it was",
              "skn" not in obj.modifiers and m.show_viewport and m.show_render
              and obj.display_type == "TEXTURED")
        check("reopened without the add-on: the modifier deforms as Blender does",
              numpy.abs(modifier_positions(obj, 10) - want).max() < 1e-6)
        bpy.ops.preferences.addon_enable(module="skn_blender")
        bpy.context.scene.frame_set(10)  # the first change after enabling (in the UI, a timer does it at once)
        check("add-on enabled again: GPU mode takes over", obj.display_type == "BOUNDS" and not m.show_viewport,
              f"display {obj.display_type}")
        bpy.ops.preferences.addon_disable(module="skn_blender")
        check("add-on disabled in GPU mode: rest mesh, modifier and display given back",
              "skn" not in obj.modifiers and m.show_viewport and obj.display_type == "TEXTURED"
              and numpy.abs(modifier_positions(obj, 10) - want).max() < 1e-6)


def workbench_render(obj):
    """The scene rendered by Workbench (64 x 64) through a camera on the arm: pixels, float."""
    scene = bpy.context.scene
    if scene.camera is None or scene.camera.name != "SknCam":
        cam = bpy.data.objects.new("SknCam", bpy.data.cameras.new("SknCam"))
        scene.collection.objects.link(cam)
        cam.location = (1.0, -4.0, 1.5)
        cam.rotation_euler = (math.radians(72), 0, 0)
        scene.camera = cam
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.render.resolution_x = scene.render.resolution_y = 64
    scene.render.resolution_percentage = 100
    scene.frame_set(10)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.png")
        scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
        img = bpy.data.images.load(path)
        px = numpy.array(img.pixels[:], numpy.float32)
        bpy.data.images.remove(img)
    return px


def shared(mods):
    """One mesh, two objects (a linked duplicate), each with its own armature, both in GPU mode:
    each drawn by the shader, its image its own binding's on the CPU; unbound, Blender's draw back."""
    addon, viewport, core = mods
    scene = bpy.context.scene
    arm = arm_rig("SharedGpuA", Quaternion((0, 0, 1), math.radians(70)))
    other_arm = arm_rig("SharedGpuB", Quaternion((0, 1, 0), math.radians(60)))
    obj = arm_mesh("SharedGpu", arm, 21, 12)
    other = bpy.data.objects.new("SharedGpuOther", obj.data)
    scene.collection.objects.link(other)
    other.modifiers.new("Armature", "ARMATURE").object = other_arm
    scene.frame_set(1)
    for o in (obj, other):
        bpy.context.view_layer.objects.active = o
        o.skn.mode, o.skn.method = "GPU", "LINEAR"
        check(f"a shared mesh in GPU mode: Bind {o.name}", bpy.ops.skn.bind() == {"FINISHED"} and not o.skn.error,
              o.skn.error)
    scene.frame_set(10)
    view, proj = camera((1.0, -4.0, 1.5), (1.0, 0.0, 0.0))
    wanted = []
    for o in (obj, other):
        got, _ = gpu_image(addon, viewport, o, view, proj)
        want = cpu_image(addon, viewport, core, o, view, proj)
        ok, detail = same_image(got, want)
        check(f"a shared mesh in GPU mode: {o.name} drawn by the shader, its own binding's image",
              addon.modes.gpu_drawn(o) and o.display_type == "BOUNDS" and ok and covered(want) > 2000,
              f"{detail}; {covered(want)} pixels covered")
        wanted.append(want)
    check("a shared mesh in GPU mode: the two images differ, each its armature's", not same_image(*wanted)[0],
          same_image(*wanted)[1])
    for o in (obj, other):
        bpy.context.view_layer.objects.active = o
        bpy.ops.skn.unbind()
    check("a shared mesh in GPU mode: unbound, Blender draws both again",
          obj.display_type == other.display_type == "TEXTURED" and not obj.skn.bound and not other.skn.bound)
    scene.frame_set(1)
    for o in (obj, other, arm, other_arm):
        bpy.data.objects.remove(o)


def undo_redo():
    """Ctrl+Z and Ctrl+Shift+Z over Bind, Unbind and Apply, in CPU and GPU mode, against a twin that
    keeps the Armature modifier: each step back is the file as it was (the modifier on with its
    Object, no "skn" modifier or helper, the object drawn by Blender; or bound again, deforming as
    the twin at other frames). Only a Blender with a window has an undo stack; an operator run
    from a script pushes its step when asked to (its second argument), as the UI's buttons do."""
    win = bpy.context.window_manager.windows[0]

    def step(op):
        with bpy.context.temp_override(window=win, screen=win.screen):
            return op()

    def as_before_bind(o):
        m = o.modifiers["Armature"]
        return not o.skn.bound and m.show_viewport and m.use_vertex_groups and m.object is not None and \
            [x.name for x in o.modifiers] == ["Armature"] and o.display_type == "TEXTURED" and \
            not [h for h in bpy.data.objects if h.name.startswith(o.name + " (skn ")]

    for mode in ("CPU", "GPU"):
        name = f"Undo{mode}"
        make_arm(name)
        make_arm(name + "Twin")
        bpy.context.scene.frame_set(1)
        step(lambda: bpy.ops.ed.undo_push(message="the arm and its twin"))

        def alike(label, frame, bound=True):  # (an undo step renews every datablock: looked up by name)
            bpy.context.scene.frame_set(frame)
            redraw()
            o, twin = bpy.data.objects[name], bpy.data.objects[name + "Twin"]
            drawn = o.display_type == ("BOUNDS" if mode == "GPU" and bound else "TEXTURED")  # (the shader's, or Blender's)
            mine = evaluated(o) if mode == "CPU" or not bound else skinned_on_cpu(o, frame)
            worst = float(numpy.abs(mine - evaluated(twin)).max())
            check(f"undo, {mode} mode: {label}", o.skn.bound == bound and drawn and worst < 1e-5 and not o.skn.error,
                  f"max {worst:.2e} {o.skn.error}")

        o = bpy.data.objects[name]
        o.skn.mode = mode
        bpy.context.view_layer.objects.active = o
        step(lambda: bpy.ops.skn.bind("EXEC_DEFAULT", True))
        alike("bound, the twin's deformation", 10)
        step(bpy.ops.ed.undo)
        check(f"undo, {mode} mode: Bind undone, the mesh as before it", as_before_bind(bpy.data.objects[name]))
        alike("... deformed by its modifier", 7, bound=False)
        step(bpy.ops.ed.redo)
        alike("Bind redone: bound, the twin's deformation", 4)
        bpy.context.view_layer.objects.active = bpy.data.objects[name]
        step(lambda: bpy.ops.skn.unbind("EXEC_DEFAULT", True))
        check(f"undo, {mode} mode: unbound", as_before_bind(bpy.data.objects[name]))
        step(bpy.ops.ed.undo)
        alike("Unbind undone: bound again, the twin's deformation", 9)
        bpy.context.view_layer.objects.active = bpy.data.objects[name]
        step(lambda: bpy.ops.skn.apply("EXEC_DEFAULT", True))
        check(f"undo, {mode} mode: applied", "Armature" not in bpy.data.objects[name].modifiers)
        step(bpy.ops.ed.undo)
        alike("Apply undone: bound again, the twin's deformation", 6)


def skinned_on_cpu(obj, frame):
    """A GPU-mode mesh's deformation at `frame`, as the CPU path computes it (object space)."""
    obj.skn.mode = "CPU"
    bpy.context.scene.frame_set(frame)
    co = evaluated(obj)
    obj.skn.mode = "GPU"
    return co


def main():
    install_addon()
    import skn_blender as addon
    from skn_blender import core, viewport
    mods = (addon, viewport, core)
    check("a GL context: Mesa's llvmpipe", "llvmpipe" in gpu.platform.renderer_get(), gpu.platform.renderer_get())
    drawing_order(mods)
    images(mods)
    big_rig(mods)
    curved_and_keyed(mods)
    mirrored(mods)
    negative_scale(mods)
    scaled_to_0(mods)
    viewport_render(mods)
    shared(mods)
    masked(mods)
    undo_redo()
    switches(mods)
    finish("blender-gpu")


try:
    main()
except SystemExit:
    raise
except BaseException:
    import traceback
    traceback.print_exc()
    check("the script ran to its end", False)
    finish("blender-gpu")
