"""The Python package against an independent numpy reference and the C
library's promises: every call round-trips, errors raise with the library's
message, outputs are written in place. Run: python3 -m unittest (with the
package on the path, e.g. PYTHONPATH=build/python)."""
import os
import unittest

import numpy

import skn
from skn import _abi

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "data", "gltf")


def quat_matrix(q):
    x, y, z, w = q / numpy.linalg.norm(q)
    return numpy.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def trs(t, q, s):
    m = numpy.eye(4)
    m[:3, :3] = quat_matrix(q) * s
    m[:3, 3] = t
    return m


class RandomRig:
    """A chain-and-branch skeleton, bind and posed transforms, and vertices
    with 4 weighted influences, with numpy's own FK and LBS."""

    def __init__(self, seed, joints=12, vertices=500, k=4):
        r = numpy.random.default_rng(seed)
        self.parents = numpy.array([-1] + [int(r.integers(0, j)) for j in range(1, joints)], numpy.int32)
        self.bind_local = [(r.uniform(-1, 1, 3), r.normal(size=4), numpy.ones(3)) for _ in range(joints)]
        self.pose_t, self.pose_q = r.uniform(-1, 1, (joints, 3)), r.normal(size=(joints, 4))
        self.pose_s = numpy.repeat(r.uniform(0.5, 1.5, (joints, 1)), 3, axis=1)
        self.bind = self.fk([trs(*b) for b in self.bind_local])
        self.positions = r.uniform(-2, 2, (vertices, 3)).astype(numpy.float32)
        self.joints = r.integers(0, joints, (vertices, k)).astype(numpy.uint32)
        self.weights = r.uniform(0.1, 1, (vertices, k)).astype(numpy.float32)

    def fk(self, locals_):
        world = []
        for j, m in enumerate(locals_):
            world.append(m if self.parents[j] < 0 else world[self.parents[j]] @ m)
        return numpy.array(world)

    def lbs(self):
        world = self.fk([trs(t, q, s) for t, q, s in zip(self.pose_t, self.pose_q, self.pose_s)])
        palette = world @ numpy.linalg.inv(self.bind)
        w = self.weights / self.weights.sum(axis=1, keepdims=True)
        p = numpy.concatenate([self.positions, numpy.ones((len(self.positions), 1))], axis=1)
        moved = numpy.einsum("vkij,vj->vki", palette[self.joints], p)[..., :3]
        return (w[..., None] * moved).sum(axis=1), palette

    def rig(self, **extra):
        return skn.Rig(parents=self.parents, bind_matrices=self.bind, positions=self.positions,
                       joints=self.joints, weights=self.weights, **extra)

    def posed(self, rig):
        pose = rig.pose()
        pose.set_local(translations=self.pose_t, rotations=self.pose_q, scales=self.pose_s)
        return pose


class TestLibrary(unittest.TestCase):
    def test_version(self):
        self.assertEqual(skn.version(), "1.5.0")
        self.assertTrue(os.path.exists(skn.LIBRARY_PATH) or skn.LIBRARY_PATH.startswith("libskn"))

    def test_kernels_agree(self):
        r = RandomRig(8)
        rig = r.rig()
        pose = r.posed(rig)
        skn.set_simd("scalar")
        self.assertEqual(skn.get_simd(), "scalar")
        reference = rig.skin(pose, method="dqs")
        skn.set_simd("auto")
        self.assertNotEqual(skn.get_simd(), "scalar")
        numpy.testing.assert_allclose(rig.skin(pose, method="dqs"), reference, atol=1e-5)

    def test_refuses_another_major(self):
        _abi.check_version(10203, "here")
        with self.assertRaisesRegex(ImportError, "libskn 2.0.1, but this package needs ABI 1"):
            _abi.check_version(20001, "here")


