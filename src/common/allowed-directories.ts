import { existsSync, realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ValidationError, issue } from './errors';
import { isInside, openWhere, realpathOfDeepestExisting } from './paths';

/**
 * `KEEL_ALLOWED_DIRECTORIES` as given (resolved) plus each root's real path, taken at start. A real
 * path never runs through a symbolic link, so it can only be inside a root's real path: the roots as
 * given serve the check on a path as a client names it, their real paths the check on where it leads.
 */
export function allowedRoots(roots: string[]): string[] {
  const result: string[] = [];
  for (const root of roots.map((r) => resolve(r))) {
    // A root that does not exist yet keeps its path; links created there later still resolve outside it.
    const real = existsSync(root) ? realpathSync(root) : root;
    for (const path of [root, real]) if (!result.includes(path)) result.push(path);
  }
  return result;
}

/** How every refusal names a path beyond the allowed directories. */
export const OUTSIDE_ALLOWED = 'outside the directories this server may use';

/**
 * The directories a request may use (`KEEL_ALLOWED_DIRECTORIES`), for every place that reads, writes
 * or runs something in one: provided by SettingsModule.
 */
export class AllowedDirectories {
  constructor(private readonly roots: string[]) {}

  /**
   * The real path of `directory` (absolute, normalised), which must be an existing directory whose
   * real location, symbolic links resolved at every level, is inside an allowed root. Anything else is
   * a 400 naming `field`. A path outside the roots gets the same answer whether it exists or not, so
   * the check tells nothing about the rest of the machine. Callers act on the returned real path, so
   * a link swapped after the check cannot redirect them.
   */
  async real(directory: string, field = 'directory', value: string = directory): Promise<string> {
    const refuse = (message: string) => new ValidationError([issue([field], message)], { [field]: value });
    const real = await realpath(directory).catch(() => undefined);
    if (real === undefined || !this.contains(real)) {
      if (!this.contains(directory)) throw refuse(`${field} is ${OUTSIDE_ALLOWED}`);
      if (real !== undefined) throw refuse(`${field} leads ${OUTSIDE_ALLOWED} through a symbolic link`);
      throw refuse(`${field} does not exist or is not a directory`);
    }
    if (!(await stat(real).catch(() => undefined))?.isDirectory()) throw refuse(`${field} does not exist or is not a directory`);
    return real;
  }

  /**
   * Where `path` really is (links followed at every level; a missing tail kept as named) when that is
   * inside an allowed root, else undefined: for writing a file that may itself be a link.
   */
  async realLocation(path: string): Promise<string | undefined> {
    const real = await realpathOfDeepestExisting(path);
    return this.contains(real) ? real : undefined;
  }

  /**
   * Opens `path` for reading when the file opened is really inside an allowed root (judged on the open
   * handle, see openWhere): the handle and its real location, undefined when nothing is there, or
   * `'outside'`.
   */
  open(path: string): ReturnType<typeof openWhere> {
    return openWhere(path, (location) => this.contains(location));
  }

  private contains(path: string): boolean {
    return this.roots.some((root) => isInside(root, path));
  }
}
