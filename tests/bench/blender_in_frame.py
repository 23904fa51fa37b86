"""Where in Blender's frame the add-on's result could go: a frame change three ways on one grid.

  modifier  the Armature modifier deforms the grid;
  post      the add-on's design today: a frame_change_post handler writes the result helper
            (a mesh of points that the "skn" Geometry Nodes modifier reads) and tags it, so
            Blender evaluates the grid a second time in the frame (its pass 1);
  driver    a driver on the "skn" modifier, evaluated in the frame's own evaluation (pass 0)
            after the bones it names, reads an Object property whose getter writes the points
            into the helper's evaluated mesh; the grid is evaluated once, after it.

The same numpy copy of a frame's precomputed points stands for skn's skinning in both of skn's
ways, so the figures compare what Blender does around the result, not the skinning. The driver
way's grid is checked to be exactly each frame's points. Why the driver names the helper's
`dimensions`: Blender's dependency graph puts a driver variable on an Object's `dimensions`
after that object's geometry (a variable on the getter's property alone is ordered after its
parameters only: the helper could be evaluated again after the getter wrote it).

    blender -b --factory-startup -Y --python tests/bench/blender_in_frame.py

(-Y: Python auto-execution off, as a user's Blender has it: the driver's expression is one
Blender evaluates without Python, and the getter is an add-on's property, so it still runs.)
"""
import statistics
import sys
import time

import bpy
import numpy

ROUNDS, FRAMES = 5, 20
SUBDIVISIONS = (224, 447)  # 50,625 and 199,809 vertices
MODES = ("modifier", "post", "driver")
state = {"mode": None, "calls": 0, "frames": {}}


def getter(self):
    """The driver's variable: writes the frame's points into the evaluated helper (self)."""
    if state["mode"] != "driver" or not self.is_evaluated:
        return 0.0
    state["calls"] += 1
    self.data.vertices.foreach_set("co", state["frames"][bpy.context.scene.frame_current])
    return 0.0


def after_frame(scene, depsgraph):
    if state["mode"] == "post":
        state["helper"].data.vertices.foreach_set("co", state["frames"][scene.frame_current])
        state["helper"].data.update()


def rig(subdivisions):
    """A grid, three bones along it (two keyed to bend), one group a bone: (grid, armature)."""
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=subdivisions, y_subdivisions=subdivisions, size=4)
    grid = bpy.context.object
    arm = bpy.data.objects.new("Arm", bpy.data.armatures.new("Arm"))
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    parent = None
    for i in range(3):
        eb = arm.data.edit_bones.new(f"b{i}")
        eb.head, eb.tail, eb.parent = (-2 + 4 * i / 3, 0, 0), (-2 + 4 * (i + 1) / 3, 0, 0), parent
        parent = eb
    bpy.ops.object.mode_set(mode="OBJECT")
    for i in (1, 2):
        pb = arm.pose.bones[f"b{i}"]
        pb.rotation_mode = "XYZ"
        for f in range(1, FRAMES + 1):
            pb.rotation_euler = (0, 0, 0.03 * f)
            pb.keyframe_insert("rotation_euler", frame=f)
    x = numpy.array([v.co.x for v in grid.data.vertices])
    for i in range(3):
        inside = (x >= -2 + 4 * i / 3 - 1e-6) & (x < -2 + 4 * (i + 1) / 3 + 1e-6)
        grid.vertex_groups.new(name=f"b{i}").add(numpy.nonzero(inside)[0].tolist(), 1.0, "REPLACE")
    return grid, arm


