"""skn.bake: a primitive's animation skinned at a frame rate into per-frame arrays, the files and
manifest `skn bake` writes (plugins/cli/bake.c), here or spread over a Dask cluster:

- "npy": OUT/positions.npy and OUT/normals.npy (float32, frames x vertices x 3, row i frame A + i).
  Tasks return their frames and this process writes them into its rows of the arrays (memory-
  mapped), a few tasks in flight, so that memory holds a few chunks, not the bake. The arrays are
  written under temporary names and renamed when whole.
- "vat-png", "vat-exr", "bone-vat": the textures, one file a bake, written by the skn command
  (found beside libskn or on PATH) with the same arguments. vat-png and vat-exr bake their frames
  first as a zarr bake in OUT/.skn-frames, by `chunk` frames, which a rerun after an unfinished
  bake keeps: the command does that itself, or with a client the tasks do it on the cluster and
  the command reads it (--from-zarr) instead of skinning; bone-vat, which only poses, is made here.
- "zarr": OUT a Zarr (v2) group of the same arrays, chunked by `chunk` frames, uncompressed, as the
  command writes it byte for byte. Each task writes its own chunk files, under a temporary name
  and renamed into place whole, and skips a chunk already whole: a task run twice (a worker that
  died after writing) changes nothing. OUT/.skn-progress fingerprints the bake; a rerun of one
  that did not finish keeps the chunks already whole and makes the others.

Either way the manifest, OUT/manifest.json, is written last, after every chunk was checked whole:
a folder with a manifest holds a whole bake, and one that does is replaced only with
overwrite=True. A task needs nothing but the file's path (it opens the document and binds the
primitive itself, once a process: _opened), so that a cluster's workers need only see the same
files.

ctypes releases the GIL around every call into libskn (CDLL), so threads skin in parallel: a
worker's threads each run a task. skn_skin spreads one call over every core unless told `threads`;
with a client each task skins on its own thread (threads=1) by default, the cluster's workers
being the parallelism. `python3 -m skn bake` (main, below) is the command's form of it, which
`skn bake --dask` runs."""
import collections
import ctypes
import json
import math
import os
import shutil
import subprocess
import sys
import threading

import numpy

from . import Error, Gltf, IndexOutOfRange, Pose, Rig, Unsupported, _Using, _abi, _args, _check, _lib, version

FORMATS = ("npy", "zarr")
TEXTURES = ("vat-png", "vat-exr", "bone-vat")  # written by the skn command (_by_the_command)


def _plan(gltf, animation, fps, frames):
    """(animation index or None, its first key, first frame, end frame), in the command's float
    arithmetic (bake.c), so that both bake the same frames at the same times. Frames past the
    animation's last (every frame at or before its last key; one frame without an animation) are
    refused, as the command refuses them."""
    if isinstance(animation, str):
        animation = gltf.find_animation(animation)
    elif animation is not None:
        animation = _args.count(animation, "animation")
        if not gltf.animations and animation == 0:
            animation = None  # the default, the first animation, where there is none
        elif animation >= len(gltf.animations):
            raise IndexOutOfRange("SKN_ERR_INDEX_OUT_OF_RANGE",
                                  f"animation {animation}: the document has {len(gltf.animations)} animations")
    start, length = numpy.float32(0), numpy.float32(0)
    if animation is not None:
        a = gltf.animations[animation]
        start = numpy.float32(a["start"])
        length = numpy.float32(a["end"]) - start
    count = math.floor(float(length) * float(fps) + 1e-6) + 1
    if frames is None:
        return animation, start, 0, count
    first, end = frames
    first, end = _args.count(first, "frames[0]"), _args.count(end, "frames[1]")
    if first >= end:
        raise _args.bad(f"frames ({first}, {end}): frames A to B - 1 need A < B")
    if end > count:
        what = "no animation" if animation is None else f"animation {animation} ({gltf.animations[animation]['name']})"
        raise IndexOutOfRange("SKN_ERR_INDEX_OUT_OF_RANGE",
                              f"frames {first}:{end}: {what} has frames 0 to {count - 1} at {float(fps):g} fps")
    return animation, start, first, end


