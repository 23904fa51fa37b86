'use strict';
// skn for Node: libskn through koffi, with typed arrays in and out.
//
//   const skn = require('skn');
//   const rig = skn.bind({ bindMatrices, parents, positions, joints, weights });
//   const pose = rig.pose();
//   pose.setLocal(0, locals);                       // 10 floats a joint
//   const { positions } = rig.skin(pose, { method: 'dqs' });
//
// Arrays are typed arrays of the element type each argument names
// (Float32Array, Uint32Array, Int32Array), passed to C without a copy;
// outputs are Float32Arrays written in place (or new ones). Every length is
// checked against the counts it goes with before C is called. Indices are
// skn's, from 0. Errors are SknError: .status is the status name
// ("SKN_ERR_BAD_HIERARCHY"), .message the library's message. Rigs, poses
// and documents free their handles on destroy() / close(), or, as a safety
// net, when collected; a rig's handle outlives its poses either way.
const { types } = require('util');
const abi = require('./abi');

const { fn } = abi.load();
const C = abi.CONSTANTS;
const koffi = require('koffi');
const SIZE = Object.fromEntries(Object.entries(abi.STRUCTS).map(([k, t]) => [k, koffi.sizeof(t)]));

class SknError extends Error {
  constructor(status, message) {
    super(`${status}: ${message}`);
    this.name = 'SknError';
    this.status = status;
    this.detail = message;
  }
}

function invalid(message) {
  return new SknError('SKN_ERR_INVALID_ARGUMENT', message);
}

function check(status) {
  if (status !== 0) throw new SknError(fn.skn_status_name(status), fn.skn_last_error());
}

function choice(value, table, what, fallback) {
  const v = value === undefined ? fallback : value;
  const key = typeof v === 'string' ? v.toLowerCase() : undefined;
  if (key === undefined || !Object.prototype.hasOwnProperty.call(abi.ENUMS[table], key)) {
    const valid = Object.keys(abi.ENUMS[table]).map((k) => `"${k}"`).join(', ');
    throw invalid(`${what}: ${JSON.stringify(v)} is not one of ${valid}`);
  }
  return abi.ENUMS[table][key];
}

function index(x, what) {
  if (x === undefined) return 0;
  if (!Number.isInteger(x) || x < 0 || x > 0xFFFFFFFF) throw invalid(`${what}: ${x} is not an index (an integer in [0, 2^32))`);
  return x;
}

// A typed array's real kind and size, from the intrinsic %TypedArray%
// getters taken once here: `length`, `byteLength` and the constructor can
// all be redefined on an object or lied about by a subclass, and C must
// never be told more elements than the array's store holds.
const TYPED_ARRAY = Object.getPrototypeOf(Uint8Array.prototype);
const realTag = Object.getOwnPropertyDescriptor(TYPED_ARRAY, Symbol.toStringTag).get;
const realByteLength = Object.getOwnPropertyDescriptor(TYPED_ARRAY, 'byteLength').get;
const ELEMENT_BYTES = { Float32Array: 4, Uint32Array: 4, Int32Array: 4, Uint8Array: 1 };

function kindOf(x) {
  return ArrayBuffer.isView(x) ? Reflect.apply(realTag, x, []) : undefined;
}

// The elements a typed array of `array()` holds.
function length(a) {
  return a ? Reflect.apply(realByteLength, a, []) / ELEMENT_BYTES[kindOf(a)] : 0;
}

// An array argument of `Type` (a typed array constructor), or null.
function array(x, Type, what) {
  if (x === undefined || x === null) return null;
  if (kindOf(x) !== Type.name) {
    const got = kindOf(x) || (types.isProxy(x) ? 'a Proxy' : x && x.constructor ? x.constructor.name : typeof x);
    throw invalid(`${what}: expected a ${Type.name}, not ${got}`);
  }
  return x;
}

function exactly(a, want, what) {
  if (a && length(a) !== want) throw invalid(`${what}: ${length(a)} elements, expected ${want} (or none)`);
}

// An output: a Float32Array of at least `need` floats, or a new one of `total`.
function output(x, need, total, what) {
  if (x === undefined || x === null || x === true) return new Float32Array(total);
  const a = array(x, Float32Array, what);
  if (length(a) < need) throw invalid(`${what}: ${length(a)} floats, the range needs ${need}`);
  return a;
}

