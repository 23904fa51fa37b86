'use strict';
// index.d.ts against index.js: the same exports, and a typed use of the
// package (types-check.ts) compiles under tsc --strict; a wrong use does not.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const skn = require('..');

const here = __dirname;
const tsc = path.join(here, '..', 'node_modules', 'typescript', 'bin', 'tsc');

function compile(file) {
  try {
    execFileSync(process.execPath, [tsc, '--strict', '--noEmit', '--target', 'es2020', '--module', 'commonjs',
      file], { encoding: 'utf8' });
    return '';
  } catch (e) {
    return e.stdout || e.message;
  }
}

test('index.d.ts declares exactly what index.js exports', () => {
  const dts = fs.readFileSync(path.join(here, '..', 'index.d.ts'), 'utf8');
  const declared = [...dts.matchAll(/^export (?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  assert.deepStrictEqual(declared.sort(), Object.keys(skn).sort());
});

test('a typed use compiles under tsc --strict', () => {
  assert.strictEqual(compile(path.join(here, 'types-check.ts')), '');
});

test('a wrong use does not', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skn-ts-'));
  const bad = path.join(dir, 'bad.ts');
  const pkg = path.join(here, '..').split(path.sep).join('/');
  fs.writeFileSync(bad, `import * as skn from '${pkg}';\n` +
    "skn.bind({ positions: [0, 0, 0], joints: new Uint32Array(0), weights: new Float32Array(0) });\n" +
    "skn.open('a').bind().skin(null as unknown as skn.Pose, { method: 'lbs-matrix' });\n");
  const errors = compile(bad);
  fs.rmSync(dir, { recursive: true });
  assert.match(errors, /bad\.ts\(2,.*'number\[\]' is missing the following properties from type 'Float32Array/);
  assert.match(errors, /bad\.ts\(3,.*"lbs-matrix"' is not assignable to type 'Method/);
});
