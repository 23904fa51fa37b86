"""reference.py — glTF 2.0 skinning with morph targets in float64, written
for the corpus check from the specification alone (glTF 2.0 §3.6 accessors,
§3.7.2.2 morph targets, §3.7.3 skins, §3.11 and Appendix C animation); it
shares no code with skn's loader. A file it cannot evaluate raises
ReferenceError with the reason."""
import base64
import json
import math
import os
import struct
import urllib.parse

import numpy

COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
NORMALIZE = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}


class ReferenceError(Exception):
    pass


class Document:
    def __init__(self, path):
        raw = open(path, "rb").read()
        self.dir = os.path.dirname(path)
        self.bin = None
        if raw[:4] == b"glTF":
            length = struct.unpack_from("<I", raw, 8)[0]
            n = struct.unpack_from("<I", raw, 12)[0]
            self.json = json.loads(raw[20:20 + n])
            at = 20 + n
            if at + 8 <= length and raw[at + 4:at + 8] == b"BIN\0":
                m = struct.unpack_from("<I", raw, at)[0]
                self.bin = raw[at + 8:at + 8 + m]
        else:
            self.json = json.loads(raw)
        self.buffers = {}

    def get(self, key):
        return self.json.get(key, [])

    def buffer(self, i):
        if i not in self.buffers:
            b = self.get("buffers")[i]
            uri = b.get("uri")
            if uri is None:
                if self.bin is None:
                    raise ReferenceError(f"buffers[{i}] has no bytes")
                data = self.bin
            elif uri.startswith("data:"):
                head, _, body = uri.partition(",")
                data = base64.b64decode(body) if head.endswith(";base64") else urllib.parse.unquote_to_bytes(body)
            else:
                data = open(os.path.join(self.dir, urllib.parse.unquote(uri)), "rb").read()
            if len(data) < b["byteLength"]:
                raise ReferenceError(f"buffers[{i}] is short")
            self.buffers[i] = data
        return self.buffers[i]

    def _elements(self, view, offset, count, ctype, type_):
        """count elements as a (count, components) float64 array, matrix columns padded to 4 bytes."""
        v = self.get("bufferViews")[view]
        data = self.buffer(v["buffer"])
        size = numpy.dtype(DTYPES[ctype]).itemsize
        n = COMPONENTS[type_]
        cols = {"MAT2": 2, "MAT3": 3, "MAT4": 4}.get(type_, 1)
        rows = n // cols
        column = rows * size if cols == 1 else (rows * size + 3) // 4 * 4
        stride = v.get("byteStride") or column * cols
        base = v.get("byteOffset", 0) + offset
        out = numpy.zeros((count, n))
        for c in range(cols):
            for r in range(rows):
                start = base + c * column + r * size
                a = numpy.ndarray((count,), DTYPES[ctype], data, start, (stride,))
                out[:, c * rows + r] = a
        return out

    def accessor(self, i, normalize=True):
        a = self.get("accessors")[i]
        ctype, type_, count = a["componentType"], a["type"], a["count"]
        if ctype not in DTYPES or type_ not in COMPONENTS:
            raise ReferenceError(f"accessors[{i}] has an unknown type")
        out = numpy.zeros((count, COMPONENTS[type_]))
        if "bufferView" in a:
            out = self._elements(a["bufferView"], a.get("byteOffset", 0), count, ctype, type_)
        sp = a.get("sparse")
        if sp:
            ix, vals = sp["indices"], sp["values"]
            idx = self._elements(ix["bufferView"], ix.get("byteOffset", 0), sp["count"], ix["componentType"], "SCALAR")
            out[idx[:, 0].astype(numpy.int64)] = self._elements(vals["bufferView"], vals.get("byteOffset", 0),
                                                                sp["count"], ctype, type_)
        if normalize and a.get("normalized") and ctype in NORMALIZE:
            out = numpy.maximum(out / NORMALIZE[ctype], -1.0)
        return out


def quat_matrix(q):
    x, y, z, w = q / numpy.linalg.norm(q)
    return numpy.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def slerp(a, b, u):
    d = float(numpy.dot(a, b))
    if d < 0:
        b, d = -b, -d
    if d > 0.9999995:
        r = a + u * (b - a)
    else:
        th = math.acos(min(d, 1.0))
        r = (math.sin((1 - u) * th) * a + math.sin(u * th) * b) / math.sin(th)
    return r / numpy.linalg.norm(r)


def sample(doc, sampler, t, width, rotation):
    """The sampler's value at t (clamped), width components a key."""
    times = doc.accessor(sampler["input"])[:, 0]
    values = doc.accessor(sampler["output"]).reshape(-1)
    mode = sampler.get("interpolation", "LINEAR")
    cubic = mode == "CUBICSPLINE"
    per_key = 3 * width if cubic else width
    key = lambda k, part=1 if cubic else 0: values[k * per_key + part * width:k * per_key + (part + 1) * width]
    if len(times) == 1 or t <= times[0]:
        out = key(0)
    elif t >= times[-1]:
        out = key(len(times) - 1)
    else:
        lo = int(numpy.searchsorted(times, t, side="right")) - 1
        hi = lo + 1
        d = times[hi] - times[lo]
        u = (t - times[lo]) / d
        if mode == "STEP":
            out = key(lo)
        elif not cubic:
            out = slerp(key(lo), key(hi), u) if rotation else key(lo) + u * (key(hi) - key(lo))
        else:
            u2, u3 = u * u, u * u * u
            out = ((2 * u3 - 3 * u2 + 1) * key(lo, 1) + (u3 - 2 * u2 + u) * d * key(lo, 2) +
                   (-2 * u3 + 3 * u2) * key(hi, 1) + (u3 - u2) * d * key(hi, 0))
    out = numpy.array(out, numpy.float64)
    return out / numpy.linalg.norm(out) if rotation else out