def transport(grid):
    """The result helper and the "skn" modifier reading it (Object Info, Sample Index, Set Position)."""
    n = len(grid.data.vertices)
    co = numpy.empty(n * 3, numpy.float32)
    grid.data.vertices.foreach_get("co", co)
    mesh = bpy.data.meshes.new("result")
    mesh.vertices.add(n)
    mesh.vertices.foreach_set("co", co)
    helper = bpy.data.objects.new("result", mesh)
    ng = bpy.data.node_groups.new("skn bench", "GeometryNodeTree")
    ng.inputs.new("NodeSocketGeometry", "Geometry")
    ng.outputs.new("NodeSocketGeometry", "Geometry")
    ng.inputs.new("NodeSocketFloat", "Driven")
    nodes, link = ng.nodes, ng.links.new
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")
    info, sample = nodes.new("GeometryNodeObjectInfo"), nodes.new("GeometryNodeSampleIndex")
    info.inputs[0].default_value = helper
    sample.data_type, sample.domain = "FLOAT_VECTOR", "POINT"
    position, index, move = (nodes.new(t) for t in ("GeometryNodeInputPosition", "GeometryNodeInputIndex",
                                                     "GeometryNodeSetPosition"))
    link(info.outputs["Geometry"], sample.inputs["Geometry"])
    link(position.outputs[0], sample.inputs[3])
    link(index.outputs[0], sample.inputs["Index"])
    link(given.outputs[0], move.inputs["Geometry"])
    link(sample.outputs[2], move.inputs["Position"])
    link(move.outputs[0], out.inputs[0])
    mod = grid.modifiers.new("skn", "NODES")
    mod.node_group = ng
    state["helper"], state["frames"] = helper, {f: co + numpy.float32(0.001 * f) for f in range(1, FRAMES + 1)}
    return mod, f'modifiers["skn"]["{ng.inputs["Driven"].identifier}"]'


def set_mode(mode, grid, arm, armature_mod, skn_mod, path):
    state["mode"] = mode
    armature_mod.show_viewport, armature_mod.object = mode == "modifier", arm if mode == "modifier" else None
    skn_mod.show_viewport = mode != "modifier"
    if grid.animation_data is not None and grid.animation_data.drivers:
        grid.driver_remove(path)
    if mode == "driver":
        driver = grid.driver_add(path).driver
        driver.type, driver.expression = "SCRIPTED", "0"
        for bone in arm.data.bones:
            v = driver.variables.new()
            v.type, v.targets[0].id, v.targets[0].bone_target = "TRANSFORMS", arm, bone.name
        for data_path in ("skn_bench_skin", "dimensions[0]"):
            v = driver.variables.new()
            v.type, v.targets[0].id_type = "SINGLE_PROP", "OBJECT"
            v.targets[0].id, v.targets[0].data_path = state["helper"], data_path
    bpy.context.view_layer.update()


def frame_ms(grid):
    scene = bpy.context.scene
    t0 = time.perf_counter()
    for f in range(1, FRAMES + 1):
        scene.frame_set(f)
        grid.evaluated_get(bpy.context.evaluated_depsgraph_get())
    return (time.perf_counter() - t0) / FRAMES * 1000


def exact(grid):
    """Whether the driver way's grid is each frame's points, and its getter's calls a frame."""
    ok = True
    for f in (3, 7, 12):
        bpy.context.scene.frame_set(f)
        mesh = grid.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
        co = numpy.empty(len(mesh.vertices) * 3, numpy.float32)
        mesh.vertices.foreach_get("co", co)
        ok &= bool(numpy.array_equal(co, state["frames"][f]))
    state["calls"] = 0
    frame_ms(grid)
    return ok, state["calls"] / FRAMES


def main():
    bpy.types.Object.skn_bench_skin = bpy.props.FloatProperty(get=getter)
    bpy.app.handlers.frame_change_post.append(after_frame)
    print(f"a frame change (frame_set + the evaluated mesh), ms: median of {ROUNDS} rounds of {FRAMES} frames, "
          f"the ways alternated")
    print(f"{'vertices':>9} {'modifier':>9} {'post':>7} {'driver':>7}  modifier/post  modifier/driver  driver exact")
    for sub in SUBDIVISIONS:
        grid, arm = rig(sub)
        armature_mod = grid.modifiers.new("Armature", "ARMATURE")
        skn_mod, path = transport(grid)
        ms = {m: [] for m in MODES}
        for _ in range(ROUNDS):
            for m in MODES:
                set_mode(m, grid, arm, armature_mod, skn_mod, path)
                frame_ms(grid)  # (a warm-up pass)
                ms[m].append(frame_ms(grid))
        ok, calls = exact(grid)
        med = {m: statistics.median(v) for m, v in ms.items()}
        print(f"{len(grid.data.vertices):>9,} {med['modifier']:9.2f} {med['post']:7.2f} {med['driver']:7.2f}"
              f"  {med['modifier'] / med['post']:12.2f}x  {med['modifier'] / med['driver']:14.2f}x"
              f"  {ok} ({calls:g} getter call a frame)")
        if not ok or calls != 1:
            sys.exit("the driver's grid is not each frame's points")


main()
