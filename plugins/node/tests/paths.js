'use strict';
// Where the tests find what the build wrote: the C library's reference
// outputs (tests/adapters/reference.c) and the header's layouts
// (scripts/abi_layouts); make check passes both, and the library itself.
const path = require('path');

const root = path.join(__dirname, '..', '..', '..');
module.exports = {
  root,
  reference: process.env.SKN_REFERENCE || path.join(root, 'build', 'adapters'),
  layouts: process.env.SKN_LAYOUTS || path.join(root, 'build', 'abi', 'layouts.txt'),
};
