"""skn.bake: a primitive's animation skinned at a frame rate into per-frame arrays, the files and
manifest `skn bake` writes (plugins/cli/bake.c): OUT/positions.npy and OUT/normals.npy (float32,
frames x vertices x 3, row i frame A + i), then OUT/manifest.json.

The frames are cut into chunks of `chunk`; each chunk is a task that opens the document, binds the
primitive and skins its frames, so that tasks need nothing but the file's path. Without a client
they run here, one after another; with a Dask client (distributed.Client, a LocalCluster's or a
scheduler's) they run on its workers, at most two a worker in flight, each result written into
its rows of the arrays (memory-mapped) as it comes back, so that memory holds a few chunks, not
the bake. The arrays are written under temporary names and renamed when whole; the manifest goes
last, so that a folder with a manifest holds a whole bake, and one that does is replaced only
with overwrite=True.

ctypes releases the GIL around every call into libskn (CDLL), and skn_skin spreads a call over
the machine's cores itself, so a worker's threads skin in parallel too."""
import json
import math
import os

import numpy

from . import Gltf, IndexOutOfRange, Unsupported, _args, _abi, version


def _plan(gltf, animation, fps, frames):
    """(animation index or None, its first key, first frame, end frame), in the command's float
    arithmetic (bake.c), so that both bake the same frames at the same times."""
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
    if frames is None:
        return animation, start, 0, math.floor(float(length) * float(fps) + 1e-6) + 1
    first, end = frames
    first, end = _args.count(first, "frames[0]"), _args.count(end, "frames[1]")
    if first >= end:
        raise _args.bad(f"frames ({first}, {end}): frames A to B - 1 need A < B")
    return animation, start, first, end


def _bind(gltf, primitive, method, blend):
    n = gltf.primitives[primitive]["vertex_count"]
    return gltf.bind(primitive, centers_of_rotation=method == "cor",
                     blend_weights=numpy.full(n, blend, numpy.float32) if method == "blend" else None)


def _bake_range(path, any_path, primitive, animation, start, fps, method, dqs_scale, blend, first, end):
    """Frames [first, end) skinned: (first, positions (n, v, 3), normals (n, v, 3) or None)."""
    with Gltf(path, any_path=any_path) as gltf:
        p = gltf.primitives[primitive]
        with _bind(gltf, primitive, method, blend) as rig, rig.pose() as pose:
            normals = rig.has_normals
            out = numpy.empty((end - first, p["vertex_count"], 3), numpy.float32)
            nrm = numpy.empty_like(out) if normals else None
            for i in range(end - first):
                t = start + numpy.float32((first + i) / numpy.float64(fps))  # float32, as the command's
                gltf.pose(pose, primitive, animation, float(t))
                if normals:
                    rig.skin(pose, method, out=out[i], normals=nrm[i], dqs_scale=dqs_scale)
                else:
                    rig.skin(pose, method, out=out[i], dqs_scale=dqs_scale)
    return first, out, nrm


def _results(tasks, client):
    """Each task's result, as it comes: here, or on the client's workers, a few in flight."""
    if client is None:
        for task in tasks:
            yield _bake_range(*task)
        return
    from distributed import as_completed  # only a caller who gives a client needs Dask
    window = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    pending = as_completed()
    todo = iter(tasks)
    for task in todo:
        pending.add(client.submit(_bake_range, *task, pure=False))
        if pending.count() >= window:
            break
    for future in pending:
        yield future.result()
        future.release()
        for task in todo:  # one more in for each one out
            pending.add(client.submit(_bake_range, *task, pure=False))
            break


def _manifest(path, primitive, animation, name, start, fps, first, end, vertices, method, normals):
    return {"skn": version(), "file": os.fsdecode(path), "primitive": primitive,
            "animation": None if animation is None else {"index": animation, "name": name,
                                                          "start": float(f"{float(start):.9g}")},  # as bake.c prints it
            "fps": float(f"{float(fps):.9g}"), "frames": [first, end], "vertex_count": vertices, "method": method, "format": "npy",
            "arrays": {"positions": "positions.npy", **({"normals": "normals.npy"} if normals else {})},
            "shape": [end - first, vertices, 3], "dtype": "float32"}


def bake(path, out, *, primitive=0, animation=0, fps=30.0, frames=None, method="lbs", dqs_scale="polar", blend=0.5,
         format="npy", chunk=64, client=None, overwrite=False, any_path=False):
    """Bakes `path`'s primitive's animation (index, name, or None for the nodes' own transforms) at
    `fps` over `frames` = (A, B) — frames A to B - 1, frame k at k / fps seconds after the
    animation's first key; the whole animation by default — into the folder `out`, as `skn bake`
    does (format "npy"); method, dqs_scale and blend (BLEND's b for every vertex) as there. chunk:
    frames a task; client: a Dask distributed.Client to run the tasks on (None: here). Returns the
    manifest (a dict)."""
    if format != "npy":
        raise Unsupported("SKN_ERR_UNSUPPORTED", f"format {format!r}: skn.bake writes npy")
    fps = numpy.float32(_args.real(fps, "fps"))  # as the command reads it
    if not (fps > 0 and math.isfinite(fps)):
        raise _args.bad(f"fps is {fps}; it must be above 0")
    blend = _args.real(blend, "blend")
    _args.name(dqs_scale, _abi.DQS_SCALES, "dqs_scale")
    chunk = _args.count(chunk, "chunk")
    if chunk < 1:
        raise _args.bad("chunk is 0; a task bakes at least one frame")
    _args.name(method, _abi.METHODS, "method")
    with Gltf(path, any_path=any_path) as gltf:
        primitive = gltf._primitive_index(primitive)
        animation, start, first, end = _plan(gltf, animation, fps, frames)
        name = "" if animation is None else gltf.animations[animation]["name"]
        vertices = gltf.primitives[primitive]["vertex_count"]
        with _bind(gltf, primitive, method, blend) as rig:  # what the tasks will bind, checked here first
            normals = rig.has_normals
    os.makedirs(out, exist_ok=True)
    names = [os.path.join(out, n) for n in ("positions.npy", "normals.npy", "manifest.json")]
    if os.path.exists(names[2]) and not overwrite:
        raise FileExistsError(f"{out} holds a bake ({names[2]}); overwrite=True replaces it")
    tmp = [f"{n}.tmp{os.getpid()}" for n in names]
    if os.path.exists(names[2]):
        os.unlink(names[2])  # the folder holds no whole bake until the new one is
    shape = (end - first, vertices, 3)
    arrays = [numpy.lib.format.open_memmap(tmp[k], mode="w+", dtype=numpy.float32, shape=shape)
              for k in range(1 + normals)]
    try:
        tasks = [(path, any_path, primitive, animation, start, fps, method, dqs_scale, blend, a, min(a + chunk, end))
                 for a in range(first, end, chunk)]
        for a, p, n in _results(tasks, client):
            arrays[0][a - first:a - first + len(p)] = p
            if normals:
                arrays[1][a - first:a - first + len(n)] = n
        for a in arrays:
            a.flush()
        del arrays[:]
        manifest = _manifest(path, primitive, animation, name, start, fps, first, end, vertices, method, normals)
        with open(tmp[2], "w") as f:
            json.dump(manifest, f, indent=2)
        for k in range(3):
            if k != 1 or normals:
                os.replace(tmp[k], names[k])
        if not normals and os.path.exists(names[1]):
            os.unlink(names[1])  # an older bake's
        return manifest
    finally:
        del arrays[:]
        for t in tmp:
            if os.path.exists(t):
                os.unlink(t)
