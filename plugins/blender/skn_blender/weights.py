"""Bind with Automatic Weights (skn): Blender's Ctrl+P > With Automatic Weights, its weights
computed by libskn's bone heat (skn_compute_weights, SKN_WEIGHTS_AS_BLENDER) or closest-bone.

Blender's own operator, as shared/notes/blender-deform.md section 7 writes it out: the heat
sources are the armature's deform bones, rest head to tail in world space, a B-Bone's segments
along its rest spline (all into its group); the mesh is its vertices in world space and its loop
triangles; a group's weight is stored where Blender would store it (dropped below 0.025, 2u - 0.05
below 0.05; a B-Bone's segments summed). This operator parents as Blender does (the Armature
modifier, a group for every deform bone: parent_set's With Empty Groups), then fills the groups.

What it keeps of the user's work: groups of other names, and locked groups, are not touched; a
deform bone's unlocked group is replaced, as Blender's own replaces it. Everything is computed
before anything changes: an error (a mesh skn refuses, named) changes nothing, and the operation
is one undo step."""
import bpy
import numpy

from . import core, skn
from .rules import matrix

METHODS = (("HEAT", "Bone Heat", "Blender's With Automatic Weights (Baran & Popovic 2007), computed by skn"),
           ("CLOSEST", "Closest Bone", "From the distance to each bone, falling off as (nearest / distance)^4"))


def heat_sources(arm):
    """The armature's deform bones as segments in world space: (heads (b, 3), tails (b, 3), the
    bone index of each segment (b,), the bones)."""
    bones = [b for b in arm.data.bones if b.use_deform]
    world = matrix(arm.matrix_world)
    heads, tails, owner = [], [], []
    for i, b in enumerate(bones):
        local = matrix(b.matrix_local)
        n = b.bbone_segments
        if n > 1:  # the segments' joints along the rest spline (PoseBone.bbone_segment_matrix)
            pb = arm.pose.bones[b.name]
            points = [(local @ matrix(pb.bbone_segment_matrix(k, rest=True)))[:3, 3] for k in range(n + 1)]
        else:
            points = [numpy.array(b.head_local, numpy.float64), numpy.array(b.tail_local, numpy.float64)]
        for k in range(len(points) - 1):
            heads.append(points[k])
            tails.append(points[k + 1])
            owner.append(i)
    def to_world(p):
        p = numpy.asarray(p, numpy.float64)
        return (p @ world[:3, :3].T + world[:3, 3]).astype(numpy.float32)
    return to_world(heads), to_world(tails), numpy.array(owner, numpy.uint32), bones


def mesh_weights(obj, arm, method="HEAT", threads=0):
    """Blender's stored weights of each deform bone for mesh `obj`: (bones, (n, bones) float32)."""
    heads, tails, owner, bones = heat_sources(arm)
    if not bones:
        raise ValueError(f"{arm.name} has no deform bone")
    mesh = obj.data
    co = numpy.empty(len(mesh.vertices) * 3, numpy.float32)
    mesh.vertices.foreach_get("co", co)
    m = matrix(obj.matrix_world)
    positions = (co.reshape(-1, 3).astype(numpy.float64) @ m[:3, :3].T + m[:3, 3]).astype(numpy.float32)
    joints, w = skn.weights(positions, core.triangles_of(mesh), heads, tails, bone_joints=owner,
                            joint_count=len(bones), method=method.lower(), influences=len(bones),
                            as_blender=True, non_manifold=True, threads=threads)
    dense = numpy.zeros((len(positions), len(bones)), numpy.float32)
    rows = numpy.repeat(numpy.arange(len(positions)), joints.shape[1])
    numpy.add.at(dense, (rows, joints.ravel()), w.ravel())
    return bones, dense


def write_groups(obj, bones, dense):
    """Each bone's group filled with its column: replaced where unlocked, the vertices of weight 0
    taken out of it (as Blender's ED_vgroup_vert_remove)."""
    everyone = list(range(len(obj.data.vertices)))
    for i, b in enumerate(bones):
        g = obj.vertex_groups.get(b.name) or obj.vertex_groups.new(name=b.name)
        if g.lock_weight:
            continue
        g.remove(everyone)
        column = dense[:, i]
        weighted = numpy.nonzero(column > 0)[0]
        if not len(weighted):
            continue
        order = weighted[numpy.argsort(column[weighted], kind="stable")]
        values = column[order]
        starts = numpy.flatnonzero(numpy.r_[True, values[1:] != values[:-1]])
        for a, e in zip(starts, numpy.r_[starts[1:], len(order)]):  # one call per distinct weight
            g.add(order[a:e].tolist(), float(values[a]), "REPLACE")


class SKN_OT_parent_with_weights(bpy.types.Operator):
    """Parent the selected meshes to the active armature with weights skn computes (bone heat as
    Blender's With Automatic Weights, or closest bone)"""
    bl_idname, bl_label = "skn.parent_with_weights", "With Automatic Weights (skn)"
    bl_options = {"REGISTER", "UNDO"}

    method: bpy.props.EnumProperty(name="Method", items=METHODS, default="HEAT")

    @classmethod
    def poll(cls, ctx):
        a = ctx.active_object
        return a is not None and a.type == "ARMATURE" and ctx.mode == "OBJECT" and \
            any(o.type == "MESH" for o in ctx.selected_objects if o is not a)

    def execute(self, ctx):
        arm = ctx.active_object
        meshes = [o for o in ctx.selected_objects if o.type == "MESH" and o is not arm]
        computed = []
        for obj in meshes:  # all of them first: an error leaves every mesh as it was
            try:
                computed.append((obj,) + mesh_weights(obj, arm, self.method))
            except Exception as e:
                self.report({"ERROR"}, f"skn: {obj.name}: {e}")
                return {"CANCELLED"}
        result = bpy.ops.object.parent_set(type="ARMATURE_NAME")  # Blender's parenting, empty groups
        if "FINISHED" not in result:
            self.report({"ERROR"}, "skn: Blender's Parent With Empty Groups did not finish")
            return {"CANCELLED"}
        for obj, bones, dense in computed:
            write_groups(obj, bones, dense)
            obj.data.update()
        return {"FINISHED"}


def menu(self, ctx):
    self.layout.operator(SKN_OT_parent_with_weights.bl_idname)
