/**
 * Jest 30 on Node 20.19+: our .ts goes through ts-jest; ESM-only packages in node_modules go
 * through babel-jest (import.meta -> CJS shim, import/export -> require), because Jest only
 * loads ESM via require() natively on Node >= 24.9. Add every ESM-only package tests import.
 */
const esmOnly = [
  '@nestjs',
  '@opencode-ai',
  'file-type',
  'token-types',
  'strtok3',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
  'fuzzysort',
];
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  testRegex: 'src/.*\\.spec\\.ts$',
  transform: {
    '^.+\\.ts$': 'ts-jest',
    '^.+\\.m?js$': ['babel-jest', { configFile: require.resolve('./babel.node_modules.config.js'), babelrc: false }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  // @opencode-ai/sdk only declares an `import` export condition, which Jest's CJS resolver skips.
  moduleNameMapper: {
    '^@opencode-ai/sdk/v2$': '<rootDir>/node_modules/@opencode-ai/sdk/dist/v2/index.js',
    // The newest SDK beside the seed's (an npm alias: test/opencode-sdk-current.e2e-spec.ts).
    '^@opencode-ai/sdk-1.19.6/v2/client$': '<rootDir>/node_modules/@opencode-ai/sdk-1.19.6/dist/v2/client.js',
  },
  testEnvironment: 'node',
};
