"""skn.weights: first weights for a mesh and its bones (skn_compute_weights, abi/skn.h section 7),
bone heat as Blender's "With Automatic Weights" computes it or closest-bone, as the influences
skn.Rig takes."""
import ctypes

import numpy

from . import _args, _abi, _check, _attrib, _lib, _ptr


def weights(positions, triangles, heads, tails, *, bone_joints=None, joint_count=0, method="heat",
            influences=4, min_weight=0.0, weld=False, non_manifold=False, as_blender=False, threads=0):
    """Weights of every vertex by the bones: (joints, weights), each (n, influences), heaviest first,
    unused slots joint 0 weight 0 — skn.Rig(joints=..., weights=...) takes them as they are.

    positions (n, 3) and triangles (t, 3) are the mesh; heads and tails (b, 3) the bones, segments in
    the positions' space. bone_joints (b,) gives each bone's weight to a joint (a B-Bone's segments to
    one; None: bone i to joint i) and joint_count bounds them. method: "heat" (bone heat) or
    "closest". weld: vertices at one position are one surface vertex (a glTF mesh's seams);
    non_manifold: accept edges of three or more triangles, as Blender does; as_blender: the values
    Blender stores in vertex groups (not normalized; give influences=joint_count to keep them all).
    Bad input raises skn.InvalidArgument (or IndexOutOfRange, NotFinite) naming the item."""
    p = _args.rows(positions, "positions", 3)
    n = len(p)
    tri = _args.indices(triangles, "triangles").reshape(-1)
    if tri.size % 3:
        raise _args.bad(f"triangles has {tri.size} indices, not a multiple of 3")
    tri = tri.reshape(-1, 3)
    h = _args.rows(heads, "heads", 3)
    b = len(h)
    t = _args.rows(tails, "tails", 3, b)
    bj = None if bone_joints is None else _args.indices(bone_joints, "bone_joints", (b,))
    k = _args.count(influences, "influences", minimum=1)
    d = _abi.WeightsDesc(struct_size=ctypes.sizeof(_abi.WeightsDesc), vertex_count=n, bone_count=b)
    d.method = _args.name(method, _abi.WEIGHTS_METHODS, "method")
    d.positions = _attrib(p)
    d.triangle_count = len(tri)
    d.triangles = tri.ctypes.data if len(tri) else None
    d.bone_heads, d.bone_tails = _ptr(h), _ptr(t)
    d.bone_joints = None if bj is None else bj.ctypes.data
    d.joint_count = _args.count(joint_count, "joint_count")
    d.influences_per_vertex = k
    d.min_weight = _args.real(min_weight, "min_weight", minimum=0.0)
    d.flags = (_abi.WEIGHTS_WELD if weld else 0) | (_abi.WEIGHTS_NON_MANIFOLD if non_manifold else 0) | \
        (_abi.WEIGHTS_AS_BLENDER if as_blender else 0)
    d.threads = _args.count(threads, "threads")
    joints = numpy.zeros((n, k), dtype=numpy.uint32)
    out = numpy.zeros((n, k), dtype=numpy.float32)
    _check(_lib.skn_compute_weights(ctypes.byref(d), joints.ctypes.data, out.ctypes.data))
    return joints, out
