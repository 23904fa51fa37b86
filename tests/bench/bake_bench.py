"""bake_bench.py — `skn bake` at scale (`make bench-bake`): a 10,000-frame bake of a generated
character of 10,240 vertices and 20 joints, against skn_skin's own rate in the same run.

  - skn_skin alone: the frames posed and skinned into one array, no writing (Python's skn.Gltf.pose
    and Rig.skin: ctypes releases the GIL, skn_skin spreads a call over the cores);
  - the same bytes written to a file alone: the writing's share;
  - `skn bake --format npy` and `--format zarr` of the same frames: frames a second, vertex-frames a
    second, the time over skinning alone plus writing alone, and the command's peak memory
    (getrusage of the child);
  - skn.bake (Python) to zarr on a Dask LocalCluster on loopback, 1 worker against 2 (one thread
    each), every task writing its own chunk; and 1 worker of 2 threads, which gains only because
    ctypes releases the GIL around every call into libskn.
Each figure is the median of ROUNDS runs.

  python3 tests/bench/bake_bench.py BUILD [FRAMES] [ROUNDS]
"""
import base64
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
FRAMES = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
sys.path.insert(0, os.path.join(BUILD, "python"))
import skn  # noqa: E402

JOINTS, RINGS, SIDES, FPS = 20, 160, 64, 30.0