def _bind(gltf, job):
    n = gltf.primitives[job["primitive"]]["vertex_count"]
    return gltf.bind(job["primitive"], centers_of_rotation=job["method"] == "cor",
                     blend_weights=numpy.full(n, job["blend"], numpy.float32) if job["method"] == "blend" else None)


_OPENED = collections.OrderedDict()  # a process's documents and rigs, kept for its next task: key -> (gltf, rig)
_OPENED_LOCK = threading.Lock()


def _opened(job):
    """The document and the rig a task skins with: opened and bound once a process and kept for
    its next tasks (a worker runs many of one bake's; opening and binding a 10,000-vertex
    character takes as long as skinning 100 of its frames), while the file's time and size are
    unchanged; the last two kept. A Rig and a Gltf may be used by several threads at once."""
    st = os.stat(job["path"])
    key = (job["path"], st.st_mtime_ns, st.st_size, job["any_path"], job["primitive"], job["method"], job["blend"])
    with _OPENED_LOCK:
        if key in _OPENED:
            _OPENED.move_to_end(key)
            return _OPENED[key]
    gltf = Gltf(job["path"], any_path=job["any_path"])
    opened = gltf, _bind(gltf, job)
    with _OPENED_LOCK:
        _OPENED[key] = opened
        while len(_OPENED) > 2:
            _OPENED.popitem(last=False)  # freed when no task uses it (skn's objects outlive their users)
    return opened


def _skin_frames(job, first, end, positions, normals):
    """Frames [first, end) skinned into positions[i] and normals[i] (None: none), i from 0: the
    calls Gltf.pose and Rig.skin make, with their checks done once for the task (the arrays are
    this module's own, C-contiguous float32 rows of the rig's vertices), which at one thread a
    10,000-vertex frame saves a third of."""
    gltf, rig = _opened(job)
    rows = positions.shape[1] * 12
    d = _abi.SkinDesc(struct_size=ctypes.sizeof(_abi.SkinDesc), method=_abi.METHODS[job["method"]],
                      threads=job["threads"], dqs_scale=_abi.DQS_SCALES[job["dqs_scale"]])
    animation = _abi.NO_ANIMATION if job["animation"] is None else job["animation"]
    with rig.pose() as pose, _Using((gltf, Gltf, "gltf"), (rig, Rig, "rig"), (pose, Pose, "pose")) as (g, r, p):
        for i in range(end - first):
            t = job["start"] + numpy.float32((first + i) / numpy.float64(job["fps"]))  # float32, as the command's
            _check(_lib.skn_gltf_pose(g, job["primitive"], animation, float(t), p))
            d.positions = _abi.Attrib(positions.ctypes.data + i * rows, 12)
            if normals is not None:
                d.normals = _abi.Attrib(normals.ctypes.data + i * rows, 12)
            _check(_lib.skn_skin(r, p, ctypes.byref(d)))


def _npy_task(job, first, end):
    """Frames [first, end): (first, positions (n, v, 3), normals (n, v, 3) or None)."""
    shape = (end - first, job["vertices"], 3)
    p = numpy.empty(shape, numpy.float32)
    n = numpy.empty(shape, numpy.float32) if job["normals"] else None
    _skin_frames(job, first, end, p, n)
    return first, p, n


def _chunk_files(job, out, c):
    return [os.path.join(out, a, f"{c}.0.0") for a in _arrays(job)]


def _whole(job, out, c, chunk):
    """A chunk's files are whole: each is renamed into place whole, so a file there of a whole
    chunk's size is one."""
    size = chunk * job["vertices"] * 12
    for name in _chunk_files(job, out, c):
        try:
            if os.stat(name).st_size != size:
                return False
        except FileNotFoundError:
            return False
    return True


