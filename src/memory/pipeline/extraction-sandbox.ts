import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { INGESTION_SETTINGS } from '../ingestion-settings';
import type { ExtractionSettings, IngestionSettings } from '../ingestion-settings';
import { ExtractionError, MEMORY_LIMIT_MARKER } from './extraction';
import type { Extracted, ExtractionJob, ExtractionLimits, ExtractionReply } from './extraction';

/** The server is stopping and killed the extraction: nothing is known against the document. */
export class ExtractionInterrupted extends Error {}

/** How long an extraction process waits for its next job before it is ended (an idle server keeps none). */
const IDLE_MS = 30_000;
/** How often the resident memory of a busy extraction process is read. */
const WATCH_MS = 50;
/** Niceness of extraction processes (0 is the server's, 19 the lowest). */
const BACKGROUND_PRIORITY = 10;
/** A process that has not said it is ready by then is taken for broken. */
const START_TIMEOUT_MS = 30_000;

// ts-jest runs src/ as it is, where the child is TypeScript: this loader compiles it (and what it
// imports) with esbuild, a dev dependency, as it is required. Builds run the compiled JavaScript.
const TYPESCRIPT_LOADER = `
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const [entry, esbuild] = process.argv.slice(1);
const { transformSync } = require(esbuild);
Module._extensions['.ts'] = (module, filename) =>
  module._compile(transformSync(readFileSync(filename, 'utf8'), { loader: 'ts', format: 'cjs', target: 'node20', sourcefile: filename }).code, filename);
require(entry);
`;

/**
 * The node arguments that run extraction-child: the compiled file beside this module (dist/, and
 * dist/bundle/ where scripts/bundle.js puts the bundled child), else its TypeScript source.
 */
function childArguments(): string[] {
  const compiled = join(__dirname, 'extraction-child.js');
  if (existsSync(compiled)) return [compiled];
  return ['-e', TYPESCRIPT_LOADER, join(__dirname, 'extraction-child.ts'), require.resolve('esbuild')];
}

/** Resident memory of a process in MB; undefined where /proc is not there to tell. */
async function residentMb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** One extraction process: it runs one job at a time and is killed when the job breaks a bound. */
class ExtractionProcess {
  private stderr = '';
  private exited = false;
  private finish?: (outcome: { extracted: Extracted } | { error: Error }) => void;
  /** Why the server killed it, when it did. */
  private killedFor?: Error;
  idleTimer?: NodeJS.Timeout;
  /** The highest resident memory seen during the last job, in MB. */
  peakMb = 0;

