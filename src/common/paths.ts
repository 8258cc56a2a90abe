import { constants, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/**
 * Replaces `path` whole (a temporary file beside it, then renamed over it: a reader sees the old file or
 * the new one, never half), creating its directory when missing.
 */
export function replaceFileSync(path: string, text: string, mode: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, text, { mode });
  renameSync(temp, path);
}

/** True when `path` is `root` or below it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Whether `path` is an existing directory (links followed); false for anything else, missing included. */
export async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** realpath of `path`, or of its deepest existing ancestor with the missing tail appended. */
export async function realpathOfDeepestExisting(path: string): Promise<string> {
  let tail = '';
  let current = path;
  for (;;) {
    try {
      return resolve(await realpath(current), tail);
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      tail = tail ? `${relative(parent, current)}/${tail}` : relative(parent, current);
      current = parent;
    }
  }
}

/** True when the real location of `absolute` is inside `realRoot` (a directory's realpath). */
export async function staysInside(realRoot: string, absolute: string): Promise<boolean> {
  return isInside(realRoot, await realpathOfDeepestExisting(absolute));
}

/** Read-only, and never blocking on a FIFO or device a project could hold in place of a file. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * Where an open file is: the kernel's own record on Linux (`/proc/self/fd`); elsewhere its real path,
 * trusted only when the entry there (not followed) is the opened file itself.
 */
async function locationOf(handle: FileHandle, path: string): Promise<string | undefined> {
  const recorded = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (recorded !== undefined) return recorded;
  const real = await realpath(path);
  const [opened, there] = await Promise.all([handle.stat(), lstat(real)]);
  return opened.dev === there.dev && opened.ino === there.ino ? real : undefined;
}

/**
 * Opens `path` for reading when what it opens passes `allowed` (given the opened file's real location):
 * undefined when nothing is there, `'outside'` when what was opened is not allowed. The check is made
 * on the open file itself, so a link swapped between a check and the read can never hand over another
 * file: whatever `open` followed is what is judged and what is read.
 */
export async function openWhere(path: string, allowed: (location: string) => boolean): Promise<{ handle: FileHandle; location: string } | 'outside' | undefined> {
  const handle = await open(path, READ_FLAGS).catch(() => undefined);
  if (!handle) return undefined;
  const location = await locationOf(handle, path).catch(() => undefined);
  if (location !== undefined && allowed(location)) return { handle, location };
  await handle.close();
  return 'outside';
}

/** openWhere for a file that must be inside `realRoot`: the open handle, undefined, or `'outside'`. */
export async function openInside(realRoot: string, path: string): Promise<FileHandle | 'outside' | undefined> {
  const opened = await openWhere(path, (location) => isInside(realRoot, location));
  return typeof opened === 'object' ? opened.handle : opened;
}
