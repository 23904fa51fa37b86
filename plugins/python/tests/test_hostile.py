"""The package under careless and hostile use (issue 43): objects copied,
closed, shared by threads; widths past C's; paths with NUL bytes; documents
that name files outside their folder, FIFOs and folders. Each case failed
before its fix — under the ASan-preloaded interpreter (tests/run-all's
python-asan) as a memory error where it was one."""
import copy
import gc
import mmap
import os
import pickle
import shutil
import tempfile
import threading
import unittest

import numpy
from numpy.lib.stride_tricks import as_strided

import skn
from skn import _abi

from test_skn import DATA, RandomRig

FOX = os.path.join(DATA, "Fox", "glTF-Binary", "Fox.glb")
RIGGED = os.path.join(DATA, "RiggedSimple", "glTF")


class Lifetimes(unittest.TestCase):
    """A handle lives in one place; a pose keeps its rig; close() and `with` free at once."""

    def test_copies_are_refused(self):  # #2: copy.copy shared the handle and freed it twice
        g = skn.Gltf(FOX)
        rig = g.bind(0)
        pose = rig.pose()
        for obj in (g, rig, pose):
            for how in (copy.copy, copy.deepcopy, pickle.dumps):
                with self.assertRaisesRegex(TypeError, "cannot be copied or pickled: it owns a libskn object"):
                    how(obj)
        # a copy forced past that shares the owner, whose handle is freed once
        dup = object.__new__(skn.Rig)
        dup.__dict__.update(rig.__dict__)
        del dup
        gc.collect()
        self.assertEqual(rig.pose().rig.vertex_count, 1728)

    def test_a_pose_keeps_its_rig(self):  # #3: the rig was kept only by a public attribute
        g = skn.Gltf(FOX)
        rig = g.bind(0)
        pose = rig.pose()
        with self.assertRaises(AttributeError):
            pose.rig = None
        g.pose(pose, animation=None)
        expected = rig.skin(pose)
        del rig
        gc.collect()
        g.pose(pose, animation=1, time=0.0)
        g.pose(pose, animation=None)
        numpy.testing.assert_array_equal(pose.rig.skin(pose), expected)

    def test_close_and_with(self):
        g = skn.Gltf(FOX)
        rig = g.bind(0)
        pose = rig.pose()
        with self.assertRaisesRegex(skn.InvalidArgument, "rig: 1 poses of it are alive; close them first"):
            rig.close()
        self.assertFalse(rig.closed)
        self.assertEqual(rig.skin(pose).shape, (1728, 3))  # refused, and still usable
        pose.close()
        pose.close()  # again: nothing
        self.assertTrue(pose.closed)
        for use in (lambda: pose.set_local(translations=[[0, 0, 0]]), lambda: rig.skin(pose),
                    lambda: g.pose(pose, animation=0), lambda: pose.palette()):
            with self.assertRaisesRegex(skn.InvalidArgument, "this skn.Pose is closed"):
                use()
        rig.close()
        with self.assertRaisesRegex(skn.InvalidArgument, "this skn.Rig is closed"):
            rig.pose()
        with skn.Gltf(FOX) as h:
            with h.bind(0) as r, r.pose() as p:
                h.pose(p, animation="Walk", time=0.3)
                self.assertTrue(numpy.isfinite(r.skin(p)).all())
            self.assertTrue(r.closed and p.closed)
        self.assertTrue(h.closed)
        with self.assertRaisesRegex(skn.InvalidArgument, "this skn.Gltf is closed"):
            h.bind(0)

    def test_a_pose_closed_before_collection(self):
        # the example, with close() in place of calling __del__ by hand
        g = skn.Gltf(FOX)
        r2 = g.bind(0)
        p2 = r2.pose()
        with self.assertRaisesRegex(skn.InvalidArgument, "poses of it are alive"):
            r2.close()
        p2.set_local(translations=[[0, 0, 0]])
        self.assertFalse(hasattr(skn.Rig, "__del__"))  # nothing a user can call to free it behind its poses


