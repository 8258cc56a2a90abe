import { confinedPath, displayPath } from '../confinement';
import { globToRegExp, walkFiles } from '../file-walk';
import { defineTool } from '../tool';

const LIMIT = 100;

/** An indented tree of relative paths (directories end with `/`). */
function renderTree(root: string, paths: string[]): string {
  const lines = [`${root}/`];
  for (const path of [...paths].sort()) {
    const isDir = path.endsWith('/');
    const parts = path.replace(/\/$/, '').split('/');
    lines.push(`${'  '.repeat(parts.length)}${parts[parts.length - 1]}${isDir ? '/' : ''}`);
  }
  return lines.join('\n');
}

export const listTool = defineTool({
  id: 'list',
  description:
    'Lists files and directories below `path` (default: the session directory) as a tree, skipping .git, node_modules and build output, at most 100 files. `ignore` takes extra glob patterns to skip. Prefer glob and grep when you know what you are looking for.',
  parameters: (z) => z.object({
    path: z.string().optional().describe('The directory to list (default: the session directory)'),
    ignore: z.array(z.string()).optional().describe('Glob patterns to ignore'),
  }),
  async execute(args, ctx) {
    const root = await confinedPath(ctx, args.path, 'directory');
    const ignore = (args.ignore ?? []).map(globToRegExp);
    const entries: string[] = [];
    let files = 0;
    for await (const rel of walkFiles(root, { signal: ctx.abort, directories: true })) {
      if (ignore.some((r) => r.test(rel.replace(/\/$/, '')))) continue;
      entries.push(rel);
      if (!rel.endsWith('/') && ++files >= LIMIT) break;
    }
    return { title: displayPath(ctx, root), output: renderTree(root, entries), metadata: { count: files, truncated: files >= LIMIT } };
  },
});
