import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ValidationError, issue } from '../common/errors';
import { isInside, realpathOfDeepestExisting } from '../common/paths';

/** A client-supplied path checked to stay inside the instance directory. */
interface ProjectPath {
  /** Absolute path as named (below the directory). */
  absolute: string;
  /** Relative to the directory, POSIX separators; '' for the directory itself. */
  relative: string;
}

/**
 * Resolves `raw` (relative to `directory`, or absolute inside it) and refuses anything that leaves
 * the directory: `..` segments, absolute paths elsewhere, and symlinks (at any level) pointing out of
 * `realRoot` (the directory's real path, checked against the allowed roots by the caller). The check
 * runs before any read, on the real path of the deepest part that exists, so a path that does not
 * exist yet cannot hide an escaping symlink above it. Throws 400 naming `field`.
 */
export async function resolveProjectPath(
  directory: string,
  realRoot: string,
  raw: string,
  field = 'path',
): Promise<ProjectPath> {
  const refuse = (message: string) => new ValidationError([issue([field], message)], { [field]: raw });
  if (raw.includes('\0')) throw refuse(`${field} must not contain NUL bytes`);
  const absolute = isAbsolute(raw) ? resolve(raw) : resolve(directory, raw);
  if (!isInside(directory, absolute)) throw refuse(`${field} is outside the project directory`);
  if (!isInside(realRoot, await realpathOfDeepestExisting(absolute))) {
    throw refuse(`${field} leads outside the project directory through a symbolic link`);
  }
  return { absolute, relative: relative(directory, absolute).split(sep).join('/') };
}