def _zarr_task(job, out, c, chunk):
    """Chunk c's files written (the frames past the bake's end zeros, Zarr's fill value), each under
    a temporary name and renamed whole; a chunk already whole is left as it is. (c, made)."""
    if _whole(job, out, c, chunk):
        return c, False
    first = job["first"] + c * chunk
    end = min(first + chunk, job["end"])
    arrays = [numpy.zeros((chunk, job["vertices"], 3), numpy.float32) for _ in _arrays(job)]
    _skin_frames(job, first, end, arrays[0], arrays[1] if job["normals"] else None)
    for a, name in zip(arrays, _chunk_files(job, out, c)):
        _write_whole(name, a.tofile, "wb")
    return c, True


def _arrays(job):
    return ["positions", "normals"] if job["normals"] else ["positions"]


class _Progress:
    """A bar on standard error where it is a terminal; nothing otherwise."""

    def __init__(self, total, shown):
        self.total, self.done = total, 0
        self.shown = shown and sys.stderr.isatty()

    def add(self, frames):
        self.done += frames
        if self.shown:
            filled = self.done * 40 // max(self.total, 1)
            sys.stderr.write(f"\rbake [{'#' * filled}{' ' * (40 - filled)}] {self.done}/{self.total} frames")
            sys.stderr.write("\n" if self.done >= self.total else "")
            sys.stderr.flush()


def _run(tasks, client, task, window=None):
    """Each task's result as it comes: here, or on the client's workers (`window` at most in
    flight, None: all). A task that fails cancels the rest and raises its error."""
    if client is None:
        for t in tasks:
            yield task(*t)
        return
    from distributed import as_completed  # only a caller who gives a client needs Dask
    todo = iter(tasks)
    futures = [client.submit(task, *t, pure=False) for t in (todo if window is None else _take(todo, window))]
    pending = as_completed(futures)
    try:
        for future in pending:
            result = future.result()
            future.release()
            for t in todo:  # one more in for each one out
                futures.append(client.submit(task, *t, pure=False))
                pending.add(futures[-1])
                break
            yield result
    except BaseException:
        client.cancel(futures)
        raise


def _take(iterator, n):
    for _, item in zip(range(n), iterator):
        yield item


def _write_whole(path, write, mode="w"):
    """write(file) into path.tmpPID, renamed to path once whole; nothing left behind on failure."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, mode) as f:
            write(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write_text(path, text):
    _write_whole(path, lambda f: f.write(text))


def _fingerprint(job, fmt, chunk):
    """What a bake's frames are made of, as OUT/.skn-progress holds it while the bake is unfinished."""
    return json.dumps({"skn.bake": version(), "format": fmt, "chunk": chunk,
                       **{k: v for k, v in job.items() if k not in ("threads", "any_path")}}, default=float) + "\n"


def _resumable(marker, fingerprint, overwrite):
    try:
        with open(marker) as f:
            return not overwrite and f.read() == fingerprint
    except FileNotFoundError:
        return False


def _open_partial(path, shape, resume):
    """An array's partial file, memory-mapped: the unfinished bake's (resume, where it has this
    shape) or a new one. (array, whether it was resumed)."""
    if resume and os.path.exists(path):
        try:
            a = numpy.lib.format.open_memmap(path, mode="r+")
            if a.shape == shape and a.dtype == numpy.float32:
                return a, True
        except ValueError:
            pass
    return numpy.lib.format.open_memmap(path, mode="w+", dtype=numpy.float32, shape=shape), False


