"""skn.bake: every row the mesh skn_skin gives at that frame's time, bit for bit; the same
bake however the frames are cut into tasks, here or on a Dask cluster this test starts on
loopback and stops; `skn bake`'s files (build/bin/skn, where it is built); a bake replaced
only with overwrite=True; bad requests refused."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy

import skn

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
FOX = os.path.join(ROOT, "data", "gltf", "Fox", "glTF-Binary", "Fox.glb")
CESIUM = os.path.join(ROOT, "data", "gltf", "CesiumMan", "glTF", "CesiumMan.gltf")
SKN = os.path.join(ROOT, os.environ.get("BUILD", "build"), "bin", "skn")
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


def load_json(path):
    with open(path) as f:
        return json.load(f)


def frame_mesh(path, animation, time, method="lbs"):
    """skn_skin's positions and normals (or None) at `time`, one call."""
    with skn.Gltf(path) as g, g.bind(0, centers_of_rotation=method == "cor") as rig, rig.pose() as pose:
        g.pose(pose, 0, animation, time)
        if rig.has_normals:
            return rig.skin(pose, method, normals=True)[:2]
        return rig.skin(pose, method), None


class Bake(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_rows_are_skn_skin(self):
        out = os.path.join(self.dir, "fox")
        m = skn.bake(FOX, out, animation="Walk", fps=10, frames=(2, 6), method="dqs", chunk=3)
        p = numpy.load(os.path.join(out, "positions.npy"))
        self.assertEqual(p.shape, (4, 1728, 3))
        self.assertEqual(p.dtype, numpy.float32)
        for row in range(4):
            want, _ = frame_mesh(FOX, 1, numpy.float32((2 + row) / numpy.float64(numpy.float32(10))), "dqs")
            self.assertTrue((p[row] == want).all(), row)
        self.assertEqual(m, load_json(os.path.join(out, "manifest.json")))
        self.assertEqual((m["frames"], m["fps"], m["method"], m["animation"]["name"]), ([2, 6], 10.0, "dqs", "Walk"))
        self.assertNotIn("normals", m["arrays"])

    def test_whole_animation_with_normals(self):
        out = os.path.join(self.dir, "cesium")
        m = skn.bake(CESIUM, out, fps=24, chunk=7)
        p, n = (numpy.load(os.path.join(out, f)) for f in ("positions.npy", "normals.npy"))
        with skn.Gltf(CESIUM) as g:
            a = g.animations[0]
        last = m["frames"][1] - 1  # every frame at or before the last key, the next one past it
        self.assertTrue(last / 24 <= a["end"] - a["start"] + 1e-6 < (last + 1) / 24, (m["frames"], a))
        self.assertEqual(p.shape, n.shape)
        want_p, want_n = frame_mesh(CESIUM, 0, numpy.float32(a["start"]) + numpy.float32(17 / numpy.float64(24)))
        self.assertTrue((p[17] == want_p).all() and (n[17] == want_n).all())

    @unittest.skipUnless(os.path.exists(SKN), "the skn command is not built")
    def test_the_command_writes_the_same(self):
        ours, theirs = os.path.join(self.dir, "py"), os.path.join(self.dir, "cli")
        skn.bake(CESIUM, ours, fps=30, frames=(5, 19), method="blend", blend=0.25, chunk=4)
        subprocess.run([SKN, "bake", CESIUM, "--fps", "30", "--frames", "5:19", "--method", "blend", "--blend", "0.25",
                        "--format", "npy", "-o", theirs], check=True, capture_output=True)
        for name in ("positions.npy", "normals.npy"):
            self.assertTrue((numpy.load(os.path.join(ours, name)) == numpy.load(os.path.join(theirs, name))).all(), name)
        a, b = (load_json(os.path.join(d, "manifest.json")) for d in (ours, theirs))
        for key in ("frames", "fps", "vertex_count", "method", "arrays", "shape", "animation"):
            self.assertEqual(a[key], b[key], key)

    def test_a_bake_is_replaced_only_when_asked(self):
        out = os.path.join(self.dir, "fox")
        skn.bake(FOX, out, frames=(0, 3))
        with self.assertRaisesRegex(FileExistsError, "holds a bake"):
            skn.bake(FOX, out, frames=(0, 2))
        self.assertEqual(numpy.load(os.path.join(out, "positions.npy")).shape[0], 3)
        skn.bake(FOX, out, frames=(0, 2), overwrite=True)
        self.assertEqual(numpy.load(os.path.join(out, "positions.npy")).shape[0], 2)
        self.assertEqual(sorted(os.listdir(out)), ["manifest.json", "positions.npy"])  # no temporary left

    def test_bad_requests(self):
        out = os.path.join(self.dir, "bad")
        for kwargs, error, message in (({"frames": (5, 2)}, skn.InvalidArgument, "need A < B"),
                                       ({"fps": 0}, skn.InvalidArgument, "above 0"),
                                       ({"format": "zarr"}, skn.Unsupported, "writes npy"),
                                       ({"animation": 7}, skn.IndexOutOfRange, "3 animations"),
                                       ({"method": "nope"}, skn.InvalidArgument, "method")):
            with self.assertRaisesRegex(error, message):
                skn.bake(FOX, out, **kwargs)
            self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))


@unittest.skipIf(UNDER_ASAN, "the plain run has it: Dask's worker processes under ASan's preload take minutes")
class BakeOnDask(unittest.TestCase):
    def test_a_local_cluster_bakes_what_this_process_does(self):
        from distributed import Client, LocalCluster
        tmp = tempfile.mkdtemp()
        try:
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                              dashboard_address=None, worker_dashboard_address=None, silence_logs=40) as cluster, \
                    Client(cluster, timeout=60) as client:
                m = skn.bake(CESIUM, os.path.join(tmp, "dask"), fps=30, frames=(0, 40), method="dqs", chunk=3,
                             client=client)
            here = skn.bake(CESIUM, os.path.join(tmp, "here"), fps=30, frames=(0, 40), method="dqs")
            self.assertEqual(m, here | {"file": m["file"]})
            for name in ("positions.npy", "normals.npy"):
                a, b = (numpy.load(os.path.join(tmp, d, name)) for d in ("dask", "here"))
                self.assertTrue((a == b).all(), name)
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main()
