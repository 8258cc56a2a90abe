import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { isDirectory } from '../common/paths';
import { userHome } from '../config/config-locations';
import { isPlainObject } from '../config/deep-merge';

/** A skill: instructions the agent can load, from a `SKILL.md` (opencode 1.18's `Skill.Info`). */
export interface SkillInfo {
  name: string;
  description?: string;
  /** The `SKILL.md` it was read from. */
  location: string;
  /** The file's body below the frontmatter, as written. */
  content: string;
}

/** Every `SKILL.md` below `root` (sorted, so the order is the same on every file system). */
async function skillFiles(root: string, folders: string[] = ['']): Promise<string[]> {
  const found: string[] = [];
  for (const folder of folders) {
    const base = join(root, folder);
    if (!(await isDirectory(base))) continue;
    const entries = await readdir(base, { withFileTypes: true, recursive: true }).catch(() => []);
    for (const entry of entries) if (entry.isFile() && entry.name === 'SKILL.md') found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

/**
 * `SKILL.md`: YAML frontmatter with `name` (required) and `description`, then the instructions. A
 * file without a name, with a frontmatter that does not parse or with a description that is no
 * string is no skill (opencode skips it too).
 */
export async function readSkill(path: string): Promise<SkillInfo | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  let data: unknown;
  try {
    // Loaded on the first skill rather than at start-up.
    const { parse } = require('yaml') as typeof import('yaml');
    data = parse(match[1]);
  } catch {
    return undefined;
  }
  if (!isPlainObject(data) || typeof data.name !== 'string') return undefined;
  if (data.description !== undefined && typeof data.description !== 'string') return undefined;
  return { name: data.name, ...(data.description !== undefined ? { description: data.description } : {}), location: path, content: match[2] };
}

/**
 * Where opencode 1.18 looks for skills, in its order (a later skill of the same name replaces an
 * earlier one in its place):
 * 1. `skills/**` of `~/.claude` and `~/.agents`, then of each `.claude` and `.agents` from the
 *    directory up to the worktree root (skills other agent tools share);
 * 2. `skill/**` and `skills/**` of each config directory (global, `~/.opencode`, each `.opencode`
 *    from the worktree down, `OPENCODE_CONFIG_DIR`);
 * 3. each of the config's `skills.paths` (`~/` expanded, relative to the directory), all of it.
 * Config `skills.urls` (skills served over HTTP) are not fetched: Keel reads local files only.
 */
export async function skillLocations(directory: string, worktree: string, configDirectories: string[], paths: string[]): Promise<string[]> {
  const found: string[] = [];
  const home = userHome();
  for (const shared of ['.claude', '.agents']) found.push(...(await skillFiles(join(home, shared), ['skills'])));
  for (const dir of upFrom(directory, worktree)) {
    for (const shared of ['.claude', '.agents']) if (join(dir, shared) !== join(home, shared)) found.push(...(await skillFiles(join(dir, shared), ['skills'])));
  }
  for (const dir of configDirectories) found.push(...(await skillFiles(dir, ['skill', 'skills'])));
  for (const path of paths) {
    const expanded = path.startsWith('~/') ? join(home, path.slice(2)) : path;
    found.push(...(await skillFiles(isAbsolute(expanded) ? expanded : join(directory, expanded))));
  }
  return [...new Set(found)];
}

/** `directory`, its parents up to `worktree` (just `directory` outside git or outside the worktree). */
function upFrom(directory: string, worktree: string): string[] {
  const chain = [directory];
  if (worktree === '/' || !(directory === worktree || directory.startsWith(`${worktree}/`))) return chain;
  let current = directory;
  while (current !== worktree) {
    current = dirname(current);
    chain.push(current);
    if (basename(current) === '' || current === '/') break;
  }
  return chain;
}
