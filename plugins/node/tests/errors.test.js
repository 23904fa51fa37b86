'use strict';
// Bad input: each refused with an SknError naming the status and the
// problem, before C is called where the package can tell, and nothing
// written to the caller's arrays.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const skn = require('..');
const { root } = require('./paths');

function small(over = {}) {
  return {
    bindMatrices: new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1]),
    parents: new Int32Array([-1, 0]), positions: new Float32Array([0, 0, 0, 0, 1, 0, 0, 2, 0]),
    normals: new Float32Array([1, 0, 0, 1, 0, 0, 1, 0, 0]), influencesPerVertex: 2,
    joints: new Uint32Array([0, 1, 0, 1, 0, 1]), weights: new Float32Array([1, 0, 0.5, 0.5, 0, 1]), ...over,
  };
}

function refused(status, text, f) {
  assert.throws(f, (e) => e instanceof skn.SknError && e.status === status && (!text || e.message.includes(text)) ||
    assert.fail(`${e.name}: ${e.message}`));
}
const INVALID = 'SKN_ERR_INVALID_ARGUMENT';

test('bind: lengths checked against the counts', () => {
  refused(INVALID, 'positions: 8 floats, not 3 a vertex', () => skn.bind(small({ positions: new Float32Array(8) })));
  refused(INVALID, 'normals: 6 elements, expected 9', () => skn.bind(small({ normals: new Float32Array(6) })));
  refused(INVALID, 'joints and weights: 5 and 6, expected 6', () => skn.bind(small({ joints: new Uint32Array(5) })));
  refused(INVALID, 'parents: 1 elements, expected 2', () => skn.bind(small({ parents: new Int32Array([-1]) })));
  refused(INVALID, 'bind matrices: 31 floats', () => skn.bind(small({ bindMatrices: new Float32Array(31) })));
  refused(INVALID, 'blendWeights: 2 elements, expected 3', () => skn.bind(small({ blendWeights: new Float32Array(2) })));
  refused(INVALID, 'influenceOffsets: 3, expected vertices + 1 = 4', () => skn.bind(small({ influenceOffsets: new Uint32Array(3) })));
});

test('bind: types checked', () => {
  refused(INVALID, 'bind: expected an object of arrays, not undefined', () => skn.bind());
  refused(INVALID, 'positions: expected a Float32Array, not Array', () => skn.bind(small({ positions: [0, 0, 0] })));
  refused(INVALID, 'joints: expected a Uint32Array, not Float32Array', () => skn.bind(small({ joints: new Float32Array(6) })));
  refused(INVALID, 'parents: expected a Int32Array, not Uint32Array', () => skn.bind(small({ parents: new Uint32Array(2) })));
  refused(INVALID, 'maxInfluences: -1 is not an index', () => skn.bind(small({ maxInfluences: -1 })));
  refused(INVALID, 'weightMode: "dqs" is not one of', () => skn.bind(small({ weightMode: 'dqs' })));
});

test('bind: the library\'s own checks, with its messages', () => {
  refused('SKN_ERR_INDEX_OUT_OF_RANGE', 'vertex 1, influence 1: joint 7 >= joint_count 2',
    () => skn.bind(small({ joints: new Uint32Array([0, 1, 0, 7, 0, 1]) })));
  refused('SKN_ERR_BAD_HIERARCHY', 'joint 1: parent 5 is out of range', () => skn.bind(small({ parents: new Int32Array([-1, 5]) })));
  refused('SKN_ERR_NOT_FINITE', 'vertex 1', () => skn.bind(small({ positions: new Float32Array([0, 0, 0, 0, NaN, 0, 0, 2, 0]) })));
  refused('SKN_ERR_BAD_WEIGHTS', 'negative', () => skn.bind(small({ weights: new Float32Array([1, 0, -0.5, 0.5, 0, 1]) })));
});

