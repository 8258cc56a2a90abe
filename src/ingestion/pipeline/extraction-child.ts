import { Worker } from 'node:worker_threads';
import { extract } from './content-extractor';
import { ExtractionError } from './extraction';
import type { ExtractionReply, ExtractionRequest } from './extraction';

// The extraction process. The server starts it (extraction-sandbox.ts) and sends it one job at a
// time; it holds nothing but that job, so the server may kill it at any moment for its memory or
// time, and a parser that crashes takes only this process down.

// A server killed with -9 cannot stop this process, and a parse may hold its main thread for a long
// time: a thread of its own notices that the parent is gone and ends the process.
const ORPHAN_WATCH = `
const { workerData } = require('node:worker_threads');
setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 500);
`;
new Worker(ORPHAN_WATCH, { eval: true, workerData: process.ppid }).unref();

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
