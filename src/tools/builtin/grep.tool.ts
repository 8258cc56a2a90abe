import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { confinedPath, displayPath } from '../confinement';
import { globToRegExp, walkFiles } from '../file-walk';
import { defineTool, ToolError } from '../tool';
import { isBinaryFile } from './read.tool';

const LIMIT = 100;
const MAX_FILE_BYTES = 5 * 1024 * 1024;

export const grepTool = defineTool({
  id: 'grep',
  description:
    'Searches file contents with a JavaScript regular expression below `path` (default: the session directory), optionally only in files matching the `include` glob (e.g. "*.{ts,tsx}"). Returns matching lines grouped by file, most recently modified files first, at most 100 matches.',
  parameters: (z) => z.object({
    pattern: z.string().describe('The regex pattern to search for in file contents'),
    path: z.string().optional().describe('The directory to search in (default: the session directory)'),
    include: z.string().optional().describe('File pattern to include in the search (e.g. "*.js", "*.{ts,tsx}")'),
  }),
  async execute(args, ctx) {
    const root = await confinedPath(ctx, args.path, 'directory');
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern);
    } catch (error) {
      throw new ToolError(`Invalid regular expression: ${(error as Error).message}`);
    }
    const include = args.include ? globToRegExp(args.include) : undefined;
    const files: { path: string; mtime: number; lines: { line: number; text: string }[] }[] = [];
    let matches = 0;
    let truncated = false;
    for await (const rel of walkFiles(root, { signal: ctx.abort })) {
      if (include && !include.test(rel)) continue;
      const full = join(root, rel);
      const info = await stat(full).catch(() => undefined);
      if (!info?.isFile() || info.size > MAX_FILE_BYTES || (await isBinaryFile(full).catch(() => true))) continue;
      const hits: { line: number; text: string }[] = [];
      let n = 0;
      for await (const text of createInterface({ input: createReadStream(full), crlfDelay: Infinity })) {
        n++;
        if (regex.test(text)) hits.push({ line: n, text: text.length > 2000 ? `${text.slice(0, 2000)}...` : text });
      }
      if (hits.length === 0) continue;
      files.push({ path: full, mtime: info.mtimeMs, lines: hits });
      matches += hits.length;
      if (matches >= LIMIT) {
        truncated = true;
        break;
      }
    }
    if (files.length === 0) return { title: args.pattern, output: 'No files found', metadata: { matches: 0, truncated: false } };
    files.sort((a, b) => b.mtime - a.mtime);
    const out = [`Found ${matches} matches`];
    for (const file of files) {
      out.push('', `${file.path}:`);
      for (const hit of file.lines) out.push(`  Line ${hit.line}: ${hit.text}`);
    }
    if (truncated) out.push('', '(Results are truncated. Consider using a more specific path or pattern.)');
    return { title: `${args.pattern} in ${displayPath(ctx, root)}`, output: out.join('\n'), metadata: { matches, truncated } };
  },
});
