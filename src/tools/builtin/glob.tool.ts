import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { confinedPath, displayPath } from '../confinement';
import { globToRegExp, walkFiles } from '../file-walk';
import { defineTool } from '../tool';

const LIMIT = 100;

export const globTool = defineTool({
  id: 'glob',
  description:
    'Finds files by glob pattern (e.g. "**/*.ts", "src/**/*.{js,jsx}") below `path` (default: the session directory). Returns absolute paths, most recently modified first, at most 100. .git, node_modules and build output are skipped.',
  parameters: (z) => z.object({
    pattern: z.string().describe('The glob pattern to match files against'),
    path: z.string().optional().describe('The directory to search in (default: the session directory)'),
  }),
  async execute(args, ctx) {
    const root = await confinedPath(ctx, args.path, 'directory');
    const matcher = globToRegExp(args.pattern);
    const found: { path: string; mtime: number }[] = [];
    let truncated = false;
    for await (const rel of walkFiles(root, { signal: ctx.abort })) {
      if (!matcher.test(rel)) continue;
      if (found.length >= LIMIT) {
        truncated = true;
        break;
      }
      const full = join(root, rel);
      found.push({ path: full, mtime: (await stat(full).catch(() => undefined))?.mtimeMs ?? 0 });
    }
    found.sort((a, b) => b.mtime - a.mtime);
    const lines = found.map((f) => f.path);
    if (lines.length === 0) lines.push('No files found');
    if (truncated) lines.push('', '(Results are truncated. Consider using a more specific path or pattern.)');
    return { title: displayPath(ctx, root), output: lines.join('\n'), metadata: { count: found.length, truncated } };
  },
});