// An options object whose every key the call knows: a misspelt or
// unsupported key is refused, never ignored.
function options(o, known, what) {
  if (o === undefined) return {};
  if (o === null || typeof o !== 'object') throw invalid(`${what}: expected an object of options, not ${o === null ? 'null' : typeof o}`);
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) throw invalid(`${what}: unknown option "${key}" (known: ${known.join(', ')})`);
  }
  return o;
}

// A byte count for a uint64_t: a non-negative integer Number (to 2^53) or BigInt (to 2^64 - 1).
function byteCount(x, what) {
  if (x === undefined) return 0;
  const ok = typeof x === 'bigint' ? x >= 0n && x < 1n << 64n : Number.isSafeInteger(x) && x >= 0;
  if (!ok) throw invalid(`${what}: ${x} is not a byte count (an integer from 0)`);
  return x;
}

function real(x, what, fallback) {
  if (x === undefined) return fallback;
  if (typeof x !== 'number') throw invalid(`${what}: expected a number, not ${typeof x}`);
  return x;
}

// A file name: a string without NUL (C would open the part before it).
function pathName(x, what) {
  if (typeof x !== 'string') throw invalid(`${what}: expected a string, not ${typeof x}`);
  if (x.includes('\0')) throw invalid(`${what}: ${JSON.stringify(x)} holds a NUL character: C would open only what is before it`);
  return x;
}

// ---- handles: each object's state outlives it in the finalisers' hands ----
let handles = 0; // created and not yet freed: liveHandles(), for hosts' leak checks
// A rig's state counts its live poses: the C rig is freed when the rig is
// destroyed (or collected) and its last pose is gone, whichever is later.
function freeRig(state) {
  if (state.handle && state.released && state.poses === 0) {
    fn.skn_rig_destroy(state.handle);
    state.handle = null;
    handles -= 1;
  }
}
const registry = new FinalizationRegistry((held) => {
  if (held.kind === 'rig') {
    held.released = true;
    freeRig(held);
  } else if (held.kind === 'pose' && held.handle) {
    fn.skn_pose_destroy(held.handle);
    held.handle = null;
    handles -= 1;
    held.rig.poses -= 1;
    freeRig(held.rig);
  } else if (held.kind === 'gltf' && held.handle) {
    fn.skn_gltf_close(held.handle);
    held.handle = null;
    handles -= 1;
  }
});

function live(obj, Type, what) {
  if (!(obj instanceof Type)) throw invalid(`${what}: expected a skn ${Type.name}, not ${obj && obj.constructor ? obj.constructor.name : typeof obj}`);
  if (!obj._state.handle || obj._state.released) throw invalid(`${what}: used after destroy()`);
  return obj._state.handle;
}

class Rig {
  constructor(handle) {
    const info = {};
    check(fn.skn_rig_info_get(handle, Object.assign(info, { struct_size: SIZE.skn_rig_info })));
    this._state = { kind: 'rig', handle, poses: 0, released: false };
    handles += 1;
    registry.register(this, this._state, this._state);
    this.jointCount = info.joint_count;
    this.vertexCount = info.vertex_count;
    this.influenceCount = info.influence_count;
    this.flags = info.flags;
    this.hasNormals = (info.flags & C.SKN_RIG_HAS_NORMALS) !== 0;
    this.hasTangents = (info.flags & C.SKN_RIG_HAS_TANGENTS) !== 0;
    this.morphTargetCount = info.morph_target_count;
  }

  // Frees the rig; its live poses must be destroyed first.
  destroy() {
    const s = this._state;
    if (!s.handle || s.released) return;
    if (s.poses > 0) throw invalid(`rig: ${s.poses} poses of it are alive; destroy them first`);
    registry.unregister(s);
    s.released = true;
    freeRig(s);
  }

  pose() {
    const out = [null];
    check(fn.skn_pose_create(live(this, Rig, 'rig'), out));
    return new Pose(out[0], this);
  }