def _bake_npy(job, out, chunk, client, progress, overwrite):
    """The arrays, memory-mapped as positions.npy.partial and normals.npy.partial, each task's rows
    written as it comes back and its first frame then appended to OUT/.skn-done; renamed when
    whole. A rerun of an unfinished bake (killed, interrupted: OUT/.skn-progress is this bake's)
    makes only the chunks .skn-done does not list. A failure (a task's error, a full disk) leaves
    nothing to resume."""
    names = [os.path.join(out, n) for n in ("positions.npy", "normals.npy")]
    partial = [f"{n}.partial" for n in names]
    marker, log = os.path.join(out, ".skn-progress"), os.path.join(out, ".skn-done")
    fingerprint = _fingerprint(job, "npy", chunk)
    first, end = job["first"], job["end"]
    shape = (end - first, job["vertices"], 3)
    resume = _resumable(marker, fingerprint, overwrite)
    opened = [_open_partial(partial[k], shape, resume) for k in range(1 + job["normals"])]
    arrays = [a for a, _ in opened]
    done = set()
    if resume and all(r for _, r in opened) and os.path.exists(log):
        with open(log) as f:
            done = {int(x) for x in f.read().split()}
    else:
        _write_text(marker, fingerprint)
        open(log, "w").close()
    try:
        tasks = [(job, a, min(a + chunk, end)) for a in range(first, end, chunk) if a not in done]
        progress.add(sum(min(chunk, end - a) for a in done))
        window = None if client is None else 2 * max(1, len(client.scheduler_info().get("workers", {})))
        with open(log, "a") as f:
            for a, p, n in _run(tasks, client, _npy_task, window):
                arrays[0][a - first:a - first + len(p)] = p  # a shared mapping: in the file once written
                if n is not None:
                    arrays[1][a - first:a - first + len(n)] = n
                f.write(f"{a}\n")
                f.flush()
                progress.add(len(p))
        for a in arrays:
            a.flush()
        del arrays[:]
        for k in range(1 + job["normals"]):
            os.replace(partial[k], names[k])
        if not job["normals"] and os.path.exists(names[1]):
            os.unlink(names[1])  # an older bake's
    except Exception:
        del arrays[:]
        for t in partial + [marker, log]:  # not whole, maybe not right: nothing to resume
            if os.path.exists(t):
                os.unlink(t)
        raise
    for t in (marker, log):
        os.unlink(t)
    return {"arrays": {a: f"{a}.npy" for a in _arrays(job)}}, len(done)


def _zarr_metadata(job, out, chunk):
    _write_text(os.path.join(out, ".zgroup"), '{\n  "zarr_format": 2\n}\n')
    for a in _arrays(job):
        os.makedirs(os.path.join(out, a), exist_ok=True)
        _write_text(os.path.join(out, a, ".zarray"),
                    f'{{\n  "zarr_format": 2,\n  "shape": [{job["end"] - job["first"]}, {job["vertices"]}, 3],\n'
                    f'  "chunks": [{chunk}, {job["vertices"]}, 3],\n  "dtype": "<f4",\n  "compressor": null,\n'
                    '  "fill_value": 0.0,\n  "order": "C",\n  "filters": null\n}\n')


def _clear_chunks(out, names, temporaries=False):
    """An earlier bake's chunk files and any task's temporary files, gone (`names`: the arrays);
    with `temporaries`, only a killed task's temporary files (the command's clear_chunks)."""
    for a in names:
        folder = os.path.join(out, a)
        for f in os.listdir(folder) if os.path.isdir(folder) else ():
            if f != ".zarray" and (not temporaries or ".tmp" in f):
                os.unlink(os.path.join(folder, f))


def _bake_zarr(job, out, chunk, client, progress, overwrite):
    frames = job["end"] - job["first"]
    chunks = (frames + chunk - 1) // chunk
    fingerprint = _fingerprint(job, "zarr", chunk)
    marker = os.path.join(out, ".skn-progress")
    resume = _resumable(marker, fingerprint, overwrite)
    if not resume:
        _clear_chunks(out, ("positions", "normals"))
    _zarr_metadata(job, out, chunk)
    if not resume:
        _write_text(marker, fingerprint)
    todo = [c for c in range(chunks) if not (resume and _whole(job, out, c, chunk))]
    progress.add(frames - sum(min(chunk, frames - c * chunk) for c in todo))
    for c, _ in _run([(job, out, c, chunk) for c in todo], client, _zarr_task):
        progress.add(min(chunk, frames - c * chunk))
    missing = [c for c in range(chunks) if not _whole(job, out, c, chunk)]
    if missing:  # a task that said it wrote a chunk that is not there: a disk or a cluster not sharing OUT
        raise OSError(f"{out}: chunks {missing[:8]} are not whole after every task finished; "
                      "do the workers see the same OUT?")
    _clear_chunks(out, _arrays(job), temporaries=True)
    if not job["normals"] and os.path.isdir(os.path.join(out, "normals")):
        _clear_chunks(out, ("normals",))
        os.unlink(os.path.join(out, "normals", ".zarray"))
        os.rmdir(os.path.join(out, "normals"))  # an older bake's
    return {"arrays": {a: a for a in _arrays(job)}, "chunks": [chunk, job["vertices"], 3]}, chunks - len(todo)


