import { spawn } from 'node:child_process';

/**
 * The git commands behind `/vcs`, `/vcs/status` and `/vcs/diff`, run as opencode 1.18.33 runs them
 * (its `Git` service): the same subcommands and flags, so the answers agree file for file.
 */

/** Flags opencode puts before every git command: no lock files taken, no CRLF or fsmonitor surprises, paths unquoted. */
const FLAGS = ['--no-optional-locks', '-c', 'core.autocrlf=false', '-c', 'core.fsmonitor=false', '-c', 'core.longpaths=true', '-c', 'core.symlinks=true', '-c', 'core.quotepath=false'];

interface GitOutput {
  /** Exit code; -1 when git could not run or was stopped. */
  code: number;
  stdout: Buffer;
  /** stdout passed `maxBytes` and git was stopped: what is there is cut short. */
  truncated: boolean;
}

/**
 * Runs git with stdout kept whatever the exit code (`diff --no-index` exits 1 on a difference), up
 * to `maxBytes` of output: past that git is stopped and the result is marked truncated.
 */
function runGit(cwd: string, args: string[], maxBytes = 64 * 1024 * 1024): Promise<GitOutput> {
  return new Promise((resolve) => {
    const child = spawn('git', [...FLAGS, ...args], { cwd, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        truncated = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    const finish = (code: number) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(chunks), truncated });
    };
    child.on('error', () => finish(-1));
    child.on('close', (code) => finish(code ?? -1));
  });
}

const text = async (cwd: string, args: string[]): Promise<string | undefined> => {
  const out = await runGit(cwd, args);
  return out.code === 0 ? out.stdout.toString('utf8').trim() : undefined;
};
const nulFields = (output: Buffer) => output.toString('utf8').split('\0').filter(Boolean);

export type ChangeStatus = 'added' | 'deleted' | 'modified';

/** A porcelain `XY` code or a `--name-status` letter, as opencode reads it. */
function statusOfCode(code: string): ChangeStatus {
  if (code === '??') return 'added';
  if (code.includes('U')) return 'modified';
  if (code.includes('A') && !code.includes('D')) return 'added';
  if (code.includes('D') && !code.includes('A')) return 'deleted';
  return 'modified';
}

export interface ChangedFile {
  /** Path from the repository root. */
  file: string;
  code: string;
  status: ChangeStatus;
}

export interface LineCounts {
  additions: number;
  deletions: number;
}

