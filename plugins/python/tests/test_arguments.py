"""Every argument the package passes to C, wrong in each way a caller gets
it wrong: too short for the counts, of the wrong type, None, negative, a
name that is not one. Each raises the package's documented exception (a
ValueError or a TypeError, and an skn.Error) with a message that names the
argument — before C reads anything. tests/run-all runs this module once
more in an interpreter with AddressSanitizer preloaded, against the
sanitized library: a read past a numpy array's end fails it there."""
import os
import unittest

import numpy

import skn

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "data", "gltf")
J, N = 3, 4


def good():
    """The arguments of a valid bind: 3 joints in a chain, 4 vertices of 2 influences."""
    bind = numpy.array([numpy.eye(4)] * J)
    bind[:, 0, 3] = numpy.arange(J)
    return dict(parents=[-1, 0, 1], bind_matrices=bind, positions=numpy.arange(N * 3, dtype=numpy.float32).reshape(N, 3),
                normals=numpy.tile([0.0, 0.0, 1.0], (N, 1)), tangents=numpy.tile([1.0, 0.0, 0.0, 1.0], (N, 1)),
                joints=numpy.array([[0, 1], [1, 2], [2, 0], [0, 1]]), weights=numpy.full((N, 2), 0.5),
                blend_weights=numpy.full(N, 0.5), triangles=numpy.array([[0, 1, 2], [1, 2, 3]]))


def rig_with(**changes):
    args = good()
    args.update(changes)
    return skn.Rig(**{k: v for k, v in args.items() if v is not ...})