test('skin and pose: outputs checked, nothing written when refused', () => {
  const rig = skn.bind(small());
  const pose = rig.pose();
  const out = new Float32Array(9).fill(-7);
  refused(INVALID, 'positions: 8 floats, the range needs 9', () => rig.skin(pose, { positions: new Float32Array(8) }));
  refused(INVALID, 'normals: 8 floats', () => rig.skin(pose, { positions: out, normals: new Float32Array(8) }));
  refused(INVALID, 'positions: expected a Float32Array, not Float64Array', () => rig.skin(pose, { positions: new Float64Array(9) }));
  refused(INVALID, 'tangents: this rig was bound without tangents', () => rig.skin(pose, { positions: out, tangents: true }));
  refused('SKN_ERR_INDEX_OUT_OF_RANGE', null, () => rig.skin(pose, { positions: out, firstVertex: 2, vertexCount: 2 }));
  refused(INVALID, 'firstVertex: -1 is not an index', () => rig.skin(pose, { positions: out, firstVertex: -1 }));
  refused(INVALID, 'firstVertex: 1.5 is not an index', () => rig.skin(pose, { positions: out, firstVertex: 1.5 }));
  refused(INVALID, 'method: "DQ" is not one of', () => rig.skin(pose, { positions: out, method: 'DQ' }));
  refused('SKN_ERR_UNSUPPORTED', null, () => rig.skin(pose, { positions: out, method: 'cor' }));
  assert.deepStrictEqual(Array.from(out), new Array(9).fill(-7));
  rig.skin(pose, { positions: out, method: 'DQS', firstVertex: 1, vertexCount: 1 });
  assert.deepStrictEqual(Array.from(out), [-7, -7, -7, 0, 1, 0, -7, -7, -7]);
  const big = new Float32Array(12).fill(-7); // a view into a larger buffer is written where it lies
  rig.skin(pose, { positions: big.subarray(3), method: 'lbs' });
  assert.deepStrictEqual(Array.from(big), [-7, -7, -7, 0, 0, 0, 0, 1, 0, 0, 2, 0]);
  refused(INVALID, 'local: 9 floats, not 10 a joint', () => pose.setLocal(0, new Float32Array(9)));
  refused('SKN_ERR_INDEX_OUT_OF_RANGE', null, () => pose.setLocal(0, new Float32Array(30)));
  refused(INVALID, 'matrices: 20 floats, not 16 a joint', () => pose.setModel(0, new Float32Array(20)));
  refused(INVALID, 'dst: 31 floats, the range needs 32', () => pose.palette('mat4', new Float32Array(31)));
  assert.strictEqual(pose.palette('mat4')[15], 1);
  pose.destroy();
  rig.destroy();
});

test('handles: destroyed ones refused, a rig outlives its poses', () => {
  const rig = skn.bind(small());
  const pose = rig.pose();
  refused(INVALID, 'rig: 1 poses of it are alive; destroy them first', () => rig.destroy());
  const other = skn.bind(small());
  refused(INVALID, null, () => other.skin(pose, {}));
  pose.destroy();
  pose.destroy(); // twice is nothing
  refused(INVALID, 'pose: used after destroy()', () => rig.skin(pose, {}));
  rig.destroy();
  refused(INVALID, 'rig: used after destroy()', () => rig.pose());
  refused(INVALID, 'pose: expected a skn Pose, not Object', () => other.skin({}, {}));
  other.destroy();
});

test('glTF: files and bytes refused with the library\'s status', () => {
  refused('SKN_ERR_IO', null, () => skn.open('/nonexistent.gltf'));
  const glb = Uint8Array.from(Buffer.from('Z2xURgIAAAABAAAA7P///0pTT057', 'base64'));
  refused('SKN_ERR_PARSE', null, () => skn.openMemory(glb));
  refused(INVALID, 'bytes: expected a Uint8Array', () => skn.openMemory('abc'));
  const doc = skn.open(path.join(root, 'data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf'));
  refused(INVALID, 'blendWeights: 3 elements', () => doc.bind({ blendWeights: new Float32Array(3) }));
  refused('SKN_ERR_INDEX_OUT_OF_RANGE', null, () => doc.primitive(5));
  assert.strictEqual(doc.findAnimation('no such'), null);
  assert.ok(doc.animation(0).channelCount > 0);
  assert.strictEqual(doc.triangles(0).length % 3, 0);
  doc.close();
  refused(INVALID, 'gltf: used after destroy()', () => doc.primitive(0));
});

test('GLSL', () => {
  assert.ok(skn.glslSource({ method: 'cor', normals: true, jointCount: 2 }).includes('skn_skin_normal'));
  refused(INVALID, null, () => skn.glslSource({ influences: 5, jointCount: 2 }));
});

test('the collector frees what is dropped, poses before their rigs', { skip: !global.gc && 'needs --expose-gc' }, async () => {
  const before = skn.liveHandles();
  for (let i = 0; i < 200; ++i) skn.bind(small()).pose();
  assert.strictEqual(skn.liveHandles(), before + 400);
  for (let i = 0; i < 50 && skn.liveHandles() > before; ++i) {
    global.gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.strictEqual(skn.liveHandles(), before);
});
