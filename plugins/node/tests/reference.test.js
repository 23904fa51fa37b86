'use strict';
// Every reference case (a procedural rig, SimpleSkin, RiggedSimple, Fox),
// every method and split, through the package: the C library's status and
// the same bits (the same calls, one thread).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const skn = require('..');
const { reference } = require('./paths');

const METHODS = { LBS_MATRIX: 'lbs', LBS_QUATERNION: 'lbs-quat', DQS: 'dqs', BLEND: 'blend', COR: 'cor' };

function load(Type, name) {
  const b = fs.readFileSync(path.join(reference, name));
  return new Type(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

function cases() {
  const out = [];
  for (const line of fs.readFileSync(path.join(reference, 'cases.txt'), 'utf8').split('\n')) {
    const w = line.split(' ');
    if (w[0] === 'proc' || w[0] === 'gltf') out.push({ kind: w[0], name: w[1], words: w, runs: [] });
    else if (w[0] === 'run') out[out.length - 1].runs.push({ method: w[2], split: w[3], status: w[4] });
  }
  return out;
}

function rigOf(c) {
  if (c.kind === 'proc') {
    const n = c.name;
    const rig = skn.bind({
      bindMatrices: load(Float32Array, `${n}.bind_matrices`), parents: load(Int32Array, `${n}.parents`),
      positions: load(Float32Array, `${n}.positions`), normals: load(Float32Array, `${n}.normals`),
      tangents: load(Float32Array, `${n}.tangents`), joints: load(Uint32Array, `${n}.joints`),
      weights: load(Float32Array, `${n}.weights`), blendWeights: load(Float32Array, `${n}.blend`),
      triangles: load(Uint32Array, `${n}.triangles`),
    });
    const pose = rig.pose();
    pose.setLocal(0, load(Float32Array, `${n}.local`));
    return { rig, pose };
  }
  const [, , file, prim, anim, time] = c.words;
  const doc = skn.open(file);
  const blend = new Float32Array(doc.primitive(Number(prim)).vertexCount).map((_, v) => (v % 5) / 4);
  const rig = doc.bind({ primitive: Number(prim), centersOfRotation: true, blendWeights: blend });
  const pose = rig.pose();
  doc.pose(Number(prim), Number(anim), Number(time), pose);
  doc.close();
  return { rig, pose };
}

const all = cases();
test('the reference has its four cases', () => assert.strictEqual(all.length, 4));
for (const c of all) {
  test(`${c.name}: every method and split as the C library`, () => {
    const { rig, pose } = rigOf(c);
    for (const r of c.runs) {
      let got;
      let status = 'SKN_OK';
      try {
        got = rig.skin(pose, { method: METHODS[r.method], dqsScale: r.split === 'KEEP_Y' ? 'keep-y' : 'polar',
          threads: 1, normals: rig.hasNormals, tangents: rig.hasTangents });
      } catch (e) {
        if (!(e instanceof skn.SknError)) throw e;
        status = e.status;
      }
      assert.strictEqual(status, r.status, `${c.name} ${r.method} ${r.split}`);
      if (status !== 'SKN_OK') continue;
      const stem = `${c.name}.${r.method}.${r.split}.`;
      assert.deepStrictEqual(Buffer.from(got.positions.buffer), fs.readFileSync(path.join(reference, `${stem}positions`)));
      if (got.normals) assert.deepStrictEqual(Buffer.from(got.normals.buffer), fs.readFileSync(path.join(reference, `${stem}normals`)));
      if (got.tangents) assert.deepStrictEqual(Buffer.from(got.tangents.buffer), fs.readFileSync(path.join(reference, `${stem}tangents`)));
    }
    pose.destroy();
    rig.destroy();
  });
}
