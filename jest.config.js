// One Jest run for the whole workspace: unit specs beside the code, port contract suites,
// e2e and split-mode suites under tests/. SWC compiles with the same options as the build.
const { swcOptions, paths } = require('./tools/swc-options.cjs');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(paths)) {
  moduleNameMapper[`^${alias.replace(/[/]/g, '\\/')}$`] = `<rootDir>/${target}`;
}

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tests', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcOptions(), swcrc: false }],
    // ESM-only dependencies: Node 20 loads them with require(esm), Jest needs them as CommonJS.
    '^.+/node_modules/(jose|@apidevtools|gettext-parser|@formatjs|intl-messageformat)/.+\\.js$': ['@swc/jest', { ...swcOptions(), swcrc: false, jsc: { ...swcOptions().jsc, parser: { syntax: 'ecmascript' } } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|@apidevtools|gettext-parser|@formatjs|intl-messageformat)/)'],
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
  testTimeout: 30000,
  maxWorkers: 2,
  forceExit: true,
  reporters: ['default', ['summary', {}]],
};
