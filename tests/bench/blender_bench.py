"""blender_bench.py — `make bench-blender`: an animation frame of a deformed
1,000,000-vertex mesh, three ways, in one Blender with a window (xvfb-run,
Mesa's llvmpipe): Blender's Armature modifier (Preserve Volume off, on), the
skn add-on's CPU mode (it skins into the mesh), and its GPU (viewport) mode
(the vertex shader skins; only the palette is uploaded a frame).

Each figure is Blender's own redraw benchmark, bpy.ops.wm.redraw_timer(
type="ANIM_PLAY"): the animation played through its FRAMES frames, each a
frame step (the keyed bones evaluated, the handlers run) and a redraw of the
window: its 3D viewport alone (full screen, 1024 x 768), showing the whole
mesh in solid mode, without overlays or anti-aliasing, which cost every
setup the same and only hide the differences. (Blender 3.4's
ANIM_STEP steps the frame without redrawing: 0 draws of the viewport counted,
so it cannot time a draw path.) Milliseconds a frame, the median of RUNS
playbacks; the ratio is the modifier's time over the setup's. The modifier
plays before Bind and again after Unbind, its figure the median of both,
so that a drift over the run does not favour either side. The first row is
the floor every setup pays: the playback with the mesh hidden and its
modifier off. "skinning free" is GPU mode with the skinning taken out of its
draw (the mesh skinned once on the CPU, drawn by the same stages less skn's
functions, free_ms): the least a GPU-mode frame can cost on this renderer, so
modifier/free is the most GPU mode could gain here. A second table times the
deformation alone (no redraw), as before: a pose change until the mesh is
ready for the viewport. A third compares GPU mode with the modifier (Linear)
on the same tube with B-Bones of 8 segments, and with a shape key whose
value is keyed, so that the modifier's input changes every frame. The last
plays a Rigify human (arm_scene.rigify_human: 160 deform bones, 52 of them
B-Bones of 8-10 segments, a keyed shape key moving B-Bone-weighted points,
about 48,000 vertices) the three ways, Linear, the tube removed.

On llvmpipe the GPU is the CPU (its 2 cores here draw and shade too), so GPU
mode's figure stands in for a real GPU's.

  xvfb-run -a -s "-screen 0 1280x800x24" blender --factory-startup \\
      --python blender_bench.py -- ADDON.zip [VERTICES]
"""
import math
import os
import platform
import statistics
import sys
import time

import numpy

numpy.bool = bool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "blender"))
from arm_scene import chain_rig, rigify_human  # noqa: E402

import bpy  # noqa: E402
import gpu  # noqa: E402
from mathutils import Quaternion  # noqa: E402

BONES, RUNS, FRAMES = 64, 5, 12


