const base = require('../jest.config.js');
module.exports = {
  ...base,
  rootDir: '..',
  // The README's one test command runs the unit specs beside the code and the e2e suites.
  testRegex: '(test/.*\\.e2e-spec|src/.*\\.spec)\\.ts$',
  testTimeout: 60000,
  maxWorkers: 2,
  // The machine's own opencode config (home, XDG config home, OPENCODE_* variables) never reaches a test.
  globalSetup: '<rootDir>/test/support/machine-isolation.ts',
  globalTeardown: '<rootDir>/test/support/machine-isolation-teardown.ts',
};