def _manifest(job, name, fmt, written):
    """The manifest, its keys in the command's order (bake.c)."""
    animation = None if job["animation"] is None else {"index": job["animation"], "name": name,
                                                        "start": float(f"{float(job['start']):.9g}")}
    m = {"skn": version(), "file": os.fsdecode(job["path"]), "primitive": job["primitive"], "animation": animation,
         "fps": float(f"{float(job['fps']):.9g}"), "frames": [job["first"], job["end"]],
         "vertex_count": job["vertices"], "method": job["method"], "format": fmt, "arrays": written["arrays"],
         "shape": [job["end"] - job["first"], job["vertices"], 3]}
    if "chunks" in written:
        m["chunks"] = written["chunks"]
    m["dtype"] = "float32"
    return m


def bake(path, out, *, primitive=None, animation=0, fps=30.0, frames=None, method="lbs", dqs_scale="polar", blend=0.5,
         format="npy", chunk=64, client=None, overwrite=False, any_path=False, threads=None, progress=False,
         textures=None):
    """Bakes `path`'s skinned primitives (None or "all": every one; an index or a list) and
    animation (index, name, None for the nodes' own transforms, "all", or a list) at
    `fps` over `frames` = (A, B) — frames A to B - 1, frame k at k / fps seconds after the
    animation's first key; the whole animation by default — into the folder `out`, as `skn bake`
    does; method, dqs_scale and blend (BLEND's b for every vertex) as there. format: "npy" or
    "zarr", or the textures "vat-png", "vat-exr" and "bone-vat" (one file a bake, which the skn
    command writes: beside libskn, on PATH or $SKN_COMMAND; with a client the vertex textures'
    frames are baked on it first; textures={"vat_width": W, "exr_float": True} as its options). chunk: frames a task (and Zarr's chunk); client: a Dask distributed.Client to run the
    tasks on (None: here); threads: skn_skin's threads a call (None: 1 with a client, else all
    cores); progress: a bar on standard error, where it is a terminal. One bake goes into `out`,
    several each into out/pN-aA (pN-none) with out/manifest.json listing them. Returns the
    manifest (a dict)."""
    return _bake(path, out, primitive=primitive, animation=animation, fps=fps, frames=frames, method=method,
                 dqs_scale=dqs_scale, blend=blend, format=format, chunk=chunk, client=client, overwrite=overwrite,
                 any_path=any_path, threads=threads, progress=progress, textures=textures)[0]


def _choices(gltf, primitive, animation):
    """The (primitive, animation) bakes a call names, in the command's order (bake_command.c):
    primitive None or "all" every skinned primitive, an index, or a list; animation "all", an index
    or a name (a name holding commas matched whole first, else split at them), None for the nodes'
    own transforms, or a list."""
    if primitive is None or (isinstance(primitive, str) and primitive == "all"):
        primitives = list(range(len(gltf.primitives)))
        if not primitives:
            raise IndexOutOfRange("SKN_ERR_INDEX_OUT_OF_RANGE", "the document has no skinned primitive to bake")
    elif isinstance(primitive, (list, tuple)):
        primitives = [gltf._primitive_index(p) for p in primitive]
    else:
        primitives = [gltf._primitive_index(primitive)]
    names = [a["name"] for a in gltf.animations]
    if isinstance(animation, str) and animation == "all":
        animations = list(range(len(names))) or [None]
    elif isinstance(animation, str) and animation not in names and "," in animation:
        animations = [int(a) if a.isdigit() else a for a in animation.split(",")]
    elif isinstance(animation, (list, tuple)):
        animations = list(animation)
    else:
        animations = [animation]
    return [(p, a) for p in primitives for a in animations]


