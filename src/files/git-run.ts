import { execFile } from 'node:child_process';

interface GitResult {
  /** Exit code; -1 when git could not run or was stopped. */
  code: number;
  stdout: string;
}

/**
 * Runs git in `cwd` with optional stdin. Unlike common/git.ts it keeps stdout on a non-zero exit,
 * since `check-ignore` answers "nothing ignored" with exit code 1.
 */
export function runGit(cwd: string, args: string[], input?: string): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      ['-c', 'core.quotepath=off', ...args],
      { cwd, timeout: 30_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout });
      },
    );
    // git may exit without reading stdin (nothing to check, or an error): that EPIPE is not a failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/** A pathspec that matches exactly `path` (no glob magic in file names). */
export const literalPathspec = (path: string) => `:(literal)${path}`;
