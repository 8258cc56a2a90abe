import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setEnv } from './env';
import { tempDir } from './keel';

export interface ConfigHome {
  /** XDG_CONFIG_HOME while the home is active; global opencode files live under `<xdg>/opencode/`. */
  xdg: string;
  /** A git repository (branch main) holding the project's config files. */
  repo: string;
  /** Puts the environment back and removes both directories. */
  restore(): void;
}

/** Relative path → file content; parent directories are created. */
export type Files = Record<string, string | Buffer>;

export function writeFiles(root: string, files: Files): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/**
 * An isolated opencode config home for an in-process server: a fresh XDG_CONFIG_HOME with `global`
 * files under `opencode/`, and a git project with `project` files. The variables through which the
 * machine's own config could leak in (OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT, OPENCODE_PERMISSION)
 * are unset until restore(). Call it before starting the server.
 */
export function isolatedConfigHome(options: {
  repoPrefix: string;
  global?: Files;
  project?: Files;
}): ConfigHome {
  const xdg = tempDir('keel-xdg-');
  const repo = tempDir(options.repoPrefix);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFiles(join(xdg, 'opencode'), options.global ?? {});
  writeFiles(repo, options.project ?? {});
  const restoreEnv = setEnv({
    XDG_CONFIG_HOME: xdg,
    OPENCODE_CONFIG: undefined,
    OPENCODE_CONFIG_CONTENT: undefined,
    OPENCODE_PERMISSION: undefined,
  });
  return {
    xdg,
    repo,
    restore: () => {
      restoreEnv();
      for (const d of [xdg, repo]) rmSync(d, { recursive: true, force: true });
    },
  };
}
