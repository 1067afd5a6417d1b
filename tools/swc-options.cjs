// Shared SWC options for the build (tools/build.mjs) and for Jest (@swc/jest), so the
// code under test is compiled exactly like the code that ships.
const path = require('node:path');
const tsconfig = require('../tsconfig.base.json');

const root = path.resolve(__dirname, '..');

/** @param {{paths?: boolean}} opts */
function swcOptions(opts = {}) {
  return {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true, dynamicImport: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
      ...(opts.paths ? { baseUrl: root, paths: tsconfig.compilerOptions.paths } : {}),
    },
    module: { type: 'commonjs', strictMode: true, noInterop: false },
    sourceMaps: true,
  };
}

module.exports = { swcOptions, root, paths: tsconfig.compilerOptions.paths };