def _command():
    """The skn command that goes with this library: $SKN_COMMAND, bin/skn beside the library's
    folder (an install's PREFIX/bin, the build tree's build/bin), or skn on PATH."""
    from . import LIBRARY_PATH
    here = os.path.dirname(os.path.abspath(LIBRARY_PATH)) if os.path.isabs(LIBRARY_PATH) else ""
    found = [os.environ.get("SKN_COMMAND")] + [os.path.join(here, *up, "bin", "skn") for up in ((), ("..",), ("..", ".."))
                                               if here] + [shutil.which("skn")]
    return next((f for f in found if f and os.access(f, os.X_OK)), None)


def _textures_on(client, path, out, format, chunk, threads, how):
    """vat-png or vat-exr on a Dask client: the frames baked to zarr on the cluster into
    OUT/.skn-frames (every task its chunk, resumable as any zarr bake), then the command writes the
    textures from them (--from-zarr: read, not skinned again) in this process, and the frames go."""
    if os.path.exists(os.path.join(out, "manifest.json")) and not how["overwrite"]:
        raise FileExistsError(f"{out} holds a bake ({os.path.join(out, 'manifest.json')}); overwrite=True replaces it")
    frames = os.path.join(out, ".skn-frames")
    if os.path.exists(os.path.join(frames, "manifest.json")):
        os.unlink(os.path.join(frames, "manifest.json"))  # remade (its chunks kept where they are this bake's)
    _bake(path, frames, format="zarr", chunk=chunk, client=client, threads=threads, progress=False,
          **dict(how, overwrite=False, textures=None))
    m = _by_the_command(path, out, format=format, frames_from=frames, **how)
    shutil.rmtree(frames)
    return m


def _by_the_command(path, out, *, primitive, animation, fps, frames, method, dqs_scale, blend, format, overwrite,
                    any_path, textures, frames_from=None, chunk=None):
    """The textures (vat-png, vat-exr, bone-vat): one file a bake, written by the skn command with
    these arguments (its PNG and OpenEXR writers; frames_from: a zarr bake of the frames, read not
    skinned; else chunk: the frames the command bakes first, by chunks a rerun keeps); the manifest
    it wrote."""
    command = _command()
    if command is None:
        raise Unsupported("SKN_ERR_UNSUPPORTED", f"format {format!r} is written by the skn command, which is neither "
                          "beside libskn nor on PATH (set SKN_COMMAND)")
    args = [command, "bake", os.fsdecode(path), "--format", format, "-o", os.fsdecode(out), "--fps", repr(float(fps)),
            "--method", method, "--dqs-scale", dqs_scale, "--blend", repr(float(_args.real(blend, "blend")))]
    if primitive is not None:
        args += ["--primitive", primitive if isinstance(primitive, str) else
                 ",".join(str(_args.count(p, "primitive")) for p in (primitive if isinstance(primitive, (list, tuple))
                                                                       else [primitive]))]
    if isinstance(animation, (list, tuple)):
        animation = ",".join(str(a) for a in animation)
    args += ["--animation", "none" if animation is None else str(animation)]
    if frames is not None:
        args += ["--frames", f"{_args.count(frames[0], 'frames[0]')}:{_args.count(frames[1], 'frames[1]')}"]
    for key, value in (textures or {}).items():
        if key not in ("vat_width", "exr_float"):
            raise _args.bad(f"textures: {key!r} is not vat_width or exr_float")
        args += ["--exr-float"] if key == "exr_float" and value else [] if key == "exr_float" else \
            ["--vat-width", str(_args.count(value, "vat_width"))]
    args += ["--overwrite"] * bool(overwrite) + ["--any-path"] * bool(any_path)
    args += ["--from-zarr", os.fsdecode(frames_from)] if frames_from else \
        ["--chunk", str(chunk)] if chunk and format in ("vat-png", "vat-exr") else []
    done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    message = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
    if done.returncode == 2:
        raise _args.bad(message[0].removeprefix("skn: "))
    if done.returncode:
        raise Error("SKN_ERR_COMMAND", message[0].removeprefix("skn: "))
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def _check_folder(out, overwrite):
    """OUT made; refused where it holds a bake (its manifest) unless overwrite; its manifest gone."""
    os.makedirs(out, exist_ok=True)
    manifest = os.path.join(out, "manifest.json")
    if os.path.exists(manifest) and not overwrite:
        raise FileExistsError(f"{out} holds a bake ({manifest}); overwrite=True replaces it")
    if os.path.exists(manifest):
        os.unlink(manifest)  # the folder holds no whole bake until the new one is
    return manifest