  private constructor(
    private readonly child: ChildProcess,
    private readonly settings: ExtractionSettings,
  ) {
    child.stderr?.on(
      'data',
      (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-4096)),
    );
    child.on('message', (reply: ExtractionReply) => {
      if ('extracted' in reply) this.finish?.({ extracted: reply.extracted });
      else if ('error' in reply) this.finish?.({ error: new ExtractionError(reply.error) });
    });
    // A failed send to a process that just died is reported here; its job ends on 'close'.
    child.on('error', () => this.kill());
    // 'close', not 'exit': stderr is complete by then, and it tells a heap that ran out.
    child.once('close', (code, signal) => {
      this.exited = true;
      this.finish?.({ error: this.killedFor ?? this.crash(code, signal) });
    });
  }

  static start(settings: ExtractionSettings): Promise<ExtractionProcess> {
    const child = spawn(
      process.execPath,
      [`--max-old-space-size=${settings.maxMemoryMb}`, ...childArguments(), String(settings.maxMemoryMb)],
      {
        // Nothing of the server's environment (keys, passwords, NODE_OPTIONS) reaches the parsers.
        env: {},
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
      },
    );
    // Extraction is background work: under a full CPU the server's requests go first.
    try {
      if (child.pid !== undefined) setPriority(child.pid, BACKGROUND_PRIORITY);
    } catch {
      // Where priorities cannot be set (or the process is already gone), it runs at the server's.
    }
    const started = new ExtractionProcess(child, settings);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        started.kill();
        reject(new Error(`the extraction process did not start within ${START_TIMEOUT_MS} ms`));
      }, START_TIMEOUT_MS);
      started.finish = (outcome) => {
        started.finish = undefined;
        clearTimeout(timer);
        reject(
          'error' in outcome
            ? new Error(`the extraction process could not start: ${outcome.error.message}`)
            : new Error('unexpected reply'),
        );
      };
      child.once('message', () => {
        started.finish = undefined;
        clearTimeout(timer);
        resolve(started);
      });
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Runs one job: its result, or the ExtractionError that says which bound it broke. */
  run(id: number, job: ExtractionJob): Promise<Extracted> {
    const { maxUncompressedBytes, maxRatio, maxZipEntries, maxTextChars, timeoutMs, maxMemoryMb } =
      this.settings;
    const limits: ExtractionLimits = { maxUncompressedBytes, maxRatio, maxZipEntries, maxTextChars };
    this.peakMb = 0;
    return new Promise<Extracted>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.kill(
            new ExtractionError(`Extraction took longer than ${timeoutMs} ms (KEEL_EXTRACT_TIMEOUT_MS)`),
          ),
        timeoutMs,
      );
      // Heap limits leave out buffers (pdf.js inflates into ArrayBuffers): the whole resident set is watched.
      let reading = false;
      const watch = setInterval(() => {
        if (reading || this.child.pid === undefined) return;
        reading = true;
        void residentMb(this.child.pid).then((mb) => {
          reading = false;
          if (mb === undefined) return clearInterval(watch);
          this.peakMb = Math.max(this.peakMb, mb);
          if (mb > maxMemoryMb) this.kill(this.memoryError());
        });
      }, WATCH_MS);
      this.finish = (outcome) => {
        this.finish = undefined;
        clearTimeout(timer);
        clearInterval(watch);
        if ('extracted' in outcome) resolve(outcome.extracted);
        else reject(outcome.error);
      };
      if (this.exited)
        return this.finish({ error: new Error('the extraction process exited before its job') });
      this.child.send({ id, job, limits });
    });
  }

  kill(reason?: Error): void {
    this.killedFor ??= reason;
    if (!this.exited) this.child.kill('SIGKILL');
  }

  private memoryError(): ExtractionError {
    return new ExtractionError(
      `Extraction needs more than ${this.settings.maxMemoryMb} MB of memory (KEEL_EXTRACT_MAX_MEMORY_MB)`,
    );
  }

  private crash(code: number | null, signal: NodeJS.Signals | null): ExtractionError {
    // The heap ran out (V8 says so and aborts), or the process's own watch ended it before this one saw it grow.
    if (/heap out of memory|heap limit/i.test(this.stderr) || this.stderr.includes(MEMORY_LIMIT_MARKER))
      return this.memoryError();
    const last = this.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 300);
    return new ExtractionError(
      `The extraction process crashed (${signal ?? `exit code ${code}`})${last ? `: ${last}` : ''}`,
    );
  }
}

/**
 * Reads untrusted content (uploaded files, fetched pages, HTML or JSON bodies) in separate processes, so a
 * hostile document cannot take the server's memory, time or event loop. A process, not a worker
 * thread: a worker's heap limit leaves out ArrayBuffers, and some allocation patterns past it abort
 * the whole process (nodejs/node#47224, reproduced on Node 20 here), while a process can be measured
 * and killed whole. Processes are started on demand (one per pipeline slot at most, since each slot
 * runs one extraction at a time), kept while work comes, and ended when idle.
 */
@Injectable()
export class ExtractionSandbox implements OnApplicationShutdown {
  private readonly logger = new Logger('ExtractionSandbox');
  private readonly idle: ExtractionProcess[] = [];
  private readonly busy = new Set<ExtractionProcess>();
  private stopped = false;
  private nextId = 1;

  constructor(@Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings) {}

  async extract(job: ExtractionJob): Promise<Extracted> {
    if (this.stopped) throw new ExtractionInterrupted();
    const worker = this.take() ?? (await ExtractionProcess.start(this.settings.extraction));
    this.busy.add(worker);
    try {
      if (this.stopped) throw new ExtractionInterrupted();
      return await worker.run(this.nextId++, job);
    } catch (error) {
      if (this.stopped) throw new ExtractionInterrupted();
      if (error instanceof ExtractionError)
        this.logger.warn({
          msg: 'extraction refused',
          reason: error.message,
          peakMb: Math.round(worker.peakMb),
        });
      throw error;
    } finally {
      this.busy.delete(worker);
      this.release(worker);
    }
  }

  /** Kills every extraction process; the extractions in flight end with ExtractionInterrupted. */
  stop(): void {
    this.stopped = true;
    for (const worker of [...this.idle.splice(0), ...this.busy]) worker.kill();
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  private take(): ExtractionProcess | undefined {
    for (let worker = this.idle.pop(); worker; worker = this.idle.pop()) {
      clearTimeout(worker.idleTimer);
      if (worker.alive) return worker;
    }
    return undefined;
  }

  /** Back to the idle list, unless it died, or grew past half its limit (V8 keeps what it took). */
  private release(worker: ExtractionProcess): void {
    if (this.stopped || !worker.alive || worker.peakMb > this.settings.extraction.maxMemoryMb / 2)
      return worker.kill();
    worker.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      worker.kill();
    }, IDLE_MS).unref();
    this.idle.push(worker);
  }
}
