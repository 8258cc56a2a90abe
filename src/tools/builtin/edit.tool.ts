import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { confinedPath, displayPath, worktreePath } from '../confinement';
import { contentToDiff, fileDiff } from '../file-diff';
import { defineTool, ToolError } from '../tool';

/** Exact string replacement with the reference's error messages for absent and ambiguous matches. */
function replaceText(content: string, oldString: string, newString: string, replaceAll: boolean): { content: string; replacements: number } {
  if (oldString === newString) throw new ToolError('oldString and newString must be different');
  const first = content.indexOf(oldString);
  if (first < 0) throw new ToolError('oldString not found in content');
  if (replaceAll) {
    const parts = content.split(oldString);
    return { content: parts.join(newString), replacements: parts.length - 1 };
  }
  if (content.indexOf(oldString, first + oldString.length) >= 0) {
    throw new ToolError('Found multiple matches for oldString. Provide more surrounding lines in oldString to identify the correct match, or set replaceAll to change every one.');
  }
  return { content: content.slice(0, first) + newString + content.slice(first + oldString.length), replacements: 1 };
}

export const editTool = defineTool({
  id: 'edit',
  description: [
    'Performs an exact string replacement in a file. `oldString` must occur exactly once unless `replaceAll` is true;',
    'include enough surrounding lines to make it unique and keep indentation exactly as in the file.',
    'An empty `oldString` creates the file with `newString` as its content.',
  ].join(' '),
  parameters: (z) => z.object({
    filePath: z.string().describe('The path to the file to modify'),
    oldString: z.string().describe('The text to replace'),
    newString: z.string().describe('The text to replace it with (must be different from oldString)'),
    replaceAll: z.boolean().optional().describe('Replace all occurrences of oldString (default false)'),
  }),
  async execute(args, ctx) {
    const path = await confinedPath(ctx, args.filePath);
    let current: string | undefined;
    let next: string;
    let replacements = 0;
    if (args.oldString === '') {
      // Creates the file, or replaces what it held: the diff shows what goes.
      current = await contentToDiff(path, await stat(path).catch(() => undefined));
      next = args.newString;
    } else {
      current = await readFile(path, 'utf8').catch(() => {
        throw new ToolError(`File not found: ${path}`);
      });
      ({ content: next, replacements } = replaceText(current, args.oldString, args.newString, args.replaceAll ?? false));
    }
    // As the reference: the diff in the permission request (the dialog shows it) and in the result (the part shows it).
    const filediff = current === undefined ? undefined : fileDiff(path, current, next);
    const diff = filediff ? { diff: filediff.patch } : {};
    await ctx.permit({ type: 'edit', subjects: [worktreePath(ctx, path)], title: `Edit ${displayPath(ctx, path)}`, metadata: { filepath: path, ...diff } });
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, next);
    ctx.publish('file.edited', { file: path });
    return {
      title: displayPath(ctx, path),
      output: replacements > 1 ? `Replaced ${replacements} occurrences.` : 'Edit applied successfully.',
      // `diagnostics` as the reference's (Keel runs no language servers).
      metadata: { filepath: path, replacements, diagnostics: {}, ...diff, ...(filediff ? { filediff } : {}) },
    };
  },
});