def _bake(path, out, *, primitive, animation, fps, frames, method, dqs_scale, blend, format, chunk, client, overwrite,
          any_path, threads, progress, textures=None):
    """bake's work: (the manifest, the Zarr chunks kept from an unfinished run). Several bakes go
    each into OUT/pN-aA (pN-none), then OUT/manifest.json lists them, as the command does."""
    if format not in FORMATS + TEXTURES:
        raise Unsupported("SKN_ERR_UNSUPPORTED", f"format {format!r}: skn.bake writes npy, zarr, vat-png, vat-exr "
                          "and bone-vat")
    fps = numpy.float32(_args.real(fps, "fps"))  # as the command reads it
    if not (fps > 0 and math.isfinite(fps)):
        raise _args.bad(f"fps is {fps}; it must be above 0")
    _args.name(dqs_scale, _abi.DQS_SCALES, "dqs_scale")
    chunk = _args.count(chunk, "chunk")
    if chunk < 1:
        raise _args.bad("chunk is 0; a task bakes at least one frame")
    _args.name(method, _abi.METHODS, "method")
    threads = (1 if client is not None else 0) if threads is None else _args.count(threads, "threads")
    if format in TEXTURES:
        how = dict(primitive=primitive, animation=animation, fps=fps, frames=frames, method=method, dqs_scale=dqs_scale,
                   blend=blend, overwrite=overwrite, any_path=any_path, textures=textures)
        if client is None or format == "bone-vat":  # bone-vat poses, skins nothing: made here
            return _by_the_command(path, out, format=format, chunk=chunk, **how), 0
        return _textures_on(client, path, out, format, chunk, threads, how), 0
    base = {"path": os.fsdecode(path), "any_path": bool(any_path), "method": method, "dqs_scale": dqs_scale,
            "threads": threads, "blend": _args.real(blend, "blend"), "fps": fps}
    jobs = []
    with Gltf(path, any_path=any_path) as gltf:  # every bake checked before any is made
        for p, a in _choices(gltf, primitive, animation):
            job = dict(base, primitive=p)
            job["animation"], job["start"], job["first"], job["end"] = _plan(gltf, a, fps, frames)
            job["vertices"] = gltf.primitives[p]["vertex_count"]
            with _bind(gltf, job) as rig:  # what the tasks will bind
                job["normals"] = rig.has_normals
            name = "" if job["animation"] is None else gltf.animations[job["animation"]]["name"]
            jobs.append((job, name))
    if len(jobs) == 1:
        return _bake_one(jobs[0][0], jobs[0][1], out, format, chunk, client, overwrite, progress, False)
    manifest, kept, bakes = _check_folder(out, overwrite), 0, []
    for job, name in jobs:
        a = job["animation"]
        folder = f"p{job['primitive']}-{'none' if a is None else f'a{a}'}"
        kept += _bake_one(job, name, os.path.join(out, folder), format, chunk, client, overwrite, progress, True)[1]
        bakes.append({"folder": folder, "primitive": job["primitive"],
                      "animation": None if a is None else {"index": a, "name": name}})
    m = {"skn": version(), "file": base["path"], "format": format, "bakes": bakes}
    _write_text(manifest, json.dumps(m, indent=2) + "\n")
    return m, kept


def _bake_one(job, name, out, format, chunk, client, overwrite, progress, nested):
    """One bake into `out` (nested: a folder of a several-bake run, made afresh whatever it holds)."""
    manifest = _check_folder(out, overwrite or nested)
    bar = _Progress(job["end"] - job["first"], progress)
    if format == "zarr":
        written, kept = _bake_zarr(job, out, chunk, client, bar, overwrite)
    else:
        written, kept = _bake_npy(job, out, chunk, client, bar, overwrite)
    m = _manifest(job, name, format, written)
    _write_text(manifest, json.dumps(m, indent=2) + "\n")
    return m, kept