def locals_at(doc, animation, t):
    """Every node's local matrix, and animated morph weights by node, at time t of animation (None: none)."""
    nodes = doc.get("nodes")
    trs = [[numpy.array(n.get("translation", [0, 0, 0]), float), numpy.array(n.get("rotation", [0, 0, 0, 1]), float),
            numpy.array(n.get("scale", [1, 1, 1]), float)] for n in nodes]
    weights = {}
    if animation is not None:
        an = doc.get("animations")[animation]
        for ch in an["channels"]:
            node, path = ch["target"].get("node"), ch["target"]["path"]
            if node is None:
                continue
            s = an["samplers"][ch["sampler"]]
            if path in ("translation", "rotation", "scale"):
                k = ("translation", "rotation", "scale").index(path)
                trs[node][k] = sample(doc, s, t, 4 if k == 1 else 3, k == 1)
            elif path == "weights":
                mesh = nodes[node].get("mesh")
                n = len(doc.get("meshes")[mesh]["primitives"][0].get("targets", [])) if mesh is not None else 0
                if n:
                    weights[node] = sample(doc, s, t, n, False)
    out = []
    for i, n in enumerate(nodes):
        if "matrix" in n:
            out.append(numpy.array(n["matrix"], float).reshape(4, 4).T)
            continue
        m = numpy.eye(4)
        q = trs[i][1]
        m[:3, :3] = (quat_matrix(q) if numpy.dot(q, q) > 0 else numpy.eye(3)) * trs[i][2]
        m[:3, 3] = trs[i][0]
        out.append(m)
    return out, weights


def globals_at(doc, animation, t):
    local, weights = locals_at(doc, animation, t)
    nodes = doc.get("nodes")
    parent = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}
    world = [None] * len(nodes)

    def get(i, depth=0):
        if depth > len(nodes):
            raise ReferenceError("a node cycle")
        if world[i] is None:
            world[i] = local[i] if i not in parent else get(parent[i], depth + 1) @ local[i]
        return world[i]
    return [get(i) for i in range(len(nodes))], weights


def skinned_primitives(doc):
    """(mesh, primitive index, node, skin) in skn's order: mesh by mesh, node by node, primitive by primitive."""
    out = []
    for m, mesh in enumerate(doc.get("meshes")):
        for n, node in enumerate(doc.get("nodes")):
            if node.get("mesh") != m or node.get("skin") is None:
                continue
            for k, p in enumerate(mesh["primitives"]):
                if "POSITION" in p["attributes"] and "JOINTS_0" in p["attributes"]:
                    out.append((m, k, n, node["skin"]))
    return out


def skin(doc, prim, animation, t):
    """Skinned positions of prim (from skinned_primitives) at time t: float64 (n, 3)."""
    m, k, n, s = prim
    p = doc.get("meshes")[m]["primitives"][k]
    attrs = p["attributes"]
    rest = doc.accessor(attrs["POSITION"]).copy()
    world, animated = globals_at(doc, animation, t)
    node, mesh = doc.get("nodes")[n], doc.get("meshes")[m]
    targets = p.get("targets", [])
    if targets:
        w = animated.get(n)
        if w is None:
            w = node.get("weights", mesh.get("weights", [0.0] * len(targets)))
        for target, wt in zip(targets, w):
            if wt and "POSITION" in target:
                rest += wt * doc.accessor(target["POSITION"])
    skin_ = doc.get("skins")[s]
    joints = skin_["joints"]
    ibm = doc.accessor(skin_["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1)[:len(joints)] \
        if "inverseBindMatrices" in skin_ else numpy.repeat(numpy.eye(4)[None], len(joints), axis=0)
    palette = numpy.array([world[j] for j in joints]) @ ibm
    J = numpy.concatenate([doc.accessor(attrs[f"JOINTS_{i}"], False) for i in range(8) if f"JOINTS_{i}" in attrs], 1)
    W = numpy.concatenate([doc.accessor(attrs[f"WEIGHTS_{i}"]) for i in range(8) if f"WEIGHTS_{i}" in attrs], 1)
    total = W.sum(axis=1, keepdims=True)
    Wn = numpy.where(total > 0, W / numpy.where(total > 0, total, 1), 0)
    h = numpy.concatenate([rest, numpy.ones((len(rest), 1))], 1)
    moved = numpy.einsum("vkij,vj->vki", palette[J.astype(numpy.int64)], h)[..., :3]
    out = (Wn[..., None] * moved).sum(axis=1)
    return numpy.where(total > 0, out, rest)
