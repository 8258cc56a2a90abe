const base = require('../jest.config.js');
module.exports = {
  ...base,
  rootDir: '..',
  // The README's one test command runs the unit specs beside the code and the e2e suites.
  testRegex: '(test/.*\\.e2e-spec|src/.*\\.spec)\\.ts$',
  // A browser test that takes 15 s here took over 60 s on a slow 2-core CI run beside the fuzz suite.
  testTimeout: 120000,
  maxWorkers: 2,
  // The machine's own opencode config (home, XDG config home, OPENCODE_* variables) never reaches a test.
  globalSetup: '<rootDir>/test/support/machine-isolation.ts',
  globalTeardown: '<rootDir>/test/support/machine-isolation-teardown.ts',
};