def build(vertices):
    """A tube along a strip of 64 bones (x from 0 to 64), rings of 500 vertices; each vertex
    weighted 0.4/0.3/0.2/0.1 to its 4 nearest bones (groups filled one call per bone and weight),
    the bones keyed to a wave over FRAMES frames."""
    arm = chain_rig("BenchRig", BONES, 1.0)
    segs = 500
    rings = max(2, vertices // segs)
    x = numpy.repeat(numpy.linspace(0, BONES, rings), segs)
    a = numpy.tile(numpy.linspace(0, 2 * math.pi, segs, endpoint=False), rings)
    co = numpy.stack([x, 0.5 * numpy.cos(a), 0.5 * numpy.sin(a)], axis=1).astype(numpy.float32)
    i, j = numpy.meshgrid(numpy.arange(rings - 1), numpy.arange(segs), indexing="ij")
    quads = numpy.stack([i * segs + j, i * segs + (j + 1) % segs, (i + 1) * segs + (j + 1) % segs,
                         (i + 1) * segs + j], axis=-1).reshape(-1, 4)
    mesh = bpy.data.meshes.new("Bench")
    mesh.vertices.add(len(co))
    mesh.vertices.foreach_set("co", co.ravel())
    mesh.loops.add(quads.size)
    mesh.loops.foreach_set("vertex_index", quads.ravel().astype(numpy.int32))
    mesh.polygons.add(len(quads))
    mesh.polygons.foreach_set("loop_start", numpy.arange(0, quads.size, 4, dtype=numpy.int32))
    mesh.polygons.foreach_set("loop_total", numpy.full(len(quads), 4, numpy.int32))
    mesh.update(calc_edges=True)
    obj = bpy.data.objects.new("Bench", mesh)
    bpy.context.scene.collection.objects.link(obj)
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    groups = [obj.vertex_groups.new(name=f"b{b}") for b in range(BONES)]
    nearest = numpy.clip(co[:, 0].astype(int), 0, BONES - 1)
    for offset, weight in ((0, 0.4), (1, 0.3), (-1, 0.2), (2, 0.1)):
        bone = (nearest + offset) % BONES
        order = numpy.argsort(bone, kind="stable")
        cuts = numpy.searchsorted(bone[order], numpy.arange(BONES + 1))
        for b in range(BONES):
            idx = order[cuts[b]:cuts[b + 1]].tolist()
            if idx:
                groups[b].add(idx, weight, "REPLACE")
    for k, frame in enumerate(range(1, FRAMES + 1, 4)):  # a wave travelling down the chain
        for i, pb in enumerate(arm.pose.bones):
            pb.rotation_mode = "QUATERNION"
            pb.rotation_quaternion = Quaternion((0.3, 1, 0.2), 0.05 * math.sin(k + i / 4))
            pb.keyframe_insert("rotation_quaternion", frame=frame)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    return arm, obj, mod


def bbones(arm, segments):
    for bone in arm.data.bones:
        bone.bbone_segments = segments


def shape_key(obj):
    """A key that widens the tube by half, its value keyed from 0 to 1 over the animation: the
    modifier's input changes every frame."""
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Wide", from_mix=False)
    co = numpy.empty(len(obj.data.vertices) * 3, numpy.float32)
    key.data.foreach_get("co", co)
    co = co.reshape(-1, 3)
    co[:, 1:] *= 1.5
    key.data.foreach_set("co", co.ravel())
    for value, frame in ((0.0, 1), (1.0, FRAMES)):
        key.value = value
        key.keyframe_insert("value", frame=frame)


def rigify_row(addon, win, area, region, draws):
    """The Rigify human played the three ways (Linear): (vertices, modifier, CPU mode, GPU mode, GPU
    mode drew it), the modifier before Bind and after Unbind."""
    with bpy.context.temp_override(window=win, area=area, region=region):  # its operators want a 3D view
        arm, obj = rigify_human(frames=FRAMES)
        bpy.ops.object.select_all(action="DESELECT")
        bpy.ops.view3d.view_all()
    bpy.context.view_layer.objects.active = obj
    obj.modifiers["Armature"].use_deform_preserve_volume = False
    modifier, row = frame_ms(win, area, region, draws), {}
    obj.skn.method = "LINEAR"
    for mode in ("CPU", "GPU"):
        obj.skn.mode = mode
        bpy.ops.skn.bind()
        row[mode] = statistics.median(frame_ms(win, area, region, draws))
        drawn = addon.modes.gpu_drawn(obj)  # the GPU pass's is the one returned
        bpy.ops.skn.unbind()
    return len(obj.data.vertices), statistics.median(modifier + frame_ms(win, area, region, draws)), row["CPU"], \
        row["GPU"], drawn


def pose(arm, k):
    for i, pb in enumerate(arm.pose.bones):
        pb.rotation_quaternion = Quaternion((0.3, 1, 0.2), 0.05 * math.sin(k + i))


def viewport():
    """The window, and its 3D viewport alone and its main region (framed on the mesh, solid mode,
    no overlays or anti-aliasing)."""
    def find():
        win = bpy.context.window_manager.windows[0]
        area = max((a for a in win.screen.areas if a.type == "VIEW_3D"), key=lambda a: a.width * a.height)
        return win, area, next(r for r in area.regions if r.type == "WINDOW")
    win, area, region = find()
    with bpy.context.temp_override(window=win, area=area, region=region):
        bpy.ops.screen.screen_full_area()
    win, area, region = find()
    bpy.context.preferences.system.viewport_aa = "OFF"
    space = area.spaces[0]
    space.shading.type, space.overlay.show_overlays = "SOLID", False
    with bpy.context.temp_override(window=win, area=area, region=region):
        bpy.ops.view3d.view_all()
    return win, area, region


def frame_ms(win, area, region, draws):
    """Median over RUNS playbacks (redraw_timer ANIM_PLAY) of the milliseconds a frame takes; checks
    that every frame drew the viewport (draws: a POST_VIEW callback's count)."""
    runs = []
    with bpy.context.temp_override(window=win, area=area, region=region):
        bpy.ops.wm.redraw_timer(type="ANIM_PLAY", iterations=1)  # warm: first draws build caches
        before = draws[0]
        for _ in range(RUNS):
            t0 = time.perf_counter()
            bpy.ops.wm.redraw_timer(type="ANIM_PLAY", iterations=1)
            runs.append((time.perf_counter() - t0) / FRAMES)
    if draws[0] - before < RUNS * FRAMES:
        print(f"warning: {draws[0] - before} viewport draws in {RUNS * FRAMES} frames")
    return [1000 * r for r in runs]


def deform_ms(fn, arm):
    """Median of RUNS pose changes until fn() has the deformed mesh ready (no redraw)."""
    times = []
    for k in range(RUNS):
        pose(arm, k)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def free_ms(addon, viewport, core, obj, arm, win, area, region, draws):
    """GPU mode's frame with the skinning taken out of its draw: the mesh skinned once on the CPU
    (this pose, by the binding GPU mode draws), its triangles in GPU mode's order and draws, drawn each frame
    by the same stages less skn's functions (viewport.plain_shader) in place of GPU mode's draw,
    the object shown as bounds as in GPU mode. The least a GPU-mode frame can cost on this
    renderer, whatever its vertex shader does."""
    b = addon.live.binding(obj)
    kind = b.set_pose(arm, obj.skn.method, obj)
    p, n, _ = b.rig.skin(b.pose, method=kind, normals=True, dqs_scale=core.dqs_scale(kind))
    software = b.drawing.software  # the order and the draws GPU mode takes
    vertices, triangles = viewport.drawing_order(b.rig.gpu_attributes()["positions"], b.triangles, software)
    batch = viewport.plain_batch(p[vertices], n[vertices], triangles, software)
    shader = viewport.plain_shader()
    model = viewport.model_matrix(b, obj, arm)

    def draw():
        view, projection = gpu.matrix.get_model_view_matrix(), gpu.matrix.get_projection_matrix()
        viewport.draw_batch(shader, batch, numpy.asarray(view, numpy.float64) @ model, projection)
    bpy.types.SpaceView3D.draw_handler_remove(addon.state.draw_handler[0], "WINDOW")  # GPU mode's draw, out
    handler = bpy.types.SpaceView3D.draw_handler_add(draw, (), "WINDOW", "POST_VIEW")
    try:
        return statistics.median(frame_ms(win, area, region, draws))
    finally:
        bpy.types.SpaceView3D.draw_handler_remove(handler, "WINDOW")
        addon.state.draw_handler[0] = bpy.types.SpaceView3D.draw_handler_add(addon.modes.draw_viewport, (), "WINDOW", "POST_VIEW")


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    vertices = int(argv[1]) if len(argv) > 1 else 1_000_000
    bpy.ops.preferences.addon_install(filepath=argv[0], overwrite=True)
    bpy.ops.preferences.addon_enable(module="skn_blender")
    import skn_blender as addon
    from skn_blender import core
    from skn_blender import viewport as skn_viewport
    arm, obj, mod = build(vertices)
    win, area, region = viewport()
    layer = bpy.context.view_layer
    layer.objects.active = obj
    draws = [0]
    counter = bpy.types.SpaceView3D.draw_handler_add(lambda: draws.__setitem__(0, draws[0] + 1), (), "WINDOW",
                                                     "POST_VIEW")

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; Blender "
          f"{bpy.app.version_string}; {gpu.platform.renderer_get()}")
    print(f"mesh: {len(obj.data.vertices):,} vertices, {len(obj.data.polygons):,} quads, {BONES} bones, "
          f"4 influences per vertex, keyed; ms a frame: median of {RUNS} ANIM_PLAY playbacks of {FRAMES} frames")
    obj.hide_set(True)
    mod.show_viewport = False
    floor = statistics.median(frame_ms(win, area, region, draws))
    obj.hide_set(False)
    rows, alone = [], []
    for label, preserve, method in (("Linear", False, "LINEAR"), ("Preserve Volume / DQS", True, "DQS")):
        mod.show_viewport, mod.use_deform_preserve_volume = True, preserve
        layer.update()
        row, modifier = {}, frame_ms(win, area, region, draws)
        blender_ms = deform_ms(layer.update, arm)
        obj.skn.method = method
        for mode in ("CPU", "GPU"):
            obj.skn.mode = mode
            bpy.ops.skn.bind()
            row[mode] = statistics.median(frame_ms(win, area, region, draws))
            if mode == "CPU":
                cpu_ms = deform_ms(lambda: (layer.update(), layer.update()), arm)  # skin, then re-evaluate
                binding = addon.live.binding(obj)
                skin_ms = deform_ms(lambda: binding.deform(obj, arm, method), arm)
            else:
                row["free"] = free_ms(addon, skn_viewport, core, obj, arm, win, area, region, draws)
            bpy.ops.skn.unbind()
        row["modifier"] = statistics.median(modifier + frame_ms(win, area, region, draws))
        rows.append((label, row))
        alone.append((label, blender_ms, cpu_ms, skin_ms))
    curved = []  # GPU mode on the rigs that need more than plain bones: Linear, modifier against GPU
    mod.use_deform_preserve_volume, obj.skn.method, obj.skn.mode = False, "LINEAR", "GPU"
    for label, setup, undo in (("B-Bones, 8 segments", lambda: bbones(arm, 8), lambda: bbones(arm, 1)),
                               ("a shape key, keyed", lambda: shape_key(obj), lambda: obj.shape_key_clear())):
        setup()
        layer.update()
        modifier = frame_ms(win, area, region, draws)
        bpy.ops.skn.bind()
        gpu_ms = statistics.median(frame_ms(win, area, region, draws))
        drawn = addon.modes.gpu_drawn(obj)
        bpy.ops.skn.unbind()
        curved.append((label, statistics.median(modifier + frame_ms(win, area, region, draws)), gpu_ms, drawn))
        undo()
    bpy.data.objects.remove(obj)
    bpy.data.objects.remove(arm)
    human = rigify_row(addon, win, area, region, draws)
    bpy.types.SpaceView3D.draw_handler_remove(counter, "WINDOW")

    print(f"{'per animation frame':24} {'Armature modifier':>18} {'skn CPU mode':>13} {'skn GPU mode':>13}"
          f"   {'modifier/CPU':>12} {'modifier/GPU':>12}   {'skinning free':>13} {'modifier/free':>13}")
    print(f"{'(the mesh hidden)':24} {floor:15.1f} ms")
    for label, r in rows:
        print(f"{label:24} {r['modifier']:15.1f} ms {r['CPU']:10.1f} ms {r['GPU']:10.1f} ms"
              f"   {r['modifier'] / r['CPU']:11.2f}x {r['modifier'] / r['GPU']:11.2f}x"
              f"   {r['free']:10.1f} ms {r['modifier'] / r['free']:12.2f}x")
    print(f"{'deformation alone':24} {'Armature modifier':>18} {'skn CPU mode':>13} {'of which skn':>13}")
    for label, b, c, s in alone:
        print(f"{label:24} {b:15.1f} ms {c:10.1f} ms {s:10.1f} ms")
    print(f"{'GPU mode, Linear':24} {'Armature modifier':>18} {'skn GPU mode':>13}   {'modifier/GPU':>12}")
    for label, m, g, drawn in curved:
        print(f"{label:24} {m:15.1f} ms {g:10.1f} ms   {m / g:11.2f}x" + ("" if drawn else "   (not drawn by the shader)"))
    print(f"{'Rigify human, Linear':24} {'Armature modifier':>18} {'skn CPU mode':>13} {'skn GPU mode':>13}"
          f"   {'modifier/CPU':>12} {'modifier/GPU':>12}")
    n, m, c, g, drawn = human
    print(f"{f'{n:,} vertices':24} {m:15.1f} ms {c:10.1f} ms {g:10.1f} ms   {m / c:11.2f}x {m / g:11.2f}x" +
          ("" if drawn else "   (not drawn by the shader)"))
    sys.stdout.flush()
    os._exit(0)


def run():
    try:
        main()
    except BaseException:
        import traceback
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)


# from Blender's event loop, once the window is up and drawing (a script run at startup is not)
bpy.app.timers.register(run, first_interval=0.5)
