import { execFile } from 'node:child_process';

/** Run git in `cwd`; resolves to trimmed stdout, or undefined when git fails (not a repo, no commits). */
export function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 10_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      resolve(error ? undefined : stdout.trim());
    });
  });
}

/** NUL-separated git output (`-z`) as a list. */
export const splitNul = (text: string) => text.split('\0').filter(Boolean);
