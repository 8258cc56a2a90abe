// Preloaded into the server by bench/assistant-latency.mjs: SIGWINCH runs a full garbage collection,
// so the bench can read the RSS a reply leaves behind once its garbage is gone. (SIGWINCH is ignored
// by default and is not one of the shutdown signals Nest listens to, unlike SIGUSR2.)
const v8 = require('node:v8');
const vm = require('node:vm');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
process.on('SIGWINCH', () => {
  gc();
  gc();
});
