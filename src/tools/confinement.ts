import { dirname, isAbsolute, resolve } from 'node:path';
import { isInside } from '../common/paths';
import type { ToolContext } from './tool';

/**
 * The absolute path a tool argument names, relative paths taken from the session's directory.
 * A path outside that tree needs the `external_directory` permission (default: ask).
 */
export async function confinedPath(ctx: ToolContext, path: string | undefined, kind: 'file' | 'directory' = 'file'): Promise<string> {
  const absolute = resolve(ctx.directory, path && path.length > 0 ? path : '.');
  if (!isInside(ctx.directory, absolute)) {
    const dir = kind === 'file' ? dirname(absolute) : absolute;
    await ctx.permit({
      type: 'external_directory',
      subjects: [dir],
      pattern: [dir, `${dir}/*`],
      title: `Access outside the working directory: ${dir}`,
      metadata: { filepath: absolute, parentDir: dir },
    });
  }
  return absolute;
}

/** A path as the model should see it in titles: relative inside the tree, absolute outside. */
export function displayPath(ctx: ToolContext, absolute: string): string {
  if (!isAbsolute(absolute)) return absolute;
  return isInside(ctx.directory, absolute) ? absolute.slice(ctx.directory.length + 1) || '.' : absolute;
}
