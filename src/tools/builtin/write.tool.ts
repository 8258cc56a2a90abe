import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { confinedPath, displayPath, worktreePath } from '../confinement';
import { contentToDiff, fileDiff } from '../file-diff';
import { defineTool } from '../tool';

export const writeTool = defineTool({
  id: 'write',
  description:
    'Writes a file to the local filesystem, creating parent directories and overwriting an existing file. `filePath` is absolute or relative to the session directory. Prefer `edit` for changes to existing files.',
  parameters: (z) => z.object({
    content: z.string().describe('The content to write to the file'),
    filePath: z.string().describe('The path to the file to write'),
  }),
  async execute(args, ctx) {
    const path = await confinedPath(ctx, args.filePath);
    const found = await stat(path).catch(() => undefined);
    const exists = found !== undefined;
    // As the reference: the permission request carries the diff its dialog shows.
    const before = await contentToDiff(path, found);
    const filediff = before === undefined ? undefined : fileDiff(path, before, args.content);
    await ctx.permit({
      type: 'edit',
      subjects: [worktreePath(ctx, path)],
      title: `${exists ? 'Overwrite' : 'Create'} ${displayPath(ctx, path)}`,
      metadata: { filepath: path, exists, ...(filediff ? { diff: filediff.patch } : {}) },
    });
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, args.content);
    ctx.publish('file.edited', { file: path });
    // `diagnostics` as the reference's (Keel runs no language servers).
    return { title: displayPath(ctx, path), output: 'Wrote file successfully.', metadata: { filepath: path, exists, diagnostics: {} } };
  },
});
