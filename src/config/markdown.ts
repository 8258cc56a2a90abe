import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ConfigInvalidError } from './config-errors';
import { isPlainObject, JsonObject } from './deep-merge';
import { readOptional } from './config-source';

/** A markdown definition (agent, mode or command): its name, frontmatter and body. */
export interface MarkdownEntry {
  name: string;
  path: string;
  frontmatter: JsonObject;
  body: string;
}

async function markdownFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** `---\nyaml\n---\nbody`; a file without frontmatter is all body. */
function splitFrontmatter(text: string, path: string): { frontmatter: JsonObject; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { frontmatter: {}, body: text.trim() };
  let data: unknown;
  try {
    // Loaded on the first frontmatter rather than at start-up.
    const { parse } = require('yaml') as typeof import('yaml');
    data = parse(match[1]) ?? {};
  } catch (error) {
    throw new ConfigInvalidError(path, [{ path: [], message: `frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}` }]);
  }
  if (!isPlainObject(data)) throw new ConfigInvalidError(path, [{ path: [], message: 'frontmatter must be a mapping' }]);
  return { frontmatter: data, body: match[2].trim() };
}

/**
 * Markdown files under `<configDir>/<folder>/**` for each folder name (e.g. `command`, `commands`).
 * The name is the path below the folder without `.md` (`a/b.md` → `a/b`).
 */
export async function readMarkdownEntries(configDir: string, folders: string[]): Promise<MarkdownEntry[]> {
  const result: MarkdownEntry[] = [];
  for (const folder of folders) {
    const root = join(configDir, folder);
    for (const path of await markdownFiles(root)) {
      const text = await readOptional(path);
      if (text === undefined) continue;
      const name = relative(root, path).slice(0, -'.md'.length).split(sep).join('/');
      result.push({ name, path, ...splitFrontmatter(text, path) });
    }
  }
  return result;
}