  // Deforms vertices [firstVertex, firstVertex + vertexCount) (0: to the end)
  // into o.positions (o.normals, o.tangents: arrays, or true for new ones),
  // addressed by absolute vertex index. Returns { positions, normals, tangents }.
  skin(pose, o = {}) {
    o = options(o, SKIN_OPTIONS, 'skin');
    const rh = live(this, Rig, 'rig');
    const ph = live(pose, Pose, 'pose');
    const v = this.vertexCount;
    const first = index(o.firstVertex, 'firstVertex');
    const count = index(o.vertexCount, 'vertexCount');
    const need = Math.min(count ? first + count : v, v);
    const d = {
      struct_size: SIZE.skn_skin_desc, method: choice(o.method, 'skn_method', 'method', 'lbs'),
      dqs_scale: choice(o.dqsScale, 'skn_dqs_scale', 'dqsScale', 'polar'),
      stores: choice(o.stores, 'skn_stores', 'stores', 'auto'),
      first_vertex: first, vertex_count: count, threads: index(o.threads, 'threads'),
    };
    const positions = output(o.positions, 3 * need, 3 * v, 'positions');
    let normals = null;
    let tangents = null;
    if (o.normals) {
      if (!this.hasNormals) throw invalid('normals: this rig was bound without normals');
      normals = output(o.normals, 3 * need, 3 * v, 'normals');
    }
    if (o.tangents) {
      if (!this.hasTangents) throw invalid('tangents: this rig was bound without tangents');
      tangents = output(o.tangents, 4 * need, 4 * v, 'tangents');
    }
    d.positions = { data: positions, stride: 0 };
    d.normals = { data: normals, stride: 0 };
    d.tangents = { data: tangents, stride: 0 };
    check(fn.skn_skin(rh, ph, d));
    return { positions, normals, tangents };
  }
}

class Pose {
  constructor(handle, rig) {
    this._state = { kind: 'pose', handle, rig: rig._state };
    handles += 1;
    rig._state.poses += 1;
    registry.register(this, this._state, this._state);
    this.rig = rig;
  }

  destroy() {
    const s = this._state;
    if (!s.handle) return;
    registry.unregister(s);
    fn.skn_pose_destroy(s.handle);
    s.handle = null;
    handles -= 1;
    s.rig.poses -= 1;
    freeRig(s.rig);
  }

  // Joints [first, first + n) from parent-relative transforms: a Float32Array
  // of 10 floats a joint (translation xyz, rotation xyzw, scale xyz).
  setLocal(first, local) {
    const h = live(this, Pose, 'pose');
    const a = array(local, Float32Array, 'local');
    if (!a || length(a) % 10) throw invalid(`local: ${length(a)} floats, not 10 a joint`);
    check(fn.skn_pose_set_local(h, index(first, 'first'), length(a) / 10, a));
  }

  // Joints [first, first + n) from joint -> model matrices, 16 floats each.
  setModel(first, matrices) {
    const h = live(this, Pose, 'pose');
    const a = array(matrices, Float32Array, 'matrices');
    if (!a || length(a) % 16) throw invalid(`matrices: ${length(a)} floats, not 16 a joint`);
    check(fn.skn_pose_set_model(h, index(first, 'first'), length(a) / 16, a));
  }

  // The weights of morph targets [first, first + n), a Float32Array.
  setMorphWeights(first, weights) {
    const h = live(this, Pose, 'pose');
    const a = array(weights, Float32Array, 'weights');
    if (!a) throw invalid('weights: expected a Float32Array');
    check(fn.skn_pose_set_morph_weights(h, index(first, 'first'), length(a), a));
  }

  // Every morph target's weight, a new Float32Array.
  morphWeights() {
    const h = live(this, Pose, 'pose');
    const out = new Float32Array(this.rig.morphTargetCount);
    if (out.length) check(fn.skn_pose_morph_weights(h, 0, out.length, out));
    return out;
  }

  // The palette in a format ("mat4", "rows3x4", ...), into dst or a new array.
  palette(format = 'mat4', dst = undefined) {
    const h = live(this, Pose, 'pose');
    const f = choice(format, 'skn_palette_format', 'format');
    const need = abi.PALETTE_FLOATS[f] * this.rig.jointCount;
    const out = output(dst, need, need, 'dst');
    check(fn.skn_pose_palette(h, f, out, 4 * length(out)));
    return out;
  }
}

