"""Every bake format decoded back equals `skn skin` at those frames, on the Fox, CesiumMan and a
morph-target file of the public corpus, with every method (issue 46's table):

  npy, zarr, vat-exr --exr-float   float32, bit for bit
  vat-exr (half)                   within 2^-11 of each value (half's precision)
  vat-png (16-bit)                 within 2^-16 of the bounds (positions) and of [-1, 1] (normals)

The reference is the command's own `skn skin --time t --method M` (JSON, %.9g: float32 exactly)
at each baked frame's time, start + k / fps in the bake's float32 arithmetic. npy is read with
numpy, zarr with python3-zarr, PNG with pypng; the EXR files with Blender's OpenEXR (one Blender
run decodes them all to .npy). Prints one line a case and "bake-formats: N passed, N failed".

  python3 tests/cli/bake_formats.py SKN CORPUS [SCRATCH]   (without SCRATCH: a temporary folder, removed)
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy
import png
import zarr

SKN, CORPUS = sys.argv[1:3]
SCRATCH = sys.argv[3] if len(sys.argv) > 3 else None
CASES = [("Fox", "data/gltf/Fox/glTF-Binary/Fox.glb", "Walk", 10.0, (1, 4)),
         ("CesiumMan", "data/gltf/CesiumMan/glTF/CesiumMan.gltf", "0", 24.0, (3, 6)),
         ("shape keys", os.path.join(CORPUS, "valid/blender-export/28_shapekeys_anim/28_shapekeys_anim.gltf"), "1", 24.0,
          (0, 9))]  # its animation 1 moves the bone and the skinned mesh's morph target weight
METHODS = ("lbs", "lbs-quat", "dqs", "blend", "cor")
FORMATS = (("npy", []), ("zarr", ["--chunk", "2"]), ("vat-png", ["--vat-width", "700"]), ("vat-exr", []),
           ("vat-exr-float", ["--exr-float"]))
EXR_TO_NPY = """
import bpy, numpy, sys
for path in sys.argv[sys.argv.index('--') + 1:]:
    img = bpy.data.images.load(path)
    w, h = img.size
    a = numpy.array(img.pixels[:], numpy.float32).reshape(h, w, 4)[::-1, :, :3]  # Blender's rows go up
    numpy.save(path + '.npy', a)
"""


def run(args):
    return subprocess.run([SKN] + args, check=True, capture_output=True, text=True)


def reference(path, animation, fps, frames, method, folder):
    """skn skin's positions and normals (or None) at each baked frame's time: the animation's first
    key (the manifest's, %.9g: the float32 exactly) plus k / fps, in float32 as the bake adds them."""
    start = numpy.float32(json.load(open(os.path.join(folder, "npy", "manifest.json")))["animation"]["start"])
    out = []
    for k in range(*frames):
        tmp = os.path.join(folder, f"skin{k}.json")
        t = start + numpy.float32(k / numpy.float64(numpy.float32(fps)))
        run(["skin", path, "--animation", animation, "--time", repr(float(t)), "--method", method, "-o", tmp])
        doc = json.load(open(tmp))
        p = numpy.array(doc["positions"], numpy.float32).reshape(-1, 3)
        n = numpy.array(doc["normals"], numpy.float32).reshape(-1, 3) if "normals" in doc else None
        out.append((p, n))
    return out


def texture(m, decoded):
    """The frames of a vat texture, (frames, vertices, 3), as its layout puts them."""
    w, rows, v = m["layout"]["width"], m["layout"]["rows_per_frame"], m["vertex_count"]
    return decoded.reshape(-1, rows * w, 3)[:, :v]


def png_frames(folder, m, name):
    width, height, data, _ = png.Reader(filename=os.path.join(folder, name)).read_flat()
    c = numpy.array(data, numpy.float64).reshape(height, width, 3)
    if name.startswith("positions"):
        lo, hi = numpy.array(m["bounds"]["lo"]), numpy.array(m["bounds"]["hi"])
        return texture(m, lo + (hi - lo) * c / 65535), hi - lo
    return texture(m, 2 * c / 65535 - 1), numpy.full(3, 2.0)


def main():
    jobs, exr = [], []
    for label, path, animation, fps, frames in CASES:
        for method in METHODS:
            folder = os.path.join(SCRATCH, f"{label}-{method}".replace(" ", "_"))
            for fmt, extra in FORMATS:
                run(["bake", path, "--animation", animation, "--fps", str(fps), "--frames", "%d:%d" % frames,
                     "--method", method, "--format", fmt.replace("-float", ""), "-o", os.path.join(folder, fmt)] + extra)
                if fmt.startswith("vat-exr"):
                    exr += [os.path.join(folder, fmt, f) for f in ("positions.exr", "normals.exr")
                            if os.path.exists(os.path.join(folder, fmt, f))]
            jobs.append((label, path, animation, fps, frames, method, folder))
    subprocess.run(["blender", "-b", "--factory-startup", "--python-exit-code", "1", "--python-expr", EXR_TO_NPY, "--"]
                   + exr, check=True, capture_output=True)
    passed = failed = 0
    for label, path, animation, fps, frames, method, folder in jobs:
        want = reference(path, animation, fps, frames, method, folder)
        for fmt, _ in FORMATS:
            d = os.path.join(folder, fmt)
            m = json.load(open(os.path.join(d, "manifest.json")))
            worst, ok = [], True
            for k, array in enumerate(("positions", "normals")):
                if want[0][k] is None:
                    continue
                w = numpy.stack([f[k] for f in want])
                if fmt == "npy":
                    got = numpy.load(os.path.join(d, f"{array}.npy"))
                    ok &= got.shape == w.shape and (got == w).all()
                elif fmt == "zarr":
                    got = zarr.open(d, mode="r")[array][:]
                    ok &= got.shape == w.shape and (got == w).all()
                elif fmt == "vat-png":
                    got, extent = png_frames(d, m, f"{array}.png")
                    err = (numpy.abs(got - w) / numpy.maximum(extent, 1e-30)).max()
                    worst.append(err)
                    ok &= got.shape == w.shape and err <= 2 ** -16 + 1e-9
                else:
                    got = texture(m, numpy.load(os.path.join(d, f"{array}.exr.npy")))
                    if fmt == "vat-exr-float":
                        ok &= got.shape == w.shape and (got == w).all()
                    else:  # half: a relative 2^-11, and half's smallest normal step near 0
                        err = (numpy.abs(got - w) / (numpy.abs(w) + 2 ** -14)).max()
                        worst.append(err)
                        ok &= got.shape == w.shape and err <= 2 ** -11
            print(f"{'ok  ' if ok else 'FAIL'} {label}, {method}, {fmt}: {frames[1] - frames[0]} frames"
                  + (f", worst {max(worst):.3g}" if worst else ", bit for bit"))
            passed, failed = passed + ok, failed + (not ok)
    print(f"bake-formats: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    if SCRATCH is None:
        with tempfile.TemporaryDirectory() as SCRATCH:
            sys.exit(main())
    sys.exit(main())