class Threads(unittest.TestCase):
    """ctypes lets threads into libskn at once: calls on one pose take turns."""
    ROUNDS = 1000

    def race(self, rig, pose, setters, method):
        """Threads alternating the setters and skinning; every skin must equal one setter's result."""
        expected = []
        for set_ in setters:
            set_(pose)
            expected.append(rig.skin(pose, method=method, threads=1).copy())
        self.assertFalse(numpy.array_equal(*expected))
        torn = []

        def write():
            for i in range(self.ROUNDS):
                setters[i % 2](pose)

        def skin():
            out = numpy.empty((rig.vertex_count, 3), numpy.float32)
            for _ in range(self.ROUNDS):
                rig.skin(pose, method=method, out=out, threads=1)
                if not any(numpy.array_equal(out, e) for e in expected):
                    torn.append(out.copy())

        threads = [threading.Thread(target=write), threading.Thread(target=skin)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(torn), 0, f"{len(torn)} of {self.ROUNDS} skins matched neither pose")
        for set_, e in zip(setters, expected):  # and nothing stale stays behind (DQS's derived forms)
            set_(pose)
            numpy.testing.assert_array_equal(rig.skin(pose, method=method, threads=1), e)

    def test_posing_while_skinning(self):  # #5
        r = RandomRig(5, joints=200, vertices=2000)  # 310 of 1,000 DQS skins were torn before the lock
        rig = r.rig()
        pose = rig.pose()
        a = (r.pose_t, r.pose_q, r.pose_s)
        b = (r.pose_t[::-1].copy(), r.pose_q[::-1].copy(), r.pose_s)
        setters = [lambda p, x=x: p.set_local(translations=x[0], rotations=x[1], scales=x[2]) for x in (a, b)]
        for method in ("dqs", "lbs"):
            self.race(rig, pose, setters, method)

    def test_morph_weights_while_skinning(self):  # #4: the run's cursors outgrew their array (SIGSEGV)
        r = RandomRig(6, joints=8, vertices=600)
        rng = numpy.random.default_rng(6)
        targets = []
        for t in range(40):
            vertices = numpy.sort(rng.choice(600, size=50 + 5 * t, replace=False)).astype(numpy.uint32)
            targets.append({"vertices": vertices, "positions": rng.normal(size=(len(vertices), 3)) * 0.1})
        rig = r.rig(morph_targets=targets)
        pose = r.posed(rig)
        many = rng.uniform(0.2, 1.0, 40)
        one = numpy.zeros(40)
        one[3] = 0.7
        setters = [lambda p: p.set_morph_weights(many), lambda p: p.set_morph_weights(one)]
        self.race(rig, pose, setters, "dqs")


class Widths(unittest.TestCase):
    """Counts, strides and indices are checked against their C types, never cut to them."""

    def test_an_output_stride_past_32_bits(self):  # #6: rows 2^32 + 16 bytes apart wrote row 1 at byte 16
        r = RandomRig(7, joints=3, vertices=2)
        rig = r.rig()
        pose = r.posed(rig)
        expected = rig.skin(pose)
        stride = 2 ** 32 + 16
        memory = mmap.mmap(-1, stride + 64)  # 4 GB of address space; two pages are touched
        raw = numpy.frombuffer(memory, numpy.uint8)
        rows = as_strided(raw.view(numpy.float32)[:3], shape=(2, 3), strides=(stride, 4))
        rig.skin(pose, out=rows)
        numpy.testing.assert_array_equal(rows, expected)
        self.assertFalse(raw[12:64].any(), "row 1 was written where a 32-bit stride puts it")
        del rows, raw
        memory.close()

    def test_struct_fields_refuse_what_does_not_fit(self):
        with self.assertRaisesRegex(skn.InvalidArgument, "SkinDesc.first_vertex is 4294967296; it must fit uint32"):
            _abi.SkinDesc(first_vertex=2 ** 32)
        d = _abi.BindDesc()
        for field, value in (("vertex_count", 2 ** 32 + 2), ("triangle_count", -1)):
            with self.assertRaisesRegex(skn.InvalidArgument, f"BindDesc.{field} is {value}"):
                setattr(d, field, value)
        with self.assertRaisesRegex(skn.InvalidArgument, "Attrib.stride is 4294967312"):
            _abi.Attrib(None, 2 ** 32 + 16)
        d.vertex_count = 2 ** 32 - 1
        self.assertEqual(d.vertex_count, 2 ** 32 - 1)

    def test_gpu_attributes_influences(self):  # #1: influences=0 made (n, 0) arrays that C wrote 4 wide
        rig = skn.Gltf(FOX).bind(0)
        for k in (0, 3, 20):
            with self.assertRaisesRegex(skn.InvalidArgument, f"influences is {k}; skn's GLSL takes 4, 8, 12 or 16"):
                rig.gpu_attributes(influences=k)
        with self.assertRaisesRegex(skn.InvalidArgument, "joint_bits is 0; it must be 8 or 16"):
            rig.gpu_attributes(joint_bits=0)
        self.assertEqual(rig.gpu_attributes(influences=8)["joints"].shape, (1728, 8))
        self.assertEqual(rig.gpu_attributes(influences=16)["weights"].shape, (1728, 16))


