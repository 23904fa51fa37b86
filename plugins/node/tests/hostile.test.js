'use strict';
// The package under careless and hostile use (issue 43): typed arrays that
// lie about their length or type, paths with NUL, byte counts that are not
// counts, options the package does not know, documents that name files
// outside their folder. Run with the sanitized library preloaded too
// (tests/run-all's node-asan): a read or write past an array's store stops it.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const skn = require('..');
const { root } = require('./paths');

const INVALID = 'SKN_ERR_INVALID_ARGUMENT';
function refused(status, text, f) {
  assert.throws(f, (e) => e instanceof skn.SknError && e.status === status && (!text || e.message.includes(text)) ||
    assert.fail(`${e.name}: ${e.message}`));
}

// Two joints, three vertices on the y axis; joint 1 moves +1 in x.
function small(over = {}) {
  return {
    bindMatrices: new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1]),
    parents: new Int32Array([-1, 0]), positions: new Float32Array([0, 0, 0, 0, 1, 0, 0, 2, 0]), influencesPerVertex: 1,
    joints: new Uint32Array([0, 1, 1]), weights: new Float32Array([1, 1, 1]), ...over,
  };
}

// A Float32Array that says it is longer than it is: on the object, and by a subclass's getters.
function lying(n, claimed) {
  const a = new Float32Array(n);
  Object.defineProperty(a, 'length', { value: claimed });
  return a;
}
class Liar extends Float32Array {
  get length() { return 1e6; }
  get byteLength() { return 4e6; }
}

test('#7 typed arrays sized by their store, never by what they say', () => {
  const rig = skn.bind(small());
  const pose = rig.pose();
  // an output of 3 floats claiming 3000: skin wrote 9 floats into its 12-byte store
  refused(INVALID, 'positions: 3 floats, the range needs 9', () => rig.skin(pose, { positions: lying(3, 3000) }));
  refused(INVALID, 'positions: 3 floats, the range needs 9', () => rig.skin(pose, { positions: new Liar(3) }));
  refused(INVALID, 'dst: 3 floats, the range needs 32', () => pose.palette('mat4', new Liar(3)));
  // bind inputs: counts come from the real store
  refused(INVALID, 'joints and weights: 3 and 1, expected 3', () => skn.bind(small({ weights: lying(1, 3) })));
  refused(INVALID, 'positions: 2 floats, not 3 a vertex', () => skn.bind(small({ positions: new Liar(2) })));
  refused(INVALID, 'parents: 1 elements, expected 2', () => skn.bind(small({ parents: Object.defineProperty(new Int32Array([-1]), 'length', { value: 2 }) })));
  // the real type, whatever the prototype says
  const fake = new Int32Array(9);
  Object.setPrototypeOf(fake, Float32Array.prototype);
  refused(INVALID, 'positions: expected a Float32Array, not Int32Array', () => rig.skin(pose, { positions: fake }));
  refused(INVALID, 'positions: expected a Float32Array, not a Proxy', () => rig.skin(pose, { positions: new Proxy(new Float32Array(9), {}) }));
  const out = new Float32Array(9);
  rig.skin(pose, { positions: out }); // and an honest one still works
  assert.deepStrictEqual(Array.from(out), [0, 0, 0, 0, 1, 0, 0, 2, 0]);
  pose.destroy();
  rig.destroy();
});

test('#16 a path with NUL, and counts that are not counts', () => {
  const fox = path.join(root, 'data/gltf/Fox/glTF-Binary/Fox.glb');
  refused(INVALID, 'holds a NUL character', () => skn.open(`${fox}\0.other`));
  const doc = skn.open(fox);
  for (const bad of [-1, 1.5, NaN, '5', -1n, 1n << 64n]) {
    refused(INVALID, 'maxBytes', () => doc.bind({ maxBytes: bad }));
  }
  refused('SKN_ERR_UNSUPPORTED', 'over max_bytes', () => doc.bind({ maxBytes: 1000 }));
  assert.strictEqual(doc.bind({ maxBytes: 1n << 40n }).vertexCount, 1728);
  refused(INVALID, 'minWeight: expected a number', () => doc.bind({ minWeight: '0.1' }));
  refused(INVALID, 'bind: unknown option "morphTarget"', () => doc.bind({ morphTarget: [] }));
  doc.close();
  refused(INVALID, 'skin: unknown option "normal"', () => {
    const rig = skn.bind(small());
    rig.skin(rig.pose(), { normal: true });
  });
});

