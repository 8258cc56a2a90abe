import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isDirectory, isInside } from '../common/paths';

/**
 * Where config lives. Everything reads the environment at call time, so tests (and an operator
 * who changes XDG_CONFIG_HOME) see the current value.
 */
/** The user's home: `HOME` as set now (else the account's), like the other locations read at call time. */
export function userHome(): string {
  return process.env.HOME || homedir();
}

export function globalConfigDirectory(): string {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'opencode');
}

/**
 * Directories from `worktree` down to `directory`, outermost first; just `directory` outside git
 * (worktree `/`) or outside the worktree. Outside git the reference walks every parent up to `/`, so
 * a file anyone can drop in `/tmp` or `/` (say `/tmp/opencode.json` with a provider `baseURL` or
 * `permission: allow`) would steer every scratch directory a client opens; Keel keeps config, like
 * AGENTS.md and the PATCH /config target, to the directory itself there.
 */
export function worktreeChain(directory: string, worktree: string): string[] {
  if (worktree === '/' || !isInside(worktree, directory)) return [directory];
  const chain: string[] = [];
  let current = directory;
  for (;;) {
    chain.unshift(current);
    if (current === worktree) break;
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return chain;
}

/**
 * Config directories (markdown agents/commands/modes and their own `opencode.json[c]`), lowest
 * precedence first: the global dir, `~/.opencode`, each `.opencode` from the worktree down to the
 * directory, then `OPENCODE_CONFIG_DIR`. Only existing directories, each once.
 */
export async function configDirectories(directory: string, worktree: string): Promise<string[]> {
  const candidates = [
    globalConfigDirectory(),
    join(homedir(), '.opencode'),
    ...worktreeChain(directory, worktree).map((d) => join(d, '.opencode')),
    ...(process.env.OPENCODE_CONFIG_DIR ? [resolve(process.env.OPENCODE_CONFIG_DIR)] : []),
  ];
  const result: string[] = [];
  for (const candidate of candidates) {
    if (!result.includes(candidate) && (await isDirectory(candidate))) result.push(candidate);
  }
  return result;
}
