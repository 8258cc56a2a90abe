import { Worker } from 'node:worker_threads';
import { extract } from './content-extractor';
import { ExtractionError, MEMORY_LIMIT_MARKER } from './extraction';
import type { ExtractionReply, ExtractionRequest } from './extraction';

// The extraction process. The server starts it (extraction-sandbox.ts) and sends it one job at a
// time; it holds nothing but that job, so the server may kill it at any moment for its memory or
// time, and a parser that crashes takes only this process down.

// A parse may hold the main thread for long, so a thread of its own ends the process: when its
// server is gone (a server killed with -9 cannot stop it), and when it outgrows its memory limit
// (the server watches too, every 50 ms, but a server short of CPU may look late). The limit in MB is
// the last argument of the command line.
const WATCH = `
const { writeSync } = require('node:fs');
const { workerData: { parent, maxBytes, marker } } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
  if (process.memoryUsage.rss() > maxBytes) {
    writeSync(2, marker + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}, 20);
`;
const maxBytes = Number(process.argv[process.argv.length - 1]) * 1024 * 1024;
new Worker(WATCH, {
  eval: true,
  workerData: { parent: process.ppid, maxBytes, marker: MEMORY_LIMIT_MARKER },
}).unref();

const send = (message: ExtractionReply | { ready: true }) => process.send!(message);

process.on('message', (request: ExtractionRequest) => {
  extract(request.job, request.limits).then(
    (extracted) => send({ id: request.id, extracted }),
    (error: unknown) =>
      send({
        id: request.id,
        error:
          error instanceof ExtractionError
            ? error.message
            : `Could not read the content: ${error instanceof Error ? error.message : String(error)}`,
      }),
  );
});
process.on('disconnect', () => process.exit(0));
send({ ready: true });