def within(seconds, fn):
    """fn()'s exception, or None; a failure if it has not returned in `seconds` (a daemon thread: a
    call blocked for ever cannot hold the process)."""
    outcome = []

    def run():
        try:
            fn()
            outcome.append(None)
        except Exception as e:  # noqa: BLE001 (handed to the test)
            outcome.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        raise AssertionError(f"still blocked after {seconds} s")
    return outcome[0]


class Paths(unittest.TestCase):
    """File names as the system takes them; documents read files of their own folder only."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="skn-paths-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_nul_bytes(self):  # #16: "Fox.glb\0.other" opened Fox.glb
        for path in (FOX + "\0.other", os.fsencode(FOX) + b"\0.other"):
            with self.assertRaisesRegex(skn.InvalidArgument, "holds a NUL byte at"):
                skn.Gltf(path)
        with self.assertRaisesRegex(skn.InvalidArgument, "skn.Gltf.from_memory"):
            skn.Gltf(open(FOX, "rb").read())  # a document's bytes are not a path
        with self.assertRaisesRegex(skn.InvalidArgument, "folder .* holds a NUL byte"):
            skn.Gltf.from_memory(b"{}", folder="a\0b")

    def test_file_names_as_bytes(self):  # names that are not UTF-8, as os functions take them
        name = os.path.join(os.fsencode(self.dir), b"fox-\xff.glb")
        shutil.copyfile(FOX, name)
        self.assertEqual(skn.Gltf(name).primitives[0]["vertex_count"], 1728)
        self.assertEqual(skn.Gltf(os.fsdecode(name)).primitives[0]["vertex_count"], 1728)

    def write(self, uri, where="doc/a.gltf"):
        text = open(os.path.join(RIGGED, "RiggedSimple.gltf")).read().replace('"RiggedSimple0.bin"', f'"{uri}"')
        path = os.path.join(self.dir, where)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_uris_outside_the_folder(self):  # #15: a buffer uri "../../etc/passwd" was read
        os.makedirs(os.path.join(self.dir, "elsewhere"))
        shutil.copyfile(os.path.join(RIGGED, "RiggedSimple0.bin"), os.path.join(self.dir, "elsewhere", "x.bin"))
        doc = self.write("../elsewhere/x.bin")
        with self.assertRaisesRegex(skn.FileError, r'buffers\[0\].uri "../elsewhere/x.bin": climbs out of the '
                                                   r"document's folder"):
            skn.Gltf(doc)
        self.assertEqual(len(skn.Gltf(doc, any_path=True).primitives), 1)
        doc = self.write("../../../../../../etc/passwd")
        with self.assertRaisesRegex(skn.FileError, "climbs out"):
            skn.Gltf(doc)
        text = open(doc, "rb").read()  # from memory: files come from the folder it is given
        with self.assertRaisesRegex(skn.FileError, "climbs out"):
            skn.Gltf.from_memory(text, folder=os.path.join(self.dir, "doc"))

    def test_folders_and_fifos(self):  # #13, #14: ftell of a folder; a FIFO blocked for ever
        fifo = os.path.join(self.dir, "pipe.gltf")
        os.mkfifo(fifo)
        doc = self.write("pipe.gltf", where="a.gltf")
        for path, message in ((self.dir, "is a directory, not a regular file"),
                              (fifo, "is a FIFO, not a regular file"), (doc, 'pipe.gltf" is a FIFO')):
            e = within(10, lambda: skn.Gltf(path))
            self.assertIsInstance(e, skn.FileError)
            self.assertIn(message, str(e))


if __name__ == "__main__":
    unittest.main()
