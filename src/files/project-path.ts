import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ValidationError, issue } from '../common/errors';
import { isInside } from '../common/paths';

/** A client-supplied path checked to stay inside the instance directory. */
export interface ProjectPath {
  /** Absolute path as named (below the directory). */
  absolute: string;
  /** Relative to the directory, POSIX separators; '' for the directory itself. */
  relative: string;
}

/**
 * Resolves `raw` (relative to `directory`, or absolute inside it) and refuses anything that leaves
 * the directory: `..` segments, absolute paths elsewhere, and symlinks (at any level) pointing out.
 * The check runs before any read, on the real path of the deepest part that exists, so a path that
 * does not exist yet cannot hide an escaping symlink above it. Throws 400 naming `field`.
 */
export async function resolveProjectPath(
  directory: string,
  raw: string,
  field = 'path',
): Promise<ProjectPath> {
  const refuse = (message: string) => new ValidationError([issue([field], message)], { [field]: raw });
  if (raw.includes('\0')) throw refuse(`${field} must not contain NUL bytes`);
  const absolute = isAbsolute(raw) ? resolve(raw) : resolve(directory, raw);
  if (!isInside(directory, absolute)) throw refuse(`${field} is outside the project directory`);
  const realRoot = await realpath(directory);
  if (!isInside(realRoot, await realpathOfDeepestExisting(absolute))) {
    throw refuse(`${field} leads outside the project directory through a symbolic link`);
  }
  return { absolute, relative: relative(directory, absolute).split(sep).join('/') };
}

/** realpath of `path`, or of its deepest existing ancestor with the missing tail appended. */
async function realpathOfDeepestExisting(path: string): Promise<string> {
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
