"""skn.bake: every row the mesh skn_skin gives at that frame's time, bit for bit; the same
bake however the frames are cut into tasks, here or on a Dask cluster this test starts on
loopback and stops, npy and zarr; `skn bake`'s files (build/bin/skn, where it is built), Zarr's
chunk files byte for byte; a bake replaced only with overwrite=True; bad requests refused; a
bake killed with SIGKILL (the command's and Python's, zarr and npy; the command's textures)
leaves no manifest, and its rerun keeps what was whole and makes the rest; a Dask worker killed
with SIGKILL mid-bake, and the bake still ends whole and equal."""
import contextlib
import json
import os
import signal
import subprocess
import shutil
import sys
import tempfile
import threading
import time
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


class Scratch(unittest.TestCase):
    """A test with a folder of its own, self.dir, removed after it."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)


class Bake(Scratch):

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

    @unittest.skipUnless(os.path.exists(SKN), "the skn command is not built")
    def test_the_textures_are_the_command_s(self):
        """vat-exr, vat-png and bone-vat go through the skn command: its files, byte for byte; its
        refusals as skn's errors."""
        for fmt, extra, opts in (("vat-exr", ["--exr-float", "--vat-width", "1000"], {"exr_float": True, "vat_width": 1000}),
                                 ("vat-png", [], None), ("bone-vat", [], None)):
            ours, theirs = os.path.join(self.dir, fmt), os.path.join(self.dir, fmt + "-cli")
            m = skn.bake(CESIUM, ours, fps=24, frames=(1, 5), format=fmt, textures=opts)
            subprocess.run([SKN, "bake", CESIUM, "--fps", "24", "--frames", "1:5", "--format", fmt, "-o", theirs] + extra,
                           check=True, capture_output=True)
            self.assertEqual(m, load_json(os.path.join(theirs, "manifest.json")))
            for f in sorted(os.listdir(theirs)):
                with open(os.path.join(ours, f), "rb") as a, open(os.path.join(theirs, f), "rb") as b:
                    self.assertEqual(a.read(), b.read(), (fmt, f))
        with self.assertRaisesRegex(skn.InvalidArgument, "bone-vat is LBS's palette"):
            skn.bake(CESIUM, os.path.join(self.dir, "bad"), format="bone-vat", method="dqs")
        with self.assertRaisesRegex(skn.Error, "holds a bake"):
            skn.bake(CESIUM, os.path.join(self.dir, "vat-png"), format="vat-png")

    def test_several_bakes_in_one_run(self):
        """animation="all": each animation into out/p0-aA, each the bake of that animation alone,
        byte for byte (and the command's run of the same, where it is built); out/manifest.json
        lists them. A name that is not there is refused before anything is made."""
        out, one = os.path.join(self.dir, "all"), os.path.join(self.dir, "run")
        m = skn.bake(FOX, out, animation="all", fps=10)
        self.assertEqual([(b["folder"], b["animation"]["name"]) for b in m["bakes"]],
                         [("p0-a0", "Survey"), ("p0-a1", "Walk"), ("p0-a2", "Run")])
        self.assertEqual(m, load_json(os.path.join(out, "manifest.json")))
        skn.bake(FOX, one, animation="Run", fps=10)
        with open(os.path.join(out, "p0-a2", "positions.npy"), "rb") as a, \
                open(os.path.join(one, "positions.npy"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        if os.path.exists(SKN):
            cli = os.path.join(self.dir, "cli")
            subprocess.run([SKN, "bake", FOX, "--animation", "all", "--fps", "10", "--format", "npy", "-o", cli],
                           check=True, capture_output=True)
            self.assertEqual(load_json(os.path.join(cli, "manifest.json")), m)
            for f in ("p0-a0", "p0-a1"):
                with open(os.path.join(out, f, "positions.npy"), "rb") as a, \
                        open(os.path.join(cli, f, "positions.npy"), "rb") as b:
                    self.assertEqual(a.read(), b.read(), f)
        with self.assertRaisesRegex(skn.IndexOutOfRange, "no animation is named 'Nope'"):
            skn.bake(FOX, os.path.join(self.dir, "bad"), animation=["Walk", "Nope"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad")))

    def test_bad_requests(self):
        out = os.path.join(self.dir, "bad")
        for kwargs, error, message in (({"frames": (5, 2)}, skn.InvalidArgument, "need A < B"),
                                       ({"fps": 0}, skn.InvalidArgument, "above 0"),
                                       ({"format": "obj"}, skn.Unsupported, "writes npy, zarr, vat-png"),
                                       ({"frames": (3, 30), "animation": "Walk", "fps": 10}, skn.IndexOutOfRange,
                                        r"frames 3:30: animation 1 \(Walk\) has frames 0 to 7 at 10 fps"),
                                       ({"frames": (0, 2), "animation": None}, skn.IndexOutOfRange,
                                        "no animation has frames 0 to 0"),
                                       ({"animation": 7}, skn.IndexOutOfRange, "3 animations"),
                                       ({"method": "nope"}, skn.InvalidArgument, "method")):
            with self.assertRaisesRegex(error, message):
                skn.bake(FOX, out, **kwargs)
            self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))

    def test_a_folder_not_writable(self):
        """OUT not writable (mode 555), and a new OUT inside it: PermissionError naming the path, and
        nothing left there. As root, whom no mode stops, the bakes run as nobody (setpriv), from
        copies of the package and the file that nobody can read."""
        os.chmod(self.dir, 0o755)
        shutil.copytree(os.path.dirname(os.path.abspath(skn.__file__)), os.path.join(self.dir, "skn"))
        shutil.copy(FOX, self.dir)
        locked = os.path.join(self.dir, "locked")
        os.mkdir(locked, 0o555)
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.getuid() == 0 else []
        fox = os.path.join(self.dir, "Fox.glb")
        env = {k: v for k, v in os.environ.items() if k not in ("SKN_LIBRARY", "LD_PRELOAD")}  # the copy's library
        env["PYTHONPATH"] = self.dir
        for fmt, out in (("npy", locked), ("zarr", locked), ("npy", os.path.join(locked, "new"))):
            script = (f"import skn\ntry:\n    skn.bake({fox!r}, {out!r}, frames=(0, 3), format={fmt!r})\n"
                      "except PermissionError as e:\n    raise SystemExit(f'PermissionError: {e}')\n")
            done = subprocess.run(as_nobody + [sys.executable, "-c", script], capture_output=True, text=True,
                                  env=env, cwd=self.dir)
            self.assertEqual(done.returncode, 1, done.stderr)
            self.assertRegex(done.stderr, rf"^PermissionError: \[Errno 13\] Permission denied: '{out}", (fmt, out))
            self.assertEqual(os.listdir(locked), [])


def chunks_of(out):
    """{array/chunk file: its stat} of the whole chunk files a Zarr bake holds."""
    found = {}
    for a in ("positions", "normals"):
        folder = os.path.join(out, a)
        for f in os.listdir(folder) if os.path.isdir(folder) else ():
            if f.endswith(".0.0"):
                found[f"{a}/{f}"] = os.stat(os.path.join(folder, f))
    return found


def stop_mid_bake(proc, out, chunks):
    """SIGSTOP to `proc` once `chunks` chunk files are in out/positions, then SIGKILL: True where
    it was stopped before it wrote its manifest (False: it finished first, or never got there)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(chunks_of(out)) >= chunks:
            os.kill(proc.pid, signal.SIGSTOP)
            finished = os.path.exists(os.path.join(out, "manifest.json"))
            proc.kill()
            proc.wait()
            return not finished
        time.sleep(0.001)
    proc.kill()
    proc.wait()
    return False


class Zarr(Scratch):

    def test_the_npy_bake_chunked_and_the_command_s_files(self):
        import zarr
        z, n, c = (os.path.join(self.dir, d) for d in ("z", "n", "c"))
        m = skn.bake(CESIUM, z, fps=30, frames=(3, 40), method="dqs", format="zarr", chunk=5)
        skn.bake(CESIUM, n, fps=30, frames=(3, 40), method="dqs")
        g = zarr.open(z, mode="r")
        for name in ("positions", "normals"):
            self.assertEqual((g[name].shape, g[name].chunks), ((37, 3273, 3), (5, 3273, 3)))
            self.assertTrue((g[name][:] == numpy.load(os.path.join(n, f"{name}.npy"))).all(), name)
        self.assertEqual(m, load_json(os.path.join(z, "manifest.json")))
        self.assertEqual((m["format"], m["chunks"], m["arrays"]),
                         ("zarr", [5, 3273, 3], {"positions": "positions", "normals": "normals"}))
        if not os.path.exists(SKN):
            return
        subprocess.run([SKN, "bake", CESIUM, "--fps", "30", "--frames", "3:40", "--method", "dqs", "--format", "zarr",
                        "--chunk", "5", "-o", c], check=True, capture_output=True)
        files = sorted(chunks_of(z)) + [".zgroup", "positions/.zarray", "normals/.zarray"]
        self.assertEqual(sorted(chunks_of(c)), sorted(chunks_of(z)))
        for f in files:
            with open(os.path.join(z, f), "rb") as a, open(os.path.join(c, f), "rb") as b:
                self.assertEqual(a.read(), b.read(), f)
        self.assertEqual(m, load_json(os.path.join(c, "manifest.json")))

    def test_a_full_disk_is_an_error_and_leaves_no_manifest(self):
        out = os.path.join(self.dir, "full")
        os.makedirs(out)
        os.symlink("/dev/full", os.path.join(out, f".zgroup.tmp{os.getpid()}"))  # the group's temporary name
        with self.assertRaisesRegex(OSError, "No space left on device"):
            skn.bake(FOX, out, frames=(0, 3), format="zarr")
        self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))
        self.assertFalse(os.path.lexists(os.path.join(out, f".zgroup.tmp{os.getpid()}")))

    def killed_and_rerun(self, command):
        """`command` (Python's or the skn command's form) bakes CesiumMan to zarr, is killed with
        SIGKILL once 2 chunks (5 chunk files) are written, and run again: it keeps those, makes the rest, and the
        arrays are the npy bake's."""
        out = os.path.join(self.dir, "killed")
        for fps in (600, 2400, 9600):  # a bake long enough to be caught in the middle
            shutil.rmtree(out, ignore_errors=True)
            args = command + [CESIUM, "--fps", str(fps), "--method", "dqs", "--format", "zarr", "--chunk", "8", "-o", out]
            if stop_mid_bake(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), out, 5):
                break
        else:
            self.fail("every bake finished before it could be killed")
        self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))
        before = chunks_of(out)
        chunks = len(range(0, load_json(os.path.join(out, "positions", ".zarray"))["shape"][0], 8))
        kept = [c for c in range(chunks) if all(before.get(f"{a}/{c}.0.0") and before[f"{a}/{c}.0.0"].st_size == 8 * 3273 * 12
                                                for a in ("positions", "normals"))]
        self.assertTrue(2 <= len(kept) < chunks, (kept, chunks))
        rerun = subprocess.run(args, check=True, capture_output=True, text=True)
        self.assertIn(f"resumed: {len(kept)} of {chunks} chunks were whole and kept", rerun.stderr)
        after = chunks_of(out)
        self.assertEqual(len(after), 2 * chunks)
        for f in (f"{a}/{c}.0.0" for c in kept for a in ("positions", "normals")):  # not written again
            self.assertEqual((after[f].st_ino, after[f].st_mtime_ns), (before[f].st_ino, before[f].st_mtime_ns), f)
        self.assertEqual([f for a in ("positions", "normals") for f in os.listdir(os.path.join(out, a)) if ".tmp" in f], [])
        import zarr
        here = skn.bake(CESIUM, os.path.join(self.dir, "here"), fps=fps, method="dqs")
        g = zarr.open(out, mode="r")
        for name in ("positions", "normals"):
            self.assertTrue((g[name][:] == numpy.load(os.path.join(self.dir, "here", f"{name}.npy"))).all(), name)
        self.assertEqual(load_json(os.path.join(out, "manifest.json"))["frames"], here["frames"])

    def npy_killed_and_rerun(self, command, unit):
        """The same for npy (one file an array): killed with SIGKILL once some frames are in (the
        command's file has 2 MB; Python's, memory-mapped at full size from the start, lists 2
        chunks in .skn-done), rerun, it keeps what was whole and the arrays are the ones baked here."""
        out = os.path.join(self.dir, "killed-npy")
        partial, log = os.path.join(out, "positions.npy.partial"), os.path.join(out, ".skn-done")

        def started():
            if unit == "chunks":
                return os.path.exists(log) and open(log).read().count("\n") >= 2
            return os.path.exists(partial) and os.path.getsize(partial) > 2 << 20
        for fps in (600, 2400, 9600):
            shutil.rmtree(out, ignore_errors=True)
            args = command + [CESIUM, "--fps", str(fps), "--method", "dqs", "--format", "npy", "-o", out]
            proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 120
            while proc.poll() is None and time.monotonic() < deadline and not started():
                time.sleep(0.001)
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGSTOP)
                stopped = not os.path.exists(os.path.join(out, "manifest.json"))
                proc.kill()
                proc.wait()
                if stopped:
                    break
        else:
            self.fail("every bake finished before it could be killed")
        self.assertEqual(sorted(f for f in os.listdir(out) if not f.startswith(".")),
                         ["normals.npy.partial", "positions.npy.partial"])
        rerun = subprocess.run(args, check=True, capture_output=True, text=True)
        self.assertRegex(rerun.stderr, rf"resumed: [1-9][0-9]* of [0-9]+ {unit} were whole and kept")
        self.assertEqual(sorted(os.listdir(out)), ["manifest.json", "normals.npy", "positions.npy"])
        skn.bake(CESIUM, os.path.join(self.dir, "here"), fps=fps, method="dqs")
        for name in ("positions.npy", "normals.npy"):
            with open(os.path.join(out, name), "rb") as a, open(os.path.join(self.dir, "here", name), "rb") as b:
                self.assertTrue(a.read() == b.read(), name)

    def textures_killed_and_rerun(self, fmt):
        """A texture bake (a texture is one file) killed with SIGKILL once 2 chunks of its frames
        are baked (OUT/.skn-frames, by --chunk), and run again: it keeps those, skins the rest, and
        writes textures byte for byte those of a bake never killed; the frames it baked first go."""
        out, whole = os.path.join(self.dir, "killed-" + fmt), os.path.join(self.dir, "whole-" + fmt)
        frames = os.path.join(out, ".skn-frames")
        for fps in (600, 2400, 9600):
            shutil.rmtree(out, ignore_errors=True)
            args = [SKN, "bake", CESIUM, "--fps", str(fps), "--method", "dqs", "--format", fmt, "--chunk", "8"]
            if stop_mid_bake(subprocess.Popen(args + ["-o", out], stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL), frames, 5):
                break
        else:
            self.fail("every bake finished before it could be killed")
        self.assertEqual([f for f in os.listdir(out) if not f.startswith(".")], [])  # no texture, no manifest
        before = chunks_of(frames)
        chunks = len(range(0, load_json(os.path.join(frames, "positions", ".zarray"))["shape"][0], 8))
        kept = [c for c in range(chunks) if all(before.get(f"{a}/{c}.0.0") and before[f"{a}/{c}.0.0"].st_size == 8 * 3273 * 12
                                                for a in ("positions", "normals"))]
        self.assertTrue(2 <= len(kept) < chunks, (kept, chunks))
        rerun = subprocess.run(args + ["-o", out], check=True, capture_output=True, text=True)
        self.assertIn(f"resumed: {len(kept)} of {chunks} chunks were whole and kept", rerun.stderr)
        self.assertFalse(os.path.exists(frames))
        subprocess.run(args + ["-o", whole], check=True, capture_output=True)
        self.assertEqual(sorted(os.listdir(out)), sorted(os.listdir(whole)))
        for name in os.listdir(whole):
            with open(os.path.join(out, name), "rb") as a, open(os.path.join(whole, name), "rb") as b:
                self.assertTrue(a.read() == b.read(), name)

    @unittest.skipUnless(os.path.exists(SKN), "the skn command is not built")
    def test_png_textures_killed_and_rerun(self):
        self.textures_killed_and_rerun("vat-png")

    @unittest.skipUnless(os.path.exists(SKN), "the skn command is not built")
    def test_exr_textures_killed_and_rerun(self):
        self.textures_killed_and_rerun("vat-exr")

    def test_python_npy_killed_and_rerun(self):
        self.npy_killed_and_rerun([sys.executable, "-m", "skn", "bake", "--chunk", "8"], "chunks")

    @unittest.skipUnless(os.path.exists(SKN), "the skn command is not built")
    def test_the_command_s_npy_killed_and_rerun(self):
        self.npy_killed_and_rerun([SKN, "bake"], "frames")

    def test_python_killed_and_rerun(self):
        self.killed_and_rerun([sys.executable, "-m", "skn", "bake"])

    @unittest.skipUnless(os.path.exists(SKN), "the skn command is not built")
    def test_the_command_killed_and_rerun(self):
        self.killed_and_rerun([SKN, "bake"])