def character(path, seconds):
    """A tube along +y of JOINTS chained joints, RINGS x SIDES vertices, each weighted to its two
    nearest joints; one animation that bends every joint by a sine, a key a second."""
    y = numpy.repeat(numpy.linspace(0, JOINTS, RINGS), SIDES)
    a = numpy.tile(numpy.arange(SIDES) * 2 * math.pi / SIDES, RINGS)
    pos = numpy.column_stack([0.3 * numpy.cos(a), y, 0.3 * numpy.sin(a)]).astype(numpy.float32)
    nrm = numpy.column_stack([numpy.cos(a), 0 * a, numpy.sin(a)]).astype(numpy.float32)
    j0 = numpy.clip(numpy.floor(y - 0.5), 0, JOINTS - 1).astype(numpy.uint16)
    j1 = numpy.minimum(j0 + 1, JOINTS - 1).astype(numpy.uint16)
    t = numpy.clip(y - 0.5 - j0, 0, 1).astype(numpy.float32)
    joints = numpy.column_stack([j0, j1, 0 * j0, 0 * j0]).astype(numpy.uint16)
    weights = numpy.column_stack([1 - t, t, 0 * t, 0 * t]).astype(numpy.float32)
    ibm = numpy.tile(numpy.eye(4, dtype=numpy.float32), (JOINTS, 1, 1))
    ibm[:, 3, 1] = -numpy.arange(JOINTS)  # column-major: translation in the last column's slots
    keys = numpy.arange(int(seconds) + 1, dtype=numpy.float32)
    rot = numpy.zeros((len(keys), 4), numpy.float32)
    rot[:, 2], rot[:, 3] = numpy.sin(0.15 * numpy.sin(keys)), numpy.cos(0.15 * numpy.sin(keys))
    parts = [pos, nrm, joints, weights, ibm, keys, rot]
    blob, views, offset = b"", [], 0
    for p in parts:
        data = p.tobytes()
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(data)})
        blob += data + b"\0" * (-len(data) % 4)
        offset = len(blob)
    n = len(pos)
    acc = [{"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
            "min": pos.min(0).tolist(), "max": pos.max(0).tolist()},
           {"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3"},
           {"bufferView": 2, "componentType": 5123, "count": n, "type": "VEC4"},
           {"bufferView": 3, "componentType": 5126, "count": n, "type": "VEC4"},
           {"bufferView": 4, "componentType": 5126, "count": JOINTS, "type": "MAT4"},
           {"bufferView": 5, "componentType": 5126, "count": len(keys), "type": "SCALAR",
            "min": [0.0], "max": [float(keys[-1])]},
           {"bufferView": 6, "componentType": 5126, "count": len(keys), "type": "VEC4"}]
    nodes = [{"mesh": 0, "skin": 0}] + [{"translation": [0, 1 if j else 0, 0]} for j in range(JOINTS)]
    for j in range(1, JOINTS):
        nodes[j]["children"] = [j + 1]
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}], "nodes": nodes,
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "JOINTS_0": 2, "WEIGHTS_0": 3}}]}],
           "skins": [{"joints": list(range(1, JOINTS + 1)), "inverseBindMatrices": 4}],
           "animations": [{"name": "wave", "samplers": [{"input": 5, "output": 6}],
                           "channels": [{"sampler": 0, "target": {"node": j, "path": "rotation"}}
                                        for j in range(2, JOINTS + 1)]}],
           "accessors": acc, "bufferViews": views,
           "buffers": [{"byteLength": len(blob),
                        "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}]}
    with open(path, "w") as f:
        json.dump(doc, f)
    return n


def skin_alone(path, frames):
    with skn.Gltf(path) as g:
        rig = g.bind(0)
        pose = rig.pose()
        out = numpy.empty((rig.vertex_count, 3), numpy.float32)
        nrm = numpy.empty((rig.vertex_count, 3), numpy.float32)
        t0 = time.perf_counter()
        for i in range(frames):
            g.pose(pose, animation=0, time=i / FPS)
            rig.skin(pose, out=out, normals=nrm)
        return time.perf_counter() - t0


def write_probe(folder, n, frames):
    """Seconds to write the bake's bytes (positions and normals) with nothing else, a frame at a
    time into the page cache as the bake writes them (neither syncs): the writing's share."""
    frame = numpy.ones((n, 3), numpy.float32).tobytes()
    t0 = time.perf_counter()
    with open(os.path.join(folder, "p.bin"), "wb") as p, open(os.path.join(folder, "n.bin"), "wb") as q:
        for _ in range(frames):  # a frame at a time to each, as the command writes them
            p.write(frame)
            q.write(frame)
    seconds = time.perf_counter() - t0
    for name in ("p.bin", "n.bin"):
        os.unlink(os.path.join(folder, name))  # untimed, as the bakes' removal is
    return seconds


def command(path, fmt, out, frames):
    """Seconds and the child's peak resident memory (MiB) of one `skn bake`, the last one's files
    removed first (untimed: replacing 2.5 GB in place times the page cache, not the bake)."""
    shutil.rmtree(out, ignore_errors=True)
    # the peak from GNU time (Debian's `time`) where it is there: a child forked from this Python
    # process counts this process's pages in its own ru_maxrss, even after exec
    timer = ["/usr/bin/time", "-f", "%M"] if os.access("/usr/bin/time", os.X_OK) else []
    t0 = time.perf_counter()
    done = subprocess.run(timer + [os.path.join(BUILD, "bin", "skn"), "bake", path, "--fps", str(FPS), "--frames",
                                   f"0:{frames}", "--format", fmt, "-o", out],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(f"skn bake --format {fmt} failed: {done.stderr}")
    return seconds, int(done.stderr.split()[-1]) / 1024 if timer else float("nan")


def dask_bake(path, out, frames, workers, threads=1):
    """Seconds of skn.bake to zarr (chunks of 64 frames, each task writing its own) on a LocalCluster
    of `workers` worker processes, a thread each (and skn_skin's threads=1: the workers are the
    parallelism), the cluster started before the clock."""
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=workers, threads_per_worker=threads, host="127.0.0.1", dashboard_address=None,
                      processes=True, silence_logs=50) as cluster, Client(cluster) as client:
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        skn.bake(path, out, animation=0, fps=FPS, frames=(0, frames), format="zarr", client=client)
        return time.perf_counter() - t0


def scratch():
    """A folder for the bakes: $BAKE_BENCH_DIR, else the system's temporary folder (on this VM
    /dev/shm is no faster: its pages cost the hypervisor as much as the disk's write-back)."""
    return tempfile.mkdtemp(prefix="skn-bake-bench-", dir=os.environ.get("BAKE_BENCH_DIR"))


def main():
    folder = scratch()
    path = os.path.join(folder, "character.gltf")
    n = character(path, FRAMES / FPS + 1)
    print(f"bake: {FRAMES} frames of a {n}-vertex character ({JOINTS} joints), positions + normals; "
          f"{os.cpu_count()} cores; medians of {ROUNDS} rounds, each timing every row in turn; written to {folder}")
    rows = {"alone": [], "probe": [], "npy": [], "zarr": [], "dask1": [], "dask2": [], "threads2": []}
    peak = 0.0
    for _ in range(ROUNDS):  # alternating, so that a noisy minute hits every row alike
        rows["alone"].append(skin_alone(path, FRAMES))
        rows["probe"].append(write_probe(folder, n, FRAMES))
        for fmt in ("npy", "zarr"):
            seconds, mib = command(path, fmt, os.path.join(folder, fmt), FRAMES)
            rows[fmt].append(seconds)
            peak = max(peak, mib)
        for w in (1, 2):
            rows[f"dask{w}"].append(dask_bake(path, os.path.join(folder, "dask"), FRAMES, w))
        rows["threads2"].append(dask_bake(path, os.path.join(folder, "dask"), FRAMES, 1, threads=2))
    med = {k: statistics.median(v) for k, v in rows.items()}
    alone, probe = med["alone"], med["probe"]
    print(f"skn_skin alone (no writing)  {alone:7.2f} s  {FRAMES / alone:8.0f} frames/s  "
          f"{FRAMES * n / alone / 1e6:7.1f} M vertex-frames/s")
    print(f"writing the same bytes alone {probe:7.2f} s  ({2 * FRAMES * n * 12 / probe / 1e9:.2f} GB/s)")
    for fmt in ("npy", "zarr"):
        s = med[fmt]
        ratio = statistics.median(b / a for a, b in zip(rows["alone"], rows[fmt]))
        print(f"skn bake --format {fmt:5s}     {s:7.2f} s  {FRAMES / s:8.0f} frames/s  "
              f"{FRAMES * n / s / 1e6:7.1f} M vertex-frames/s  {ratio:.2f}x skn_skin's time, "
              f"{100 * (s / (alone + probe) - 1):+.0f}% over skinning + writing alone")
    print(f"the command's peak memory    {peak:.0f} MiB")
    ratio = statistics.median(a / b for a, b in zip(rows["dask1"], rows["dask2"]))
    print(f"skn.bake on Dask, 1 worker   {med['dask1']:7.2f} s\nskn.bake on Dask, 2 workers  {med['dask2']:7.2f} s  "
          f"{ratio:.2f}x (median of the rounds' ratios)")
    ratio = statistics.median(a / b for a, b in zip(rows["dask1"], rows["threads2"]))
    print(f"skn.bake on Dask, 1 worker of 2 threads {med['threads2']:7.2f} s  {ratio:.2f}x the 1-thread worker "
          "(threads help only because ctypes releases the GIL around libskn's calls)")
    subprocess.run(["rm", "-rf", folder])


if __name__ == "__main__":
    main()