class TestRig(unittest.TestCase):
    def test_lbs_matches_numpy(self):
        r = RandomRig(1)
        rig = r.rig()
        self.assertEqual((rig.joint_count, rig.vertex_count, rig.max_influences_per_vertex), (12, 500, 4))
        want, _ = r.lbs()
        got = rig.skin(r.posed(rig))
        self.assertEqual(got.dtype, numpy.float32)
        numpy.testing.assert_allclose(got, want, atol=1e-4)

    def test_formulations_and_methods_agree_on_a_rigid_single_transform(self):
        r = RandomRig(2)
        rig = r.rig(triangles=numpy.arange(498).reshape(-1, 3), blend_weights=numpy.full(500, 0.5))
        self.assertTrue(rig.has_centers_of_rotation and rig.has_blend_weights)
        pose = rig.pose()
        m = trs([1, 2, 3], [0.2, 0.4, 0.1, 0.9], [1, 1, 1])
        pose.set_model(m @ r.bind)  # every M_i = m
        want = r.positions @ m[:3, :3].T + m[:3, 3]
        for method in skn.METHODS:
            numpy.testing.assert_allclose(rig.skin(pose, method=method), want, atol=1e-4, err_msg=method)

    def test_palette(self):
        r = RandomRig(3)
        rig = r.rig()
        pose = r.posed(rig)
        _, palette = r.lbs()
        numpy.testing.assert_allclose(pose.palette("mat4"), palette, atol=1e-5)
        numpy.testing.assert_allclose(pose.palette("rows3x4"), palette[:, :3, :], atol=1e-5)
        normal = numpy.linalg.inv(palette[:, :3, :3]).transpose(0, 2, 1)
        numpy.testing.assert_allclose(pose.palette("normal-rows3x4")[:, :, :3], normal, atol=1e-4)
        self.assertEqual(pose.palette("dual-quat").shape, (12, 8))
        self.assertEqual(pose.palette("dual-quat-scale-keep-y").shape, (12, 20))

    def test_set_model_round_trip(self):
        r = RandomRig(4)
        rig = r.rig()
        a, b = r.posed(rig), rig.pose()
        _, palette = r.lbs()
        b.set_model(palette @ r.bind)
        numpy.testing.assert_allclose(rig.skin(a), rig.skin(b), atol=1e-4)

    def test_csr_equals_fixed_width(self):
        r = RandomRig(5)
        offsets = numpy.arange(0, 501 * 4, 4)[:501]
        csr = skn.Rig(parents=r.parents, bind_matrices=r.bind, positions=r.positions, joints=r.joints.ravel(),
                      weights=r.weights.ravel(), offsets=offsets)
        fixed = r.rig()
        numpy.testing.assert_array_equal(csr.skin(r.posed(csr)), fixed.skin(r.posed(fixed)))


class TestOutputs(unittest.TestCase):
    def setUp(self):
        self.r = RandomRig(6)
        normals = numpy.tile([0, 0, 1], (500, 1))
        self.rig = self.r.rig(normals=normals, tangents=numpy.tile([1, 0, 0, 1], (500, 1)))
        self.pose = self.r.posed(self.rig)

    def test_written_in_place(self):
        out = numpy.zeros((500, 3), numpy.float32)
        address = out.ctypes.data
        self.assertIs(self.rig.skin(self.pose, out=out), out)
        self.assertEqual(out.ctypes.data, address)
        numpy.testing.assert_allclose(out, self.r.lbs()[0], atol=1e-4)

    def test_interleaved_view_in_place(self):
        vertex = numpy.full((500, 8), -7.0, numpy.float32)  # position, normal, two spare floats
        p, n, t = self.rig.skin(self.pose, out=vertex[:, 0:3], normals=vertex[:, 3:6])
        self.assertTrue(numpy.shares_memory(p, vertex) and t is None)
        numpy.testing.assert_allclose(vertex[:, 0:3], self.r.lbs()[0], atol=1e-4)
        numpy.testing.assert_allclose(numpy.linalg.norm(vertex[:, 3:6], axis=1), 1, atol=1e-5)
        self.assertTrue((vertex[:, 6:] == -7).all())

    def test_other_dtypes_are_copied_back(self):
        out = numpy.zeros((500, 3), numpy.float64)
        self.rig.skin(self.pose, out=out)
        numpy.testing.assert_allclose(out, self.r.lbs()[0], atol=1e-4)

    def test_range(self):
        out = numpy.full((500, 3), 5.0, numpy.float32)
        self.rig.skin(self.pose, out=out, first_vertex=100, vertex_count=50, threads=1)
        numpy.testing.assert_allclose(out[100:150], self.r.lbs()[0][100:150], atol=1e-4)
        self.assertTrue((out[:100] == 5).all() and (out[150:] == 5).all())

    def test_normals_and_tangents(self):
        p, n, t = self.rig.skin(self.pose, method="dqs", normals=True, tangents=True)
        numpy.testing.assert_allclose(numpy.linalg.norm(n, axis=1), 1, atol=1e-5)
        numpy.testing.assert_allclose(numpy.abs(t[:, 3]), 1)


