import { readFile } from 'node:fs/promises';
import { homedir, platform } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { globalConfigDirectory, worktreeChain } from '../config/config-locations';
import type { Instance } from '../projects/instance.service';

/** What the build agent is told when the agent has no prompt of its own. */
export const DEFAULT_PROMPT = `You are an interactive coding agent working in the user's project on their machine.
Use the available tools to read, search and change files and to run commands; do not guess about code you have not read.
Keep answers short and direct. When you change code, follow the project's existing conventions and verify your work (build, tests) when you can.
Plan multi-step work with the todo tools and keep the list current.`;

/** The environment block the reference appends: working directory, repository, platform, date. */
export function environmentPrompt(instance: Instance): string {
  return [
    `Here is some useful information about the environment you are running in:`,
    `<env>`,
    `  Working directory: ${instance.directory}`,
    `  Is directory a git repo: ${instance.project.vcs === 'git' ? 'yes' : 'no'}`,
    `  Platform: ${platform()}`,
    `  Today's date: ${new Date().toDateString()}`,
    `</env>`,
  ].join('\n');
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Custom instructions: the nearest AGENTS.md (or CLAUDE.md) from the directory up to the worktree,
 * the global `~/.config/opencode/AGENTS.md`, and config `instructions` (paths relative to the directory).
 */
export async function instructionPrompts(instance: Instance, instructions: string[] = []): Promise<string[]> {
  const files: string[] = [];
  for (const dir of worktreeChain(instance.directory, instance.worktree).reverse()) {
    const found = (await readIfPresent(join(dir, 'AGENTS.md'))) !== undefined ? join(dir, 'AGENTS.md') : join(dir, 'CLAUDE.md');
    files.push(found);
  }
  files.push(join(globalConfigDirectory(), 'AGENTS.md'));
  for (const entry of instructions) files.push(isAbsolute(entry) ? entry : resolve(instance.directory, entry.replace(/^~(?=\/)/, homedir())));
  const out: string[] = [];
  for (const file of [...new Set(files)]) {
    const text = await readIfPresent(file);
    if (text) out.push(`Instructions from: ${file}\n${text}`);
  }
  return out;
}