/** The checked-out branch; undefined when HEAD is detached or this is no repository. */
export function currentBranch(cwd: string): Promise<string | undefined> {
  return text(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD']).then((branch) => branch || undefined);
}

/**
 * The branch work is compared with (`/vcs/diff?mode=branch`): the remote's HEAD branch (origin,
 * else the only remote, else upstream), else `init.defaultBranch` when that branch exists, else
 * `main`, else `master`. `ref` is what to diff against (`origin/main` for a remote's).
 */
export async function defaultBranch(cwd: string): Promise<{ name: string; ref: string } | undefined> {
  const remotes = (await text(cwd, ['remote']))?.split('\n').map((r) => r.trim()).filter(Boolean) ?? [];
  const remote = remotes.includes('origin') ? 'origin' : remotes.length === 1 ? remotes[0] : remotes.includes('upstream') ? 'upstream' : remotes[0];
  if (remote) {
    const head = await text(cwd, ['symbolic-ref', `refs/remotes/${remote}/HEAD`]);
    const ref = head?.replace(/^refs\/remotes\//, '');
    const name = ref?.startsWith(`${remote}/`) ? ref.slice(remote.length + 1) : '';
    if (ref && name) return { name, ref };
  }
  const heads = (await text(cwd, ['for-each-ref', '--format=%(refname:short)', 'refs/heads']))?.split('\n').map((h) => h.trim()).filter(Boolean) ?? [];
  const configured = await text(cwd, ['config', 'init.defaultBranch']);
  if (configured && heads.includes(configured)) return { name: configured, ref: configured };
  for (const name of ['main', 'master']) if (heads.includes(name)) return { name, ref: name };
  return undefined;
}

export async function hasHead(cwd: string): Promise<boolean> {
  return (await runGit(cwd, ['rev-parse', '--verify', 'HEAD'])).code === 0;
}

export function mergeBase(cwd: string, ref: string): Promise<string | undefined> {
  return text(cwd, ['merge-base', ref, 'HEAD']).then((base) => base || undefined);
}

/** Changes below `cwd` as `git status` sees them: staged, unstaged and untracked (every file of an untracked directory). */
export async function workingTreeStatus(cwd: string): Promise<ChangedFile[]> {
  const out = await runGit(cwd, ['status', '--porcelain=v1', '--untracked-files=all', '--no-renames', '-z', '--', '.']);
  return nulFields(out.stdout).flatMap((entry) => {
    const file = entry.slice(3);
    const code = entry.slice(0, 2);
    return file ? [{ file, code, status: statusOfCode(code) }] : [];
  });
}

/** Files that differ between `base` and the working tree (tracked files; renames as a deletion and an addition). */
export async function changedSince(cwd: string, base: string): Promise<ChangedFile[]> {
  const fields = nulFields((await runGit(cwd, ['diff', '--no-ext-diff', '--no-renames', '--name-status', '-z', base, '--', '.'])).stdout);
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) files.push({ file: fields[i + 1], code: fields[i], status: statusOfCode(fields[i]) });
  return files;
}

/** `git diff --numstat` against `base`: added and deleted lines per file (0 and 0 for a binary file). */
export async function lineCountsSince(cwd: string, base: string): Promise<Map<string, LineCounts>> {
  const counts = new Map<string, LineCounts>();
  for (const entry of nulFields((await runGit(cwd, ['diff', '--no-ext-diff', '--no-renames', '--numstat', '-z', base, '--', '.'])).stdout)) {
    const [added, deleted, file] = entry.split('\t');
    if (file) counts.set(file, { additions: count(added), deletions: count(deleted) });
  }
  return counts;
}

/** Lines of a file git does not track yet, counted as added (0 and 0 for a binary file). */
export async function untrackedLineCounts(cwd: string, file: string): Promise<LineCounts | undefined> {
  const out = await runGit(cwd, ['diff', '--no-index', '--numstat', '--', '/dev/null', file], 4096);
  if (out.truncated) return undefined;
  const [added, deleted] = out.stdout.toString('utf8').split('\t');
  return deleted === undefined ? undefined : { additions: count(added), deletions: count(deleted) };
}

const count = (value: string | undefined) => {
  const n = value === '-' ? 0 : Number.parseInt(value || '0', 10);
  return Number.isFinite(n) ? n : 0;
};

/** The unified diff of the tracked changes since `base` to `path` (one file, or `.`: all of them), cut at `maxBytes`. */
export function patchSince(cwd: string, base: string, context: number, maxBytes: number, path = '.'): Promise<GitOutput> {
  return runGit(cwd, ['diff', '--patch', '--no-ext-diff', '--no-renames', `--unified=${context}`, base, '--', path], maxBytes);
}

/** An untracked file as a new-file diff (`new file mode`, `index 0000000..<blob>`, or `Binary files … differ`). */
export function untrackedPatch(cwd: string, file: string, context: number, maxBytes: number): Promise<GitOutput> {
  return runGit(cwd, ['diff', '--no-index', '--patch', '--no-ext-diff', '--no-renames', `--unified=${context}`, '--', '/dev/null', file], maxBytes);
}

/** One `diff --git` section per file of a multi-file diff, by the file's path; a section cut short is dropped. */
export function splitPatches(output: GitOutput): Map<string, string> {
  const textOf = output.stdout.toString('utf8');
  const starts = [...textOf.matchAll(/(?:^|\n)diff --git /g)].map((m) => (m[0].startsWith('\n') ? m.index + 1 : m.index));
  const sections = starts.map((start, i) => textOf.slice(start, starts[i + 1] ?? textOf.length));
  if (output.truncated) sections.pop();
  const patches = new Map<string, string>();
  for (const section of sections) {
    const file = fileOfPatch(section);
    if (file) patches.set(file, (patches.get(file) ?? '') + section);
  }
  return patches;
}

/** The path a patch section is about: its `+++ b/…` (or `--- a/…` for a deletion), else its `diff --git` line. */
function fileOfPatch(section: string): string | undefined {
  const plus = /^\+\+\+ (.+)$/m.exec(section)?.[1];
  const minus = /^--- (.+)$/m.exec(section)?.[1];
  const named = pathOf(plus) ?? pathOf(minus);
  if (named) return named;
  const header = /^diff --git (.+)$/m.exec(section)?.[1] ?? '';
  if (header.startsWith('"')) {
    const first = unquote(header);
    const rest = first ? header.slice(first.end).trimStart() : '';
    return rest.startsWith('"') ? pathOf(rest) : pathOf(rest || undefined);
  }
  const at = header.indexOf(' b/');
  return at === -1 ? undefined : pathOf(header.slice(at + 1));
}

function pathOf(value: string | undefined): string | undefined {
  if (!value || value === '/dev/null') return undefined;
  const name = value.startsWith('"') ? (unquote(value)?.value ?? value) : value.split('\t')[0];
  return name.startsWith('a/') || name.startsWith('b/') ? name.slice(2) : name;
}

/** A C-quoted git path (`"a\tb"`): its value and where the closing quote ends. */
function unquote(value: string): { value: string; end: number } | undefined {
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const char = value[i];
    if (char === '"') return { value: out, end: i + 1 };
    if (char !== '\\') {
      out += char;
      continue;
    }
    const next = value[++i];
    out += next === 't' ? '\t' : next === 'n' ? '\n' : next === 'r' ? '\r' : (next ?? '');
  }
  return undefined;
}
