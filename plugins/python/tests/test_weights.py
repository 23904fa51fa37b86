"""skn.weights and skn.Gltf.weights: closest-bone weights against numpy's own (d_min / d)^4, bone
heat's sums and symmetry on a tube along two bones, a glTF mesh and its skin, and bad input raising
the package's errors before anything reaches the library (or the library's, naming the item)."""
import os
import unittest

import numpy

import skn

HERE = os.path.dirname(os.path.abspath(__file__))
SIMPLE = os.path.join(HERE, "..", "..", "..", "data", "gltf", "SimpleSkin", "glTF-Embedded", "SimpleSkin.gltf")


def tube(rings=11, sides=12, length=2.0, radius=0.3):
    """A closed tube along +x from 0 to length: its positions (n, 3) and triangles (t, 3)."""
    x = numpy.repeat(numpy.linspace(0, length, rings), sides)
    a = numpy.tile(numpy.arange(sides) * 2 * numpy.pi / sides, rings)
    p = numpy.column_stack([x, radius * numpy.cos(a), radius * numpy.sin(a)])
    p = numpy.vstack([p, [[0, 0, 0], [length, 0, 0]]]).astype(numpy.float32)
    tris = []
    for k in range(rings - 1):
        for i in range(sides):
            a0, b0 = k * sides + i, k * sides + (i + 1) % sides
            tris += [(a0, b0, b0 + sides), (a0, b0 + sides, a0 + sides)]
    c0, c1, last = rings * sides, rings * sides + 1, (rings - 1) * sides
    for i in range(sides):
        tris += [(c0, (i + 1) % sides, i), (c1, last + i, last + (i + 1) % sides)]
    return p, numpy.array(tris, numpy.uint32)


HEADS = numpy.array([[0, 0, 0], [1, 0, 0]], numpy.float32)
TAILS = numpy.array([[1, 0, 0], [2, 0, 0]], numpy.float32)


def segment_distance(p, a, b):
    ab = b - a
    t = numpy.clip(((p - a) @ ab) / (ab @ ab), 0, 1)
    return numpy.linalg.norm(p - (a + t[:, None] * ab), axis=1)


class Weights(unittest.TestCase):
    def test_closest_is_the_falloff_skn_h_writes(self):
        p, t = tube()
        joints, weights = skn.weights(p, t, HEADS, TAILS, method="closest", influences=2)
        d = numpy.column_stack([segment_distance(p.astype(float), HEADS[b].astype(float), TAILS[b].astype(float))
                                for b in range(2)])
        v = (d.min(axis=1, keepdims=True) / numpy.maximum(d, 1e-300)) ** 4
        v[d == 0] = 1
        want = v / v.sum(axis=1, keepdims=True)
        got = numpy.zeros_like(want)
        for s in range(2):
            numpy.add.at(got, (numpy.arange(len(p)), joints[:, s]), weights[:, s])
        self.assertLess(numpy.abs(got - want).max(), 1e-6)
        self.assertTrue((weights[:, 0] >= weights[:, 1]).all(), "heaviest first")

    def test_heat_on_a_tube(self):
        p, t = tube(rings=21)
        joints, weights = skn.weights(p, t, HEADS, TAILS, influences=2, threads=1)
        self.assertLess(numpy.abs(weights.sum(axis=1) - 1).max(), 1e-6)
        w1 = numpy.where(joints == 1, weights, 0).sum(axis=1)
        ring = w1[:21 * 12].reshape(21, 12).mean(axis=1)
        self.assertTrue((numpy.diff(ring) >= -1e-6).all(), "bone 1's weight grows along the tube")
        self.assertAlmostEqual(ring[10], 0.5, delta=1e-4)
        j2, w2 = skn.weights(p, t, HEADS, TAILS, influences=2, threads=2)
        self.assertTrue((j2 == joints).all() and (w2 == weights).all(), "threads change nothing")

    def test_as_blender_keeps_every_joint_unnormalized(self):
        p, t = tube(rings=21)
        joints, weights = skn.weights(p, t, HEADS, TAILS, influences=2, as_blender=True)
        self.assertEqual(weights.shape, (len(p), 2))
        self.assertTrue(((weights == 0) | (weights > 0)).all() and (weights <= 1).all())

    def test_gltf_weights(self):
        with skn.Gltf(SIMPLE) as g:
            node = g.primitives[0]["node"]
            joints, weights = g.weights(node, influences=4)
            self.assertEqual(joints.shape, (g.primitives[0]["vertex_count"], 4))
            self.assertLess(numpy.abs(weights.sum(axis=1) - 1).max(), 1e-6)
            self.assertTrue((joints < g.primitives[0]["joint_count"]).all())
            with self.assertRaisesRegex(skn.InvalidArgument, "has no mesh"):
                g.weights(node + 1 if node == 0 else 0)
            with self.assertRaisesRegex(skn.IndexOutOfRange, "primitives"):
                g.weights(node, 5)
        with self.assertRaisesRegex(skn.InvalidArgument, "closed"):
            g.weights(node)

    def test_bad_input(self):
        p, t = tube()
        cases = [
            (dict(heads=HEADS[:1]), skn.InvalidArgument, "tails"),
            (dict(triangles=t.ravel()[:-1]), skn.InvalidArgument, "multiple of 3"),
            (dict(triangles=t.astype(numpy.float32)), TypeError, "indices"),
            (dict(method="dqs"), skn.InvalidArgument, "method"),
            (dict(influences=0), skn.InvalidArgument, "influences"),
            (dict(bone_joints=[0, 5], joint_count=2), skn.IndexOutOfRange, "bone 1: joint 5"),
            (dict(triangles=numpy.vstack([t, [[0, 0, 1]]])), skn.InvalidArgument, "degenerate"),
            (dict(triangles=numpy.vstack([t, [[0, 1, 100000]]])), skn.IndexOutOfRange, "out of range"),
            (dict(tails=HEADS), skn.InvalidArgument, "zero length"),
            (dict(positions=numpy.where(numpy.arange(len(p))[:, None] == 3, numpy.nan, p)), skn.NotFinite, "vertex 3"),
        ]
        for change, error, message in cases:
            args = dict(positions=p, triangles=t, heads=HEADS, tails=TAILS)
            args.update(change)
            with self.subTest(change=list(change)):
                with self.assertRaisesRegex(error, message):
                    skn.weights(args.pop("positions"), args.pop("triangles"), args.pop("heads"), args.pop("tails"),
                                **args)


if __name__ == "__main__":
    unittest.main()
