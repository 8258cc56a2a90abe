import { execFile, spawn } from 'node:child_process';

/** A failed git command (exit code, stderr) of the shadow repository. */
export class ShadowGitError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${code}): ${stderr.trim().slice(0, 500)}`);
  }
}

interface ShadowGitOptions {
  /** The shadow repository (`GIT_DIR`). */
  gitDir: string;
  /** The project worktree it snapshots (`GIT_WORK_TREE`, also the working directory). */
  workTree: string;
}

// `git add .` over a large worktree can take a while; a stuck git must still not hang a prompt forever.
const TIMEOUT_MS = 5 * 60_000;
const MAX_BUFFER = 256 * 1024 * 1024;

/**
 * The environment of every shadow-git call: the caller's own `GIT_*` variables (e.g. when Keel runs
 * inside a git hook, `GIT_INDEX_FILE`) are dropped so they can never point git at the user's `.git`.
 * Pathspecs are literal: file names with `*` or `:` mean themselves.
 */
function gitEnv(options: ShadowGitOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  return {
    ...env,
    GIT_DIR: options.gitDir,
    GIT_WORK_TREE: options.workTree,
    GIT_LITERAL_PATHSPECS: '1',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  };
}

/**
 * Runs git against one shadow repository (no shell: arguments go straight to `execFile`).
 * `core.autocrlf=false` so snapshots hold the bytes on disk, `core.quotepath=false` for readable names.
 */
export class ShadowGit {
  private readonly env: NodeJS.ProcessEnv;

  constructor(readonly options: ShadowGitOptions) {
    this.env = gitEnv(options);
  }

  /** stdout of `git <args>`; rejects with ShadowGitError on a non-zero exit. */
  run(args: string[], input?: string): Promise<string> {
    const full = ['-c', 'core.autocrlf=false', '-c', 'core.quotepath=false', ...args];
    return new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        full,
        {
          cwd: this.options.workTree,
          env: this.env,
          timeout: TIMEOUT_MS,
          maxBuffer: MAX_BUFFER,
          encoding: 'utf8',
        },
        (error, stdout, stderr) => {
          if (error) reject(new ShadowGitError(args, error.code ?? null, stderr));
          else resolve(stdout);
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  /**
   * Contents of many `<tree>:<path>` objects through one `git cat-file --batch` process;
   * an object that does not exist (or is not a file) reads as undefined.
   */
  async readBlobs(specs: string[]): Promise<(Buffer | undefined)[]> {
    const objects = parseBatch(await this.batch('--batch', specs), specs.length, true);
    return objects.map((o) => (o?.type === 'blob' ? o.content : undefined));
  }

  /** Which `<tree>:<path>` objects exist (one `git cat-file --batch-check` process, no argument-length limit). */
  async exists(specs: string[]): Promise<boolean[]> {
    return parseBatch(await this.batch('--batch-check', specs), specs.length, false).map(
      (o) => o !== undefined,
    );
  }

  private batch(mode: '--batch' | '--batch-check', specs: string[]): Promise<Buffer> {
    if (specs.length === 0) return Promise.resolve(Buffer.alloc(0));
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['cat-file', mode], { cwd: this.options.workTree, env: this.env });
      const chunks: Buffer[] = [];
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0) reject(new ShadowGitError(['cat-file', mode], code, stderr));
        else resolve(Buffer.concat(chunks));
      });
      // A name with a newline cannot be sent on a batch line; it reads as missing.
      child.stdin.end(specs.map((s) => (s.includes('\n') ? 'missing-object' : s)).join('\n') + '\n');
    });
  }
}

interface BatchObject {
  type: string;
  content: Buffer;
}

/**
 * Splits `git cat-file --batch[-check]` output: per request `<oid> <type> <size>\n` (then, with
 * contents, `<bytes>\n`), or `<name> missing\n` (undefined here).
 */
function parseBatch(output: Buffer, count: number, withContent: boolean): (BatchObject | undefined)[] {
  const out: (BatchObject | undefined)[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const end = output.indexOf(0x0a, offset);
    if (end < 0) break;
    const header = output.subarray(offset, end).toString('utf8');
    offset = end + 1;
    const match = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (!match) {
      out.push(undefined);
      continue;
    }
    const size = withContent ? Number(match[2]) : 0;
    out.push({ type: match[1], content: output.subarray(offset, offset + size) });
    if (withContent) offset += size + 1;
  }
  while (out.length < count) out.push(undefined);
  return out;
}