def _client(address, workers):
    """A Dask client: of a LocalCluster on this machine's loopback ("local": a worker a core, each
    skinning on one thread), or of the scheduler at `address`. (client, cluster or None)."""
    import logging
    from distributed import Client, LocalCluster
    if address != "local":
        return Client(address, timeout="30s"), None
    cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
    return Client(cluster, timeout="30s"), cluster


def _arguments(argv):
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            sys.stderr.write(f"skn: bake: {message}\n")
            sys.exit(2)

    p = Parser(prog="skn bake", description="skn bake on Dask: the command's form (skn bake --help); "
               "every task writes its own chunk of frames.")
    p.add_argument("file")
    p.add_argument("--primitive", default=None)
    p.add_argument("--animation", default=None)
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--frames", default=None)
    p.add_argument("--method", default="lbs")
    p.add_argument("--dqs-scale", default="polar", choices=("polar", "keep-y"))
    p.add_argument("--blend", type=float, default=0.5)
    p.add_argument("--format", required=True)
    p.add_argument("--chunk", type=int, default=64)
    p.add_argument("-o", dest="out", required=True)
    p.add_argument("--dask", default=None, metavar="ADDRESS|local")
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("--any-path", action="store_true")
    for only_here in ("--layout", "--weights"):
        p.add_argument(only_here, default=None)
    p.add_argument("--vat-width", type=int, default=None)
    p.add_argument("--exr-float", action="store_true")
    a = p.parse_args(argv)
    for name in ("layout", "weights"):
        if getattr(a, name):
            p.error(f"--{name} is the command's alone; bake without --dask")
    if a.format not in FORMATS + TEXTURES:
        p.error(f"--format {a.format}: skn bake makes npy, zarr, vat-png, vat-exr and bone-vat")
    a.textures = {k: v for k, v in (("vat_width", a.vat_width), ("exr_float", a.exr_float)) if v}
    if a.frames is not None:
        first, _, end = a.frames.partition(":")
        if not (first.isdigit() and end.isdigit()):
            p.error(f"--frames {a.frames} is a range A:B")
        a.frames = (int(first), int(end))
    if a.primitive is not None and a.primitive != "all":
        if not all(p.isdigit() for p in a.primitive.split(",")):
            p.error(f"--primitive {a.primitive} is not N,M,... or all")
        a.primitive = [int(p) for p in a.primitive.split(",")]
    if a.animation is not None:
        a.animation = None if a.animation == "none" else int(a.animation) if a.animation.isdigit() else a.animation
    else:
        a.animation = 0
    return a


def main(argv=None):
    """`skn bake ... --dask ADDRESS|local`: the command hands its arguments here."""
    a = _arguments(sys.argv[1:] if argv is None else argv)
    from . import Error, InvalidArgument
    client = cluster = None
    try:
        if a.dask:
            client, cluster = _client(a.dask, a.workers)
        m, kept = _bake(a.file, a.out, primitive=a.primitive, animation=a.animation, fps=a.fps, frames=a.frames,
                        method=a.method, dqs_scale=a.dqs_scale, blend=a.blend, format=a.format, chunk=a.chunk,
                        client=client, overwrite=a.overwrite, any_path=a.any_path, threads=None, progress=True,
                        textures=a.textures)
        if kept and "frames" in m:
            chunks = (m["frames"][1] - m["frames"][0] + a.chunk - 1) // a.chunk
            sys.stderr.write(f"skn: bake: resumed: {kept} of {chunks} chunks were whole and kept\n")
        elif kept:
            sys.stderr.write(f"skn: bake: resumed: {kept} chunks were whole and kept\n")
        return 0
    except ImportError as e:
        sys.stderr.write(f"skn: bake: --dask needs Dask distributed (Debian's python3-distributed) in "
                         f"{sys.executable}: {e}\n")
        return 1
    except (Error, OSError, ValueError) as e:
        sys.stderr.write(f"skn: bake: {e.message if isinstance(e, Error) else e}\n")
        return 2 if isinstance(e, InvalidArgument) else 1
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