const BIND_OPTIONS = ['bindMatrices', 'inverseBindMatrices', 'parents', 'positions', 'normals', 'tangents',
  'influencesPerVertex', 'influenceOffsets', 'joints', 'weights', 'blendWeights', 'triangles', 'weightMode',
  'maxInfluences', 'minWeight', 'layout', 'morphTargets', 'morphWeights'];
const SKIN_OPTIONS = ['method', 'dqsScale', 'stores', 'firstVertex', 'vertexCount', 'threads', 'positions', 'normals',
  'tangents'];
const TARGET_KEYS = ['positions', 'normals', 'tangents', 'vertices'];

// bind's morph targets: { positions, normals?, tangents? (3 floats an entry), vertices? (the entries'
// vertex indices; none: every vertex) } each, as skn_morph_target.
function morphTargets(list, v, weights) {
  if (list === undefined || list === null) {
    if (weights !== undefined && weights !== null) throw invalid('morphWeights without morphTargets');
    return { targets: null, count: 0, weights: null };
  }
  if (!Array.isArray(list)) throw invalid(`morphTargets: expected an array of targets, not ${typeof list}`);
  const targets = list.map((t, i) => {
    const what = `morphTargets[${i}]`;
    options(t, TARGET_KEYS, what);
    const vertices = array(t.vertices, Uint32Array, `${what}.vertices`);
    const m = vertices ? length(vertices) : v;
    const attrib = (key, required) => {
      const a = array(t[key], Float32Array, `${what}.${key}`);
      if (!a && required) throw invalid(`${what}.positions are required`);
      exactly(a, 3 * m, `${what}.${key}`);
      return { data: a, stride: 0 };
    };
    return { count: m, vertices, positions: attrib('positions', true), normals: attrib('normals'), tangents: attrib('tangents') };
  });
  const w = array(weights, Float32Array, 'morphWeights');
  exactly(w, targets.length, 'morphWeights');
  return { targets: targets.length ? targets : null, count: targets.length, weights: w };
}

// skn_bind from typed arrays; the joint count is bindMatrices' (or
// inverseBindMatrices') length / 16, the vertex count positions' / 3.
function bind(o) {
  if (o === null || typeof o !== 'object') throw invalid(`bind: expected an object of arrays, not ${o === null ? 'null' : typeof o}`);
  options(o, BIND_OPTIONS, 'bind');
  const bm = array(o.bindMatrices, Float32Array, 'bindMatrices');
  const ibm = array(o.inverseBindMatrices, Float32Array, 'inverseBindMatrices');
  if (!bm === !ibm) throw invalid('give exactly one of bindMatrices and inverseBindMatrices');
  const mats = bm || ibm;
  if (length(mats) === 0 || length(mats) % 16) throw invalid(`bind matrices: ${length(mats)} floats, not 16 a joint`);
  const positions = array(o.positions, Float32Array, 'positions');
  if (!positions || length(positions) === 0 || length(positions) % 3) {
    throw invalid(`positions: ${length(positions)} floats, not 3 a vertex`);
  }
  const j = length(mats) / 16;
  const v = length(positions) / 3;
  const parents = array(o.parents, Int32Array, 'parents');
  const normals = array(o.normals, Float32Array, 'normals');
  const tangents = array(o.tangents, Float32Array, 'tangents');
  const blend = array(o.blendWeights, Float32Array, 'blendWeights');
  const triangles = array(o.triangles, Uint32Array, 'triangles');
  exactly(parents, j, 'parents');
  exactly(normals, 3 * v, 'normals');
  exactly(tangents, 4 * v, 'tangents');
  exactly(blend, v, 'blendWeights');
  if (length(triangles) % 3) throw invalid(`triangles: ${length(triangles)} indices, not 3 a triangle`);
  const k = o.influencesPerVertex === undefined ? 4 : index(o.influencesPerVertex, 'influencesPerVertex');
  const offsets = array(o.influenceOffsets, Uint32Array, 'influenceOffsets');
  let want = k * v;
  if (offsets) {
    if (length(offsets) !== v + 1) throw invalid(`influenceOffsets: ${length(offsets)}, expected vertices + 1 = ${v + 1}`);
    want = offsets[v];
  }
  const joints = array(o.joints, Uint32Array, 'joints');
  const weights = array(o.weights, Float32Array, 'weights');
  if (length(joints) !== want || length(weights) !== want) {
    throw invalid(`joints and weights: ${length(joints)} and ${length(weights)}, expected ${want} each`);
  }
  const morphs = morphTargets(o.morphTargets, v, o.morphWeights);
  const d = {
    struct_size: SIZE.skn_bind_desc, joint_count: j, parents, inverse_bind_matrices: ibm, bind_matrices: bm, rest_local: null,
    vertex_count: v, positions: { data: positions, stride: 0 }, normals: { data: normals, stride: 0 },
    tangents: { data: tangents, stride: 0 }, influences_per_vertex: k, influence_offsets: offsets,
    influence_joints: joints, influence_weights: weights,
    weight_mode: choice(o.weightMode, 'skn_weight_mode', 'weightMode', 'normalize'),
    max_influences: index(o.maxInfluences, 'maxInfluences'), min_weight: real(o.minWeight, 'minWeight', 0),
    blend_weights: blend, triangles, triangle_count: length(triangles) / 3,
    layout: choice(o.layout, 'skn_bind_layout', 'layout', 'full'),
    morph_targets: morphs.targets, morph_weights: morphs.weights, morph_target_count: morphs.count,
  };
  const out = [null];
  check(fn.skn_bind(d, out));
  return new Rig(out[0]);
}