class TestErrors(unittest.TestCase):
    def test_bad_inputs_raise_with_the_message(self):
        r = RandomRig(7)
        bad_parents = r.parents.copy()
        bad_parents[3] = 40
        with self.assertRaises(skn.BadHierarchy) as e:
            skn.Rig(parents=bad_parents, bind_matrices=r.bind, positions=r.positions, joints=r.joints, weights=r.weights)
        self.assertEqual(e.exception.status, "SKN_ERR_BAD_HIERARCHY")
        self.assertIn("joint 3: parent 40 is out of range", e.exception.message)
        bad = r.positions.copy()
        bad[9, 1] = numpy.nan
        with self.assertRaisesRegex(skn.NotFinite, "vertex 9"):
            skn.Rig(parents=r.parents, bind_matrices=r.bind, positions=bad, joints=r.joints, weights=r.weights)
        with self.assertRaisesRegex(skn.IndexOutOfRange, "joint 99 >= joint_count 12"):
            skn.Rig(parents=r.parents, bind_matrices=r.bind, positions=r.positions, joints=r.joints + 99 * (r.joints == 0),
                    weights=r.weights)
        rig = r.rig()
        with self.assertRaisesRegex(skn.Unsupported, "needs triangles"):
            rig.skin(rig.pose(), method="cor")
        with self.assertRaises(skn.Error):
            rig.pose().set_local(rotations=numpy.zeros((1, 4)), first=11)
        with self.assertRaisesRegex(skn.InvalidArgument, "shape"):
            rig.skin(rig.pose(), out=numpy.zeros((3, 3), numpy.float32))
        with self.assertRaisesRegex(skn.FileError, "cannot open"):
            skn.Gltf("/nonexistent.gltf")


class TestGltf(unittest.TestCase):
    def test_fox(self):
        g = skn.Gltf(os.path.join(DATA, "Fox", "glTF-Binary", "Fox.glb"))
        self.assertEqual([a["name"] for a in g.animations], ["Survey", "Walk", "Run"])
        self.assertEqual(g.primitives[0]["vertex_count"], 1728)
        self.assertEqual(g.triangles(0).shape, (576, 3))
        rig = g.bind(0, centers_of_rotation=True)
        pose = rig.pose()
        g.pose(pose, animation="Walk", time=0.25)
        walk = rig.skin(pose, method="cor")
        g.pose(pose, animation=None)
        rest = rig.skin(pose)
        self.assertTrue(numpy.isfinite(walk).all() and numpy.abs(walk - rest).max() > 1)
        with self.assertRaisesRegex(skn.IndexOutOfRange, "Dance"):
            g.find_animation("Dance")

    def test_from_bytes_and_the_bind_budget(self):
        with open(os.path.join(DATA, "Fox", "glTF-Binary", "Fox.glb"), "rb") as f:
            g = skn.Gltf.from_memory(f.read())
        self.assertEqual(g.primitives[0]["vertex_count"], 1728)
        with self.assertRaisesRegex(skn.Unsupported, "over max_bytes"):
            g.bind(0, max_bytes=1000)
        self.assertEqual(g.bind(0).vertex_count, 1728)

    def test_compact_layout(self):
        g = skn.Gltf(os.path.join(DATA, "Fox", "glTF-Binary", "Fox.glb"))
        out = {}
        for layout in ("full", "compact"):
            rig = g.bind(0, layout=layout)
            self.assertEqual(rig.layout, layout)
            pose = rig.pose()
            g.pose(pose, animation="Run", time=0.4)
            out[layout] = rig.skin(pose, method="dqs")
        size = numpy.linalg.norm(out["full"].max(axis=0) - out["full"].min(axis=0))
        moved = numpy.abs(out["compact"] - out["full"]).max()
        self.assertTrue(0 < moved <= 1e-5 * size, f"moved {moved} of size {size}")
        with self.assertRaisesRegex(skn.InvalidArgument, "layout 'tiny'"):
            g.bind(0, layout="tiny")


class TestGpu(unittest.TestCase):
    """The GPU calls (1.1): the text, the palette in skn_pose_palette's forms, the vertex inputs.
    tests/gl runs the text on Mesa against skn_skin."""

    def setUp(self):
        self.g = skn.Gltf(os.path.join(DATA, "Fox", "glTF-Binary", "Fox.glb"))
        self.rig = self.g.bind(0)
        self.pose = self.rig.pose()
        self.g.pose(self.pose, animation="Walk", time=0.2)

    def test_glsl_source(self):
        text = skn.glsl_source("dqs", normals=True, joint_count=24)
        self.assertIn("vec3 skn_skin_normal(vec3 rest_normal) {", text)
        self.assertNotIn("skn_skin_tangent(vec4 rest_tangent) {", text)
        self.assertIn("#version 330 core", text)
        self.assertNotIn("#version", skn.glsl_source("cor", dialect="300 es", palette="texture-2d", version_line=False))
        with self.assertRaisesRegex(skn.InvalidArgument, "dialect '450' is not one of 330, 300 es"):
            skn.glsl_source("lbs", dialect="450")
        with self.assertRaisesRegex(skn.InvalidArgument, "needs joint_count"):
            skn.glsl_source("lbs")

    def test_palette_is_the_pose_forms(self):
        self.assertEqual(skn.gpu_layout("blend", normals=True),
                         {"palette_vec4s": 11, "blend_weights": True, "centers": False})
        lbs = self.pose.gpu_palette("lbs", normals=True)
        self.assertEqual(lbs.shape, (24, 6, 4))
        numpy.testing.assert_array_equal(lbs[:, :3], self.pose.palette("rows3x4"))
        numpy.testing.assert_array_equal(lbs[:, 3:], self.pose.palette("normal-rows3x4"))
        dqs = self.pose.gpu_palette("dqs", dqs_scale="keep-y")
        numpy.testing.assert_array_equal(dqs.reshape(24, 20), self.pose.palette("dual-quat-scale-keep-y"))

    def test_attributes_are_the_influences(self):
        a = self.rig.gpu_attributes(joint_bits=8)
        self.assertEqual((a["joints"].dtype, a["joints"].shape, a["weights"].shape), (numpy.uint8, (1728, 4), (1728, 4)))
        numpy.testing.assert_allclose(a["weights"].sum(axis=1), 1, atol=1e-6)
        self.assertNotIn("centers", a)
        with self.assertRaisesRegex(skn.InvalidArgument, "influences is 5; skn's GLSL takes 4, 8, 12 or 16"):
            self.rig.gpu_attributes(influences=5)


