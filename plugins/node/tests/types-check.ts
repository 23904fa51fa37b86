// Compiled by tests/types.test.js with `tsc --strict --noEmit`: the README's
// use of the package, typed. Never run.
import * as skn from '..';

const doc: skn.Gltf = skn.open('Fox.glb');
const rig: skn.Rig = doc.bind({ primitive: 0, centersOfRotation: true, maxBytes: 1n << 30n });
const pose: skn.Pose = rig.pose();
doc.pose(0, doc.findAnimation('Run'), 0.5, pose);
const out = new Float32Array(3 * rig.vertexCount);
const r: skn.SkinResult = rig.skin(pose, { method: 'dqs', dqsScale: 'keep-y', positions: out, normals: true });
const n: Float32Array | null = r.normals;
const palette: Float32Array = pose.palette('dual-quat');
const text: string = skn.glslSource({ method: 'cor', influences: 8, jointCount: rig.jointCount });
try {
  skn.bind({ positions: out, joints: new Uint32Array(4), weights: new Float32Array(4), bindMatrices: palette });
} catch (e) {
  if (e instanceof skn.SknError) console.log(e.status, e.detail, n, text);
}
pose.destroy();
rig.destroy();
doc.close();