// ---- glTF ----
class Gltf {
  constructor(handle) {
    const info = { struct_size: SIZE.skn_gltf_info };
    this._state = { kind: 'gltf', handle };
    handles += 1;
    registry.register(this, this._state, this._state);
    check(fn.skn_gltf_info_get(handle, info));
    this.primitiveCount = info.primitive_count;
    this.skinCount = info.skin_count;
    this.animationCount = info.animation_count;
    this.nodeCount = info.node_count;
    this.meshCount = info.mesh_count;
  }

  close() {
    const s = this._state;
    if (!s.handle) return;
    registry.unregister(s);
    fn.skn_gltf_close(s.handle);
    s.handle = null;
    handles -= 1;
  }

  primitive(i) {
    const p = { struct_size: SIZE.skn_gltf_primitive_info };
    check(fn.skn_gltf_primitive_info_get(live(this, Gltf, 'gltf'), index(i, 'primitive'), p));
    return {
      mesh: p.mesh, primitiveInMesh: p.primitive_in_mesh, node: p.node, skin: p.skin, vertexCount: p.vertex_count,
      triangleCount: p.triangle_count, jointCount: p.joint_count, influencesPerVertex: p.influences_per_vertex,
      meshName: p.mesh_name, hasNormals: (p.flags & C.SKN_GLTF_HAS_NORMALS) !== 0,
      hasTangents: (p.flags & C.SKN_GLTF_HAS_TANGENTS) !== 0,
    };
  }

  animation(i) {
    const a = { struct_size: SIZE.skn_gltf_animation_info };
    check(fn.skn_gltf_animation_info_get(live(this, Gltf, 'gltf'), index(i, 'animation'), a));
    return { channelCount: a.channel_count, start: a.start, end: a.end, name: a.name };
  }

  // The first animation of that name, or null.
  findAnimation(name) {
    const h = live(this, Gltf, 'gltf');
    if (typeof name !== 'string') throw invalid('name: expected a string');
    const out = [0];
    const s = fn.skn_gltf_find_animation(h, name, out);
    if (s === 3) return null; // SKN_ERR_INDEX_OUT_OF_RANGE: none of that name
    check(s);
    return out[0];
  }

  triangles(i) {
    const t = new Uint32Array(3 * this.primitive(i).triangleCount);
    check(fn.skn_gltf_triangles(live(this, Gltf, 'gltf'), i, t, t.length));
    return t;
  }

