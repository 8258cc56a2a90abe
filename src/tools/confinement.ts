import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { isInside, staysInside } from '../common/paths';
import type { ToolContext } from './tool';

/**
 * Whether `absolute` is inside the session's directory by where it really leads: named below the
 * directory and, symbolic links resolved (at any level, for the deepest part that exists), below the
 * directory's real path. A link inside the directory that leads out is outside.
 */
export async function insideSessionDirectory(ctx: ToolContext, absolute: string): Promise<boolean> {
  if (!isInside(ctx.directory, absolute)) return false;
  const realRoot = await realpath(ctx.directory).catch(() => undefined);
  return realRoot !== undefined && (await staysInside(realRoot, absolute));
}

/**
 * The absolute path a tool argument names, relative paths taken from the session's directory.
 * A path outside that tree (by name or through a symbolic link) needs the `external_directory`
 * permission (default: ask).
 */
export async function confinedPath(ctx: ToolContext, path: string | undefined, kind: 'file' | 'directory' = 'file'): Promise<string> {
  const absolute = resolve(ctx.directory, path && path.length > 0 ? path : '.');
  if (!(await insideSessionDirectory(ctx, absolute))) {
    const dir = kind === 'file' ? dirname(absolute) : absolute;
    await permitOutside(ctx, dir, { filepath: absolute, parentDir: dir });
  }
  return absolute;
}

/** Asks for the `external_directory` permission on `dir` and what is below it. */
export function permitOutside(ctx: ToolContext, dir: string, metadata: Record<string, unknown>): Promise<void> {
  return ctx.permit({
    type: 'external_directory',
    subjects: [dir],
    pattern: [dir, `${dir}/*`],
    title: `Access outside the working directory: ${dir}`,
    metadata,
  });
}

/** A path as the model should see it in titles: relative inside the tree, absolute outside. */
export function displayPath(ctx: ToolContext, absolute: string): string {
  if (!isAbsolute(absolute)) return absolute;
  return isInside(ctx.directory, absolute) ? absolute.slice(ctx.directory.length + 1) || '.' : absolute;
}

/** A file as an edit's permission request names it (the reference: relative to the worktree). */
export function worktreePath(ctx: ToolContext, absolute: string): string {
  return relative(ctx.worktree, absolute);
}
