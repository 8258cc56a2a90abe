import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/** True when `path` is `root` or below it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
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
