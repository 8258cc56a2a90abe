import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { ValidationError, issue } from '../common/errors';

/** One matching line, in ripgrep's `--json` match shape (what `find.text` returns). */
export interface TextMatch {
  path: { text: string };
  lines: { text: string };
  line_number: number;
  /** Byte offset of the line in its file. */
  absolute_offset: number;
  /** Byte offsets within the line. */
  submatches: { match: { text: string }; start: number; end: number }[];
}

/** Longest a batch of files may take to match before the pattern is judged runaway. */
const MATCH_BATCH_TIMEOUT_MS = 5000;

// Matching runs in a worker thread: a JavaScript regex cannot be interrupted, and one with catastrophic
// backtracking (`(a+)+$`) would otherwise stall every request of the server. The worker is stopped when
// a batch takes too long. Plain JavaScript, as an eval'd worker runs whatever module system hosts it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { source, flags, lineAware, perFile } = workerData;
const regex = new RegExp(source, flags);
// Non-global twin: test() without lastIndex state decides whether a text or line is worth taking apart.
const tester = new RegExp(source, flags.replace('g', ''));
const bytesBefore = (text, index, ascii) => (ascii ? index : Buffer.byteLength(text.slice(0, index)));

function matchLines(file, text) {
  // Whole-text test first: most files do not match at all. Only sound when a match on one line is also
  // a match in the whole text, i.e. the pattern has no anchors or lookarounds.
  if (!lineAware && !tester.test(text)) return [];
  const matches = [];
  const ascii = Buffer.byteLength(text) === text.length;
  let start = 0;
  let lineNumber = 0;
  while (start < text.length && matches.length < perFile) {
    lineNumber++;
    const newline = text.indexOf('\\n', start);
    const end = newline < 0 ? text.length : newline + 1;
    const line = text.slice(start, end);
    const body = line.endsWith('\\r\\n') ? line.slice(0, -2) : line.endsWith('\\n') ? line.slice(0, -1) : line;
    if (tester.test(body)) {
      const submatches = [];
      for (const m of body.matchAll(regex)) {
        const from = bytesBefore(body, m.index, ascii);
        submatches.push({ match: { text: m[0] }, start: from, end: from + Buffer.byteLength(m[0]) });
      }
      matches.push({ path: { text: file }, lines: { text: line }, line_number: lineNumber, absolute_offset: bytesBefore(text, start, ascii), submatches });
    }
    start = end;
  }
  return matches;
}

parentPort.on('message', (files) => {
  parentPort.postMessage(files.flatMap((f) => matchLines(f.path, f.text)));
});
`;

/**
 * Matches one `find.text` pattern against batches of files, off the main thread: at most `perFile`
 * lines per file, offsets in bytes as ripgrep reports them, lines split on `\n` with a trailing `\r`
 * kept out of the match (so `$` works on CRLF files).
 */
export class LineMatcher {
  private constructor(private readonly worker: Worker) {}

  /** Compiles `pattern` (a 400 naming `pattern` when it is not a regular expression) and starts the worker. */
  static start(pattern: string, perFile: number): LineMatcher {
    const regex = compilePattern(pattern);
    const lineAware = /\^|\$|\(\?/.test(pattern);
    return new LineMatcher(
      new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { source: regex.source, flags: regex.flags, lineAware, perFile },
      }),
    );
  }

  /** Matches of `files`, in their order. */
  async match(files: { path: string; text: string }[]): Promise<TextMatch[]> {
    // Rejects on the worker's 'error' too; its listeners go either way.
    const answer = once(this.worker, 'message', { signal: AbortSignal.timeout(MATCH_BATCH_TIMEOUT_MS) });
    this.worker.postMessage(files);
    try {
      const [matches] = (await answer) as [TextMatch[]];
      return matches;
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
      void this.worker.terminate();
      throw new ValidationError(
        [
          issue(
            ['pattern'],
            `matching took longer than ${MATCH_BATCH_TIMEOUT_MS} ms on ${files.length} files; the pattern probably backtracks catastrophically`,
          ),
        ],
        {},
      );
    }
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/** Unicode mode first (whole code points); without it when the pattern uses escapes only legacy mode allows. */
function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'gu');
  } catch {
    try {
      return new RegExp(pattern, 'g');
    } catch (error) {
      throw new ValidationError(
        [issue(['pattern'], `pattern is not a valid regular expression: ${(error as Error).message}`)],
        { pattern },
      );
    }
  }
}