class TestArguments(unittest.TestCase):
    def setUp(self):
        self.rig = rig_with()
        self.pose = self.rig.pose()

    def refused(self, call, exception, message):
        with self.assertRaises(exception) as caught:
            call()
        self.assertIsInstance(caught.exception, skn.Error)
        self.assertIn(message, str(caught.exception))

    def test_short_arrays(self):
        v = ValueError
        self.refused(lambda: rig_with(normals=numpy.zeros((1, 3))), v, "normals has 1 rows of 3; expected (4, 3)")
        self.refused(lambda: rig_with(tangents=numpy.zeros((4, 3))), v, "tangents has shape (4, 3); expected (4, 4)")
        self.refused(lambda: rig_with(parents=[-1, 0]), v, "parents has shape (2,); expected (3,)")
        self.refused(lambda: rig_with(joints=numpy.zeros((3, 2), int)), v, "joints has shape (3, 2); expected (4, k)")
        self.refused(lambda: rig_with(weights=numpy.zeros((4, 1))), v, "weights has shape (4, 1); expected (4, 2)")
        self.refused(lambda: rig_with(blend_weights=numpy.zeros(3)), v, "blend_weights has 3 rows of 1; expected (4,)")
        self.refused(lambda: rig_with(triangles=[0, 1]), v, "triangles has 2 indices, not a multiple of 3")
        self.refused(lambda: rig_with(bind_matrices=numpy.eye(4)[:3]), v, "bind_matrices has shape (3, 4)")
        self.refused(lambda: rig_with(joints=[0, 1, 2, 0, 1, 2], weights=numpy.ones(6), offsets=[0, 2, 4, 6]), v,
                     "offsets has shape (4,); expected (5,)")
        self.refused(lambda: rig_with(joints=[0, 1, 2], weights=numpy.ones(6), offsets=[0, 2, 4, 6, 6]), v,
                     "joints has shape (3,); expected (6,)")
        self.refused(lambda: self.rig.skin(self.pose, out=numpy.zeros((3, 3), numpy.float32)), v,
                     "out has shape (3, 3); expected (4, 3)")
        self.refused(lambda: self.rig.skin(self.pose, normals=numpy.zeros((4, 2), numpy.float32)), v,
                     "normals has shape (4, 2); expected (4, 3)")
        self.refused(lambda: self.pose.set_local(translations=numpy.zeros((2, 3)), rotations=numpy.zeros((1, 4))), v,
                     "rotations has 1 rows; expected (2, 4)")
        self.refused(lambda: self.pose.set_model(numpy.zeros((2, 3, 3))), v, "matrices has shape (2, 3, 3)")

    def test_types(self):
        t = TypeError
        self.refused(lambda: rig_with(joints=numpy.zeros((4, 2))), t, "joints: float64 values are not indices")
        self.refused(lambda: rig_with(positions=[["a", "b", "c"]] * 4), t, "positions: <U1 values are not numbers")
        self.refused(lambda: rig_with(weights=numpy.zeros((4, 2), complex)), t, "weights: complex128 values are not")
        self.refused(lambda: rig_with(positions=None), t, "positions is required")
        self.refused(lambda: self.rig.skin(None), t, "pose must be a skn.Pose of this rig, not NoneType")
        self.refused(lambda: self.rig.skin(self.pose, out=[[0, 0, 0]] * 4), t, "out must be a numpy array")
        self.refused(lambda: self.rig.skin(self.pose, out=numpy.zeros((4, 3), int)), t, "int64 cannot hold coordinates")
        self.refused(lambda: self.rig.skin(self.pose, first_vertex=1.5), t, "first_vertex must be an integer")
        self.refused(lambda: self.rig.skin(self.pose, method=2), t, "method must be a name")
        self.refused(lambda: skn.Pose(None), t, "rig must be a skn.Rig")
        self.refused(lambda: skn.Gltf(42), t, "Gltf takes a path (str, bytes or os.PathLike), not int")

    def test_negative_indices(self):
        v = ValueError
        self.refused(lambda: self.rig.skin(self.pose, first_vertex=-1), v, "first_vertex is -1")
        self.refused(lambda: self.rig.skin(self.pose, vertex_count=-2), v, "vertex_count is -2")
        self.refused(lambda: rig_with(joints=[[0, 1], [1, -1], [2, 0], [0, 1]]), v, "joints[1, 1] is -1")
        self.refused(lambda: rig_with(parents=[-1, -2, 1]), v, "parents[1] is -2")
        self.refused(lambda: rig_with(triangles=[[0, 1, -3]]), v, "triangles[0, 2] is -3")
        self.refused(lambda: self.pose.set_local(rotations=[[0, 0, 0, 1]], first=-1), v, "first is -1")
        fox = skn.Gltf(os.path.join(DATA, "Fox", "glTF-Binary", "Fox.glb"))
        self.refused(lambda: fox.bind(-1), v, "primitive is -1")
        rig = fox.bind(0)
        self.refused(lambda: fox.pose(rig.pose(), animation=-1), v, "animation is -1")
        self.refused(lambda: fox.pose(rig.pose(), time=float("nan")), ValueError, "time is nan")
        self.refused(lambda: fox.bind(0, max_influences=-4), v, "max_influences is -4")
        self.refused(lambda: fox.bind(0, min_weight=-0.5), v, "min_weight is -0.5")

    def test_names(self):
        v = ValueError
        self.refused(lambda: self.rig.skin(self.pose, method="spline"), v,
                     "method 'spline' is not one of lbs, lbs-quat, dqs, blend, cor")
        self.refused(lambda: self.rig.skin(self.pose, dqs_scale="keep-z"), v, "dqs_scale 'keep-z' is not one of")
        self.refused(lambda: rig_with(weight_mode="sum"), v, "weight_mode 'sum' is not one of")
        self.refused(lambda: rig_with(layout="tiny"), v, "layout 'tiny' is not one of full, compact")
        self.refused(lambda: self.pose.palette("mat3"), v, "format 'mat3' is not one of mat4")
        self.refused(lambda: skn.set_simd("neon"), v, "simd 'neon' is not one of")
        self.refused(lambda: self.rig.skin(self.pose, stores="uncached"), v,
                     "stores 'uncached' is not one of auto, cached, streaming")
        # the stores change how the kernels write, never what
        ways = [self.rig.skin(self.pose, method="dqs", stores=s) for s in ("auto", "cached", "Streaming")]
        self.assertTrue(all(numpy.array_equal(ways[0], w) for w in ways[1:]))
        fox = skn.Gltf(os.path.join(DATA, "Fox", "glTF-Binary", "Fox.glb"))
        self.refused(lambda: fox.find_animation("Dance"), IndexError,
                     "no animation is named 'Dance'; the document has 'Survey', 'Walk', 'Run'")
        # names in any case, '-' or '_' alike
        self.rig.skin(self.pose, method="DQS", dqs_scale="KEEP_Y")
        self.rig.skin(self.pose, method="Lbs-Quat")
        self.assertEqual(skn.get_simd(), skn.get_simd().lower())

    def test_matrix_conventions(self):
        """(J, 16) is read as its reshape of (J, 4, 4): the same rig, the same palette."""
        args = good()
        bind = args["bind_matrices"]
        bind[1, :3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]  # a turn, so that a transpose would show
        flat = rig_with(bind_matrices=bind.reshape(J, 16))
        square = rig_with(bind_matrices=bind)
        pose_flat, pose_square = flat.pose(), square.pose()
        moved = numpy.array([numpy.eye(4)] * J)
        moved[:, :3, 3] = [0, 1, 0]
        moved[2, :3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
        pose_flat.set_model(moved.reshape(J, 16))
        pose_square.set_model(moved)
        numpy.testing.assert_array_equal(flat.skin(pose_flat), square.skin(pose_square))
        palette = pose_square.palette("mat4")
        numpy.testing.assert_allclose(palette[2] @ bind[2], moved[2], atol=1e-6)  # M_i = W_i^A (W_i^R)^-1

    def test_outputs_of_other_float_types(self):
        out = numpy.zeros((N, 3), numpy.float64)
        self.assertIs(self.rig.skin(self.pose, out=out), out)
        numpy.testing.assert_allclose(out, self.rig.skin(self.pose), atol=1e-6)


if __name__ == "__main__":
    unittest.main()