if __name__ == "__main__":
    unittest.main()


class TestMorphTargets(unittest.TestCase):
    """Morph targets before skinning: numpy's LBS of the morphed mesh is the expectation."""

    def setUp(self):
        self.r = RandomRig(11)
        g = numpy.random.default_rng(12)
        self.dense = g.uniform(-0.3, 0.3, (500, 3)).astype(numpy.float32)
        self.vertices = g.choice(500, 60, replace=False).astype(numpy.uint32)
        self.sparse = g.uniform(-0.3, 0.3, (60, 3)).astype(numpy.float32)
        self.targets = [{"positions": self.dense}, {"positions": self.sparse, "vertices": self.vertices}]

    def expected(self, weights):
        r = self.r
        base = r.positions.copy()
        r.positions = base + weights[0] * self.dense
        r.positions[self.vertices] += weights[1] * self.sparse
        want, _ = r.lbs()
        r.positions = base
        return want

    def test_weights_from_bind_then_from_the_pose(self):
        rig = self.r.rig(morph_targets=self.targets, morph_weights=[0.5, -1.5])
        self.assertEqual((rig.morph_target_count, rig.morph_entry_count), (2, 560))
        pose = self.r.posed(rig)
        numpy.testing.assert_array_equal(pose.morph_weights, numpy.float32([0.5, -1.5]))
        numpy.testing.assert_allclose(rig.skin(pose), self.expected([0.5, -1.5]), atol=1e-4)
        pose.set_morph_weights([2.0], first=1)
        numpy.testing.assert_allclose(rig.skin(pose), self.expected([0.5, 2.0]), atol=1e-4)

    def test_arrays_are_checked_before_the_library(self):
        with self.assertRaisesRegex(skn.InvalidArgument, r"morph_targets\[1\].positions"):
            self.r.rig(morph_targets=[{"positions": self.dense}, {"positions": self.sparse[:59], "vertices": self.vertices}])
        with self.assertRaisesRegex(skn.InvalidArgument, r"morph_targets\[0\].positions"):
            self.r.rig(morph_targets=[{"positions": self.dense[:499]}])
        with self.assertRaisesRegex(skn.InvalidArgument, "morph_weights"):
            self.r.rig(morph_targets=self.targets, morph_weights=[1.0])
        with self.assertRaisesRegex(skn.InvalidArgument, "unknown keys"):
            self.r.rig(morph_targets=[{"position": self.dense}])
        bad = self.vertices.copy()
        bad[3] = 500
        with self.assertRaisesRegex(skn.IndexOutOfRange, "morph target 1: entry 3: vertex 500"):
            self.r.rig(morph_targets=[{"positions": self.dense}, {"positions": self.sparse, "vertices": bad}])
        rig = self.r.rig(morph_targets=self.targets)
        pose = rig.pose()
        with self.assertRaises(skn.IndexOutOfRange):
            pose.set_morph_weights([1, 2, 3])
        with self.assertRaises(skn.NotFinite):
            pose.set_morph_weights([float("nan")])
        numpy.testing.assert_array_equal(pose.morph_weights, numpy.zeros(2, numpy.float32))

    def test_gltf_target_names_and_node(self):
        corpus = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "data", "gltf-corpus")
        path = os.path.join(corpus, "valid", "blender-export", "28_shapekeys_anim", "28_shapekeys_anim.gltf")
        if not os.path.exists(path):
            self.skipTest("the shared glTF corpus is not beside the checkout")
        g = skn.Gltf(path)
        p = g.primitives[0]
        self.assertEqual((p["node_name"], p["morph_target_names"]), ("DrivenCube", ["Key 1"]))
        rig = g.bind(0)
        pose = rig.pose()
        g.pose(pose, 0, "Key.003Action", 0.25)
        self.assertTrue(0.0 < pose.morph_weights[0] <= 1.0)