  bind(o = {}) {
    o = options(o, ['primitive', 'centersOfRotation', 'maxInfluences', 'minWeight', 'blendWeights', 'layout', 'maxBytes'],
      'bind');
    const h = live(this, Gltf, 'gltf');
    const primitive = index(o.primitive, 'primitive');
    const p = this.primitive(primitive);
    const blend = array(o.blendWeights, Float32Array, 'blendWeights');
    exactly(blend, p.vertexCount, 'blendWeights');
    const d = {
      struct_size: SIZE.skn_gltf_bind_desc, primitive, centers_of_rotation: o.centersOfRotation ? 1 : 0,
      max_influences: index(o.maxInfluences, 'maxInfluences'), min_weight: real(o.minWeight, 'minWeight', 0),
      blend_weights: blend, layout: choice(o.layout, 'skn_bind_layout', 'layout', 'full'),
      max_bytes: byteCount(o.maxBytes, 'maxBytes'),
    };
    const out = [null];
    check(fn.skn_gltf_bind(h, d, out));
    return new Rig(out[0]);
  }

  // Poses a rig of `primitive` at `time` seconds of `animation` (null: the
  // nodes' own transforms).
  pose(primitive, animation, time, pose) {
    const h = live(this, Gltf, 'gltf');
    const ph = live(pose, Pose, 'pose');
    const a = animation === null || animation === undefined ? C.SKN_GLTF_NO_ANIMATION : index(animation, 'animation');
    if (typeof time !== 'number') throw invalid('time: expected a number');
    check(fn.skn_gltf_pose(h, index(primitive, 'primitive'), a, time, ph));
  }
}

function openWith(d) {
  const out = [null];
  check(fn.skn_gltf_open_with(d, out));
  return new Gltf(out[0]);
}

// A .gltf or .glb file. Its buffers are read from files in its folder only;
// o.anyPath lets it name absolute paths and climb out with '..' (for
// documents the host trusts: skn.h, SKN_GLTF_OPEN_ANY_PATH).
function open(path, o = {}) {
  o = options(o, ['anyPath'], 'open');
  return openWith({ struct_size: SIZE.skn_gltf_open_desc, path: pathName(path, 'path'), data: null, size: 0, folder: null,
    flags: o.anyPath ? C.SKN_GLTF_OPEN_ANY_PATH : 0 });
}

// A .glb, or a .gltf whose buffers are data: URIs — or, with o.folder,
// files read from that folder as from a file's — from bytes in memory.
function openMemory(bytes, o = {}) {
  o = options(o, ['folder', 'anyPath'], 'openMemory');
  const b = array(bytes, Uint8Array, 'bytes');
  if (!b) throw invalid('bytes: expected a Uint8Array');
  return openWith({ struct_size: SIZE.skn_gltf_open_desc, path: null, data: b, size: length(b),
    folder: o.folder === undefined ? null : pathName(o.folder, 'folder'), flags: o.anyPath ? C.SKN_GLTF_OPEN_ANY_PATH : 0 });
}

// skn's GLSL (skn_glsl_source) for o.method, o.influences (4, 8, 12 or 16),
// o.dialect ("330", "300 es", "430", "310 es"), o.palette ("uniform-block", ...),
// o.jointCount, and o.normals / o.tangents.
function glslSource(o = {}) {
  const d = {
    struct_size: SIZE.skn_gpu_desc, method: choice(o.method, 'skn_method', 'method', 'lbs'),
    dqs_scale: choice(o.dqsScale, 'skn_dqs_scale', 'dqsScale', 'polar'),
    influences: o.influences === undefined ? 4 : index(o.influences, 'influences'),
    outputs: (o.normals ? C.SKN_GPU_NORMALS : 0) | (o.tangents ? C.SKN_GPU_TANGENTS : 0),
    dialect: choice(o.dialect, 'skn_glsl_dialect', 'dialect', '330'),
    palette: choice(o.palette, 'skn_glsl_palette', 'palette', 'uniform-block'),
    joint_count: index(o.jointCount, 'jointCount'), flags: 0,
  };
  const n = [0];
  check(fn.skn_glsl_source(d, null, 0, n));
  const text = new Uint8Array(n[0] + 1);
  check(fn.skn_glsl_source(d, text, text.length, n));
  return Buffer.from(text.buffer, 0, n[0]).toString('latin1');
}

// Rigs, poses and documents made and not yet freed (by destroy/close or the collector).
function liveHandles() {
  return handles;
}

module.exports = {
  version: fn.skn_version_string(), SknError, bind, open, openMemory, glslSource, liveHandles, Rig, Pose, Gltf,
  METHODS: Object.keys(abi.ENUMS.skn_method),
};