test('morph targets: bound, weighted, applied before skinning', () => {
  // vertex 1 (0, 1, 0) moved by target 0 (dense) and target 1 (sparse, vertices 1 and 2)
  const targets = [
    { positions: new Float32Array([0, 0, 0, 0, 0, 4, 0, 0, 0]) },
    { vertices: new Uint32Array([1, 2]), positions: new Float32Array([2, 0, 0, 0, 0, 8]) },
  ];
  const rig = skn.bind(small({ morphTargets: targets, morphWeights: new Float32Array([0.5, 0]) }));
  assert.strictEqual(rig.morphTargetCount, 2);
  const pose = rig.pose();
  assert.deepStrictEqual(Array.from(pose.morphWeights()), [0.5, 0]);
  assert.deepStrictEqual(Array.from(rig.skin(pose).positions), [0, 0, 0, 0, 1, 2, 0, 2, 0]);
  pose.setMorphWeights(1, new Float32Array([0.25]));
  pose.setLocal(1, new Float32Array([1, 1, 0, 0, 0, 0, 1, 1, 1, 1])); // joint 1 (bound at (0, 1, 0)) one unit along x
  // v1 = (0, 1, 2) + 0.25 (2, 0, 0) then + (1, 0, 0); v2 = (0, 2, 0) + 0.25 (0, 0, 8) then + (1, 0, 0)
  assert.deepStrictEqual(Array.from(rig.skin(pose).positions), [0, 0, 0, 1.5, 1, 2, 1, 2, 2]);
  refused('SKN_ERR_INDEX_OUT_OF_RANGE', null, () => pose.setMorphWeights(1, new Float32Array(2)));
  refused(INVALID, 'morphTargets[1].positions: 5 elements, expected 6', () => skn.bind(small({
    morphTargets: [targets[0], { vertices: new Uint32Array([1, 2]), positions: new Float32Array(5) }] })));
  refused(INVALID, 'morphTargets[0]: unknown option "offsets"', () => skn.bind(small({ morphTargets: [{ offsets: 1 }] })));
  refused(INVALID, 'morphWeights without morphTargets', () => skn.bind(small({ morphWeights: new Float32Array(1) })));
  refused(INVALID, 'morphWeights: 1 elements, expected 2', () => skn.bind(small({ morphTargets: targets, morphWeights: new Float32Array(1) })));
  pose.destroy();
  rig.destroy();
});

test('#15 documents read files of their own folder; anyPath lets a trusted one out', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skn-node-'));
  fs.mkdirSync(path.join(dir, 'doc'));
  fs.mkdirSync(path.join(dir, 'elsewhere'));
  const rigged = path.join(root, 'data/gltf/RiggedSimple/glTF');
  fs.copyFileSync(path.join(rigged, 'RiggedSimple0.bin'), path.join(dir, 'elsewhere', 'x.bin'));
  const text = fs.readFileSync(path.join(rigged, 'RiggedSimple.gltf'), 'utf8').replace('"RiggedSimple0.bin"', '"../elsewhere/x.bin"');
  const doc = path.join(dir, 'doc', 'a.gltf');
  fs.writeFileSync(doc, text);
  refused('SKN_ERR_IO', 'climbs out of the document\'s folder', () => skn.open(doc));
  skn.open(doc, { anyPath: true }).close();
  const bytes = new Uint8Array(fs.readFileSync(doc));
  refused('SKN_ERR_IO', 'climbs out', () => skn.openMemory(bytes, { folder: path.join(dir, 'doc') }));
  skn.openMemory(bytes, { folder: path.join(dir, 'doc'), anyPath: true }).close();
  refused(INVALID, 'open: unknown option "anypath"', () => skn.open(doc, { anypath: true }));
  refused('SKN_ERR_IO', 'is a directory, not a regular file', () => skn.open(dir));
  fs.rmSync(dir, { recursive: true });
});
