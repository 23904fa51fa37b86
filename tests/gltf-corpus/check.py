"""check.py — skn over the public glTF corpus (../shared/data/gltf-corpus):
each file's `expect` in its manifest.json says what must happen (skin: load
and match the reference; load: exit 0; refuse: exit 1 with a message;
either: exit 0, or 1 with a message), through the skn command for exit
statuses and through the Python package for positions, compared with
reference.py (float64, written from the spec) for every skinned primitive,
at rest and at five times of every animation, within 1e-4 of the model's
size. Usage: check.py SKN_COMMAND CORPUS_DIR. Ends with
"gltf-corpus: N passed, N failed" (a check per file)."""
import json
import os
import subprocess
import sys

import numpy

import skn
import reference

TOLERANCE = 1e-4
FRACTIONS = (0.0, 0.25, 0.5, 0.75, 1.0)


def exit_status(command, path):
    r = subprocess.run([command, "info", path], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stderr.strip()


def poses(g):
    yield None, 0.0
    for a, an in enumerate(g.animations):
        for f in FRACTIONS:
            yield a, an["start"] + f * (an["end"] - an["start"])


def compare(path, g):
    """The worst error over every primitive and pose, relative to the model's size."""
    doc = reference.Document(path)
    want = reference.skinned_primitives(doc)
    got = [(p["mesh"], p["primitive_in_mesh"], p["node"], p["skin"]) for p in g.primitives]
    if got != want:
        raise AssertionError(f"skinned primitives {got}, the reference finds {want}")
    worst = 0.0
    for i, prim in enumerate(want):
        rig = g.bind(i)
        pose = rig.pose()
        rest = doc.accessor(doc.get("meshes")[prim[0]]["primitives"][prim[1]]["attributes"]["POSITION"])
        size = float(numpy.linalg.norm(rest.max(axis=0) - rest.min(axis=0))) or 1.0
        for animation, t in poses(g):
            g.pose(pose, i, animation, t)
            mine = rig.skin(pose).astype(numpy.float64)
            theirs = reference.skin(doc, prim, animation, t)
            scale = max(size, float(numpy.linalg.norm(theirs.max(axis=0) - theirs.min(axis=0))))
            worst = max(worst, float(numpy.abs(mine - theirs).max()) / scale)
    return worst


def main(command, corpus):
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))
    passed = failed = compared = 0
    worst_file, worst = None, 0.0
    for entry in manifest["files"]:
        path, expect = os.path.join(corpus, entry["file"]), entry["expect"]
        rc, message = exit_status(command, path)
        problem = None
        if rc not in (0, 1) or (rc == 1 and not message):
            problem = f"exit {rc} {message!r}"
        elif expect in ("skin", "load") and rc != 0:
            problem = f"refused: {message}"
        elif expect == "refuse" and rc != 1:
            problem = "accepted, must be refused"
        elif rc == 0 and expect in ("skin", "either"):
            g = skn.Gltf(path)
            if expect == "skin" and "expected_primitives" in entry and len(g.primitives) != entry["expected_primitives"]:
                problem = f"{len(g.primitives)} skinned primitives, expected {entry['expected_primitives']}"
            elif g.primitives:
                try:
                    err = compare(path, g)
                    compared += 1
                    if err > worst:
                        worst, worst_file = err, entry["file"]
                    if err > TOLERANCE:
                        problem = f"off by {err:.3g} of the model's size"
                except (reference.ReferenceError, KeyError, IndexError, ValueError) as e:
                    if expect == "skin":  # a valid file the reference cannot read is the test's fault
                        problem = f"the reference failed: {e!r}"
                except AssertionError as e:
                    problem = str(e)
        if problem:
            failed += 1
            print(f"FAIL {entry['file']} ({expect}): {problem}")
        else:
            passed += 1
    print(f"{compared} files compared with the reference, worst {worst:.3g} of the model's size ({worst_file})")
    print(f"gltf-corpus: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
