const base = require('../jest.config.js');
module.exports = {
  ...base,
  rootDir: '..',
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  testTimeout: 60000,
  maxWorkers: 2,
};
