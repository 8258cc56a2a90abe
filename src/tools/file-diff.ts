import { formatPatch, structuredPatch } from 'diff';
import type { Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';

/**
 * Longest an edit's diff may take. Diffing is quadratic at worst and runs on the event loop: a huge or
 * hostile rewrite gets no diff rather than a stalled server.
 */
const DIFF_TIMEOUT_MS = 250;

/** Largest file read only to show what replacing it changes. */
const DIFFED_FILE_MAX_BYTES = 1024 * 1024;

/**
 * What a file that is about to be replaced holds, for the diff (`found`: its stat): '' for a new file;
 * undefined for one too large, or no regular file, to read for that.
 */
export async function contentToDiff(path: string, found: Stats | undefined): Promise<string | undefined> {
  if (!found) return '';
  if (!found.isFile() || found.size > DIFFED_FILE_MAX_BYTES) return undefined;
  return readFile(path, 'utf8').catch(() => undefined);
}

/** The reference's `filediff` of an edit's result; `patch` is also the `diff` its permission request and result show. */
export interface EditDiff {
  file: string;
  patch: string;
  additions: number;
  deletions: number;
}

/**
 * The unified diff of a file's change as opencode's edit and write tools give it (`Index:` header,
 * the absolute path on both sides, the indentation all its lines share removed), or undefined when it
 * takes longer than DIFF_TIMEOUT_MS.
 */
export function fileDiff(file: string, before: string, after: string): EditDiff | undefined {
  const patch = structuredPatch(file, file, before, after, undefined, undefined, { timeout: DIFF_TIMEOUT_MS });
  if (!patch) return undefined;
  const lines = patch.hunks.flatMap((hunk) => hunk.lines);
  return {
    file,
    patch: withoutSharedIndent(formatPatch(patch)),
    additions: lines.filter((line) => line.startsWith('+')).length,
    deletions: lines.filter((line) => line.startsWith('-')).length,
  };
}

const isContentLine = (line: string) => /^[-+ ]/.test(line) && !line.startsWith('---') && !line.startsWith('+++');

/** The reference's trimDiff: the leading whitespace every non-blank changed or context line has, removed from them all. */
function withoutSharedIndent(diff: string): string {
  const lines = diff.split('\n');
  let shared = Infinity;
  for (const line of lines) {
    if (!isContentLine(line) || line.slice(1).trim() === '') continue;
    shared = Math.min(shared, /^\s*/.exec(line.slice(1))![0].length);
  }
  if (shared === Infinity || shared === 0) return diff;
  return lines.map((line) => (isContentLine(line) ? line[0] + line.slice(1 + shared) : line)).join('\n');
}
