import { opendir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Directories no search tool descends into (the reference's default ignores). */
const IGNORED_DIRECTORIES = new Set(['.git', 'node_modules', 'dist', 'build', 'target', 'vendor', '.venv', '__pycache__', '.cache', 'coverage', '.idea', '.vscode']);

/** Files below `root` (relative POSIX paths), depth first, stopping after `max` or on abort. */
export async function* walkFiles(root: string, options: { max?: number; signal?: AbortSignal; directories?: boolean } = {}): AsyncGenerator<string> {
  const max = options.max ?? 100_000;
  let seen = 0;
  const stack = [root];
  while (stack.length > 0) {
    if (options.signal?.aborted) return;
    const dir = stack.pop()!;
    const handle = await opendir(dir).catch(() => undefined);
    if (!handle) continue;
    const children: string[] = [];
    for await (const entry of handle) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (IGNORED_DIRECTORIES.has(entry.name)) continue;
        children.push(full);
        if (options.directories) yield `${relative(root, full)}/`;
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        yield relative(root, full);
        if (++seen >= max) return;
      }
    }
    stack.push(...children.sort().reverse());
  }
}

/** A glob (`**`, `*`, `?`, `{a,b}`, `[…]`) as an anchored regular expression over relative POSIX paths. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let inGroup = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        out += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '{') {
      inGroup++;
      out += '(?:';
    } else if (c === '}' && inGroup > 0) {
      inGroup--;
      out += ')';
    } else if (c === ',' && inGroup > 0) out += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i);
      if (end < 0) out += '\\[';
      else {
        out += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  // A pattern without a slash matches a file name at any depth, like ripgrep's --glob.
  return new RegExp(glob.includes('/') ? `^${out}$` : `^(?:.*/)?${out}$`);
}