@unittest.skipIf(UNDER_ASAN, "the plain run has it: Dask's worker processes under ASan's preload take minutes")
class BakeOnDask(Scratch):
    @contextlib.contextmanager
    def cluster(self):
        """A client of a LocalCluster of 2 worker processes, a thread each, on loopback, no dashboard."""
        from distributed import Client, LocalCluster
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                          worker_dashboard_address=None, silence_logs=50) as cluster, \
                Client(cluster, timeout=60) as client:
            yield client

    def test_a_local_cluster_bakes_what_this_process_does(self):
        with self.cluster() as client:
            m = skn.bake(CESIUM, os.path.join(self.dir, "dask"), fps=30, frames=(0, 40), method="dqs", chunk=3,
                         client=client)
        here = skn.bake(CESIUM, os.path.join(self.dir, "here"), fps=30, frames=(0, 40), method="dqs")
        self.assertEqual(m, here | {"file": m["file"]})
        for name in ("positions.npy", "normals.npy"):
            a, b = (numpy.load(os.path.join(self.dir, d, name)) for d in ("dask", "here"))
            self.assertTrue((a == b).all(), name)

    def test_textures_on_a_cluster_are_the_command_s(self):
        """vat-png with a client: the frames baked to zarr on the cluster, then the command writes the
        textures from them; the files are the one-process bake's byte for byte, and the frames go."""
        dask, here = os.path.join(self.dir, "dask"), os.path.join(self.dir, "here")
        with self.cluster() as client:
            m = skn.bake(CESIUM, dask, fps=24, frames=(2, 30), format="vat-png", chunk=5, client=client)
        self.assertEqual(m, skn.bake(CESIUM, here, fps=24, frames=(2, 30), format="vat-png"))
        self.assertEqual(sorted(os.listdir(dask)), sorted(os.listdir(here)))
        for f in os.listdir(here):
            with open(os.path.join(dask, f), "rb") as a, open(os.path.join(here, f), "rb") as b:
                self.assertEqual(a.read(), b.read(), f)

    def test_a_worker_killed_mid_bake(self):
        """Each task writes its own chunk; a worker killed with SIGKILL while the bake runs loses
        its tasks, which the scheduler runs again elsewhere: the bake ends whole, equal to one
        baked here."""
        import zarr
        out, result = os.path.join(self.dir, "dask"), {}

        def run(client):
            try:
                result["manifest"] = skn.bake(CESIUM, out, fps=600, method="dqs", format="zarr", chunk=4, client=client)
            except BaseException as e:  # noqa: B902 (handed to the test's thread)
                result["error"] = e
        with self.cluster() as client:
            pids = sorted(client.run(os.getpid).values())
            baker = threading.Thread(target=run, args=(client,))
            baker.start()
            deadline = time.monotonic() + 120
            while len(chunks_of(out)) < 6 and baker.is_alive() and time.monotonic() < deadline:
                time.sleep(0.001)
            killed_before_end = not os.path.exists(os.path.join(out, "manifest.json")) and baker.is_alive()
            os.kill(pids[0], signal.SIGKILL)
            baker.join(180)
        self.assertTrue(killed_before_end, "the bake ended before the worker was killed")
        self.assertNotIn("error", result)
        here = skn.bake(CESIUM, os.path.join(self.dir, "here"), fps=600, method="dqs")
        self.assertEqual(result["manifest"]["frames"], here["frames"])
        g = zarr.open(out, mode="r")
        for name in ("positions", "normals"):
            self.assertTrue((g[name][:] == numpy.load(os.path.join(self.dir, "here", f"{name}.npy"))).all(), name)


if __name__ == "__main__":
    unittest.main()
