'use strict';
// The package's koffi declarations (abi.js) against abi/skn.h as the C
// compiler lays it out (build/abi/layouts.txt): every struct's size,
// alignment and field offsets, every enum constant, every prototype's kinds.
// What the package leaves out of the header is named in abi.LEFT_OUT.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const koffi = require('koffi');
const abi = require('../abi');
const { layouts } = require('./paths');

const header = { structs: {}, fields: {}, enums: {}, consts: {}, functions: {} };
for (const line of fs.readFileSync(layouts, 'utf8').split('\n')) {
  const w = line.split(' ');
  if (w[0] === 'struct') {
    header.structs[w[1]] = { size: Number(w[2]), align: Number(w[3]) };
    header.fields[w[1]] = [];
  } else if (w[0] === 'field') header.fields[w[1]].push({ name: w[2], offset: Number(w[3]) });
  else if (w[0] === 'enum') (header.enums[w[1]] = header.enums[w[1]] || {})[w[2]] = Number(w[3]);
  else if (w[0] === 'const') header.consts[w[1]] = Number(w[2]);
  else if (w[0] === 'function') header.functions[w[1]] = { ret: w[2], params: w[3] === '-' ? [] : w.slice(3) };
}

test('every struct of the header is declared or left out', () => {
  const ours = [...Object.keys(abi.STRUCTS), ...Object.keys(abi.LEFT_OUT).filter((k) => k in header.structs)];
  assert.deepStrictEqual(ours.sort(), Object.keys(header.structs).sort());
});

for (const [name, type] of Object.entries(abi.STRUCTS)) {
  test(`${name}: size, alignment, every field's name and offset`, () => {
    assert.strictEqual(koffi.sizeof(type), header.structs[name].size);
    assert.strictEqual(koffi.alignof(type), header.structs[name].align);
    const members = koffi.type(type).members;
    const ours = Object.keys(members).map((f) => ({ name: f, offset: koffi.offsetof(type, f) }));
    assert.deepStrictEqual(ours, header.fields[name]);
  });
}

test('every enum: the package names each constant of it', () => {
  for (const [name, table] of Object.entries(abi.ENUMS)) {
    const values = Object.entries(header.enums[name]).filter(([c]) => !c.endsWith('FORCE_U32')).map(([, v]) => v);
    assert.deepStrictEqual(Object.values(table).sort(), values.sort(), name);
  }
  const named = new Set([...Object.keys(abi.ENUMS), 'skn_status', '-']);
  assert.deepStrictEqual(Object.keys(header.enums).filter((e) => !named.has(e)), []);
  assert.deepStrictEqual(abi.STATUS_NAMES, Object.keys(header.enums.skn_status).filter((c) => !c.endsWith('FORCE_U32')));
});

test('every flag and #define: the same value, or left out', () => {
  const all = { ...header.enums['-'], ...header.consts };
  for (const [c, v] of Object.entries(abi.CONSTANTS)) assert.strictEqual(v, all[c], c);
  const declared = [...Object.keys(abi.CONSTANTS), ...Object.keys(abi.LEFT_OUT).filter((k) => k in all)];
  assert.deepStrictEqual(declared.sort(), Object.keys(all).sort());
});

// A C type in a prototype as layouts.txt's kinds.
function kind(decl) {
  const t = decl.replace(/_(Out|Inout)_\s*/, '').replace(/\w+$/, '').replace(/\s+/g, ' ').trim();
  if (t === 'const char *') return 'str';
  if (t.endsWith('*')) return 'ptr';
  return { uint32_t: 'u32', int32_t: 'i32', uint64_t: 'u64', float: 'f32', size_t: 'size', void: 'void' }[t];
}

test('every call: declared with the header\'s kinds, or left out', () => {
  const names = abi.PROTOTYPES.map((p) => p.match(/(skn_\w+)\(/)[1]);
  const left = Object.keys(abi.LEFT_OUT).filter((k) => k in header.functions);
  assert.deepStrictEqual([...names, ...left].sort(), Object.keys(header.functions).sort());
  for (const p of abi.PROTOTYPES) {
    const [, ret, name, params] = p.match(/^(.*?)\s*\b(skn_\w+)\((.*)\)$/);
    const ps = params === 'void' ? [] : params.split(',').map((x) => kind(x.trim()));
    assert.deepStrictEqual({ ret: kind(`${ret} r`), params: ps }, header.functions[name], name);
  }
});
