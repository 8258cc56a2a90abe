/**
 * SnapshotService — worktree snapshots in a shadow git repository per project
 * (`<dataDir>/snapshot/<projectID>`, `GIT_DIR` there, work tree = the project worktree). The user's own
 * `.git` is never read or written; the worktree's `.gitignore` files apply. Calls on one shadow
 * repository are serialised (one git index), calls on different projects run in parallel.
 *
 *   enabled(instance) → boolean                          git project and config `snapshot` not false
 *   track(instance) → tree hash | undefined              `git add .` + `git write-tree`; undefined when disabled
 *                                                        (or git failed). The prompt loop calls it at step start
 *                                                        (`step-start.snapshot`) and at step finish (`step-finish.snapshot`).
 *   patch(instance, hash) → {hash, files}                files changed since `hash` (absolute paths): the `patch`
 *                                                        part written at step finish when `files` is not empty
 *   diff(instance, hash) → string                        unified diff from `hash` to the current worktree
 *   diffFull(instance, from, to) → FileDiff[]            per file: worktree-relative name, full before/after text
 *                                                        (empty for binary files), numstat additions/deletions.
 *                                                        The session diff (§21) is diffFull(first step-start snapshot,
 *                                                        last step-finish snapshot) kept to the files of `patch` parts.
 *   restore(instance, hash)                              whole tree back to `hash` (files created since are kept)
 *   revertFiles(instance, patches)                       each file of each patch back to the patch's tree, or
 *                                                        deleted when absent there; the first patch naming a file wins
 *
 * Hashes are tree ids of the shadow repository only: they mean nothing in the user's repository.
 * track/patch/diff/diffFull never throw (a git failure is logged and reads as "nothing"); restore rejects.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { mkdir, realpath, rm, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { isInside } from '../common/paths';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { ConfigService } from '../config/config.service';
import { KeyedMutex } from '../common/keyed-mutex';
import type { Instance } from '../projects/instance.service';
import type { FileDiff } from '../sessions/session.entity';
import { splitNul } from '../common/git';
import { ShadowGit, ShadowGitError } from './shadow-git';

/** The reference `PatchPart` payload: the pre-step tree and the files changed since. */
export interface SnapshotPatch {
  hash: string;
  files: string[];
}

@Injectable()
export class SnapshotService {
  private readonly logger = new Logger('SnapshotService');
  private readonly repositories = new KeyedMutex();
  private readonly opened = new Set<string>();

  constructor(
    @Inject(KEEL_SETTINGS) private readonly settings: KeelSettings,
    private readonly config: ConfigService,
  ) {}

  /** Snapshots need a git worktree, and config `snapshot: false` turns them off. */
  async enabled(instance: Instance): Promise<boolean> {
    if (instance.project.vcs !== 'git') return false;
    // A broken config is reported by the routes that need config; it does not turn snapshots off.
    const config = await this.config.get(instance).catch(() => undefined);
    return config?.snapshot !== false;
  }

  async track(instance: Instance): Promise<string | undefined> {
    if (!(await this.enabled(instance))) return undefined;
    return this.staged(
      instance,
      undefined,
      { msg: 'snapshot failed', worktree: instance.worktree },
      async (git) => (await git.run(['write-tree'])).trim(),
    );
  }

  patch(instance: Instance, hash: string): Promise<SnapshotPatch> {
    if (!isTreeHash(hash)) return Promise.resolve({ hash, files: [] });
    return this.staged(instance, { hash, files: [] }, { msg: 'snapshot patch failed', hash }, async (git) => {
      const names = await git.run([
        'diff',
        '--no-ext-diff',
        '--no-renames',
        '--name-only',
        '-z',
        hash,
        '--',
        '.',
      ]);
      return { hash, files: splitNul(names).map((name) => join(instance.worktree, name)) };
    });
  }

  diff(instance: Instance, hash: string): Promise<string> {
    if (!isTreeHash(hash)) return Promise.resolve('');
    return this.staged(instance, '', { msg: 'snapshot diff failed', hash }, async (git) =>
      (await git.run(['diff', '--no-ext-diff', '--no-renames', hash, '--', '.'])).trim(),
    );
  }

  diffFull(instance: Instance, from: string, to: string): Promise<FileDiff[]> {
    if (!isTreeHash(from) || !isTreeHash(to)) return Promise.resolve([]);
    return this.withRepository(instance, async (git) => {
      let numstat: string;
      try {
        numstat = await git.run([
          'diff',
          '--no-ext-diff',
          '--no-renames',
          '--numstat',
          '-z',
          from,
          to,
          '--',
          '.',
        ]);
      } catch (error) {
        this.logger.warn({ msg: 'snapshot diffFull failed', from, to, error: String(error) });
        return [];
      }
      const entries = splitNul(numstat).map((line) => {
        const [additions, deletions, ...name] = line.split('\t');
        const binary = additions === '-' && deletions === '-';
        return {
          file: name.join('\t'),
          binary,
          additions: binary ? 0 : Number(additions),
          deletions: binary ? 0 : Number(deletions),
        };
      });
      const text = entries.filter((e) => !e.binary);
      const blobs = await git.readBlobs(text.flatMap((e) => [`${from}:${e.file}`, `${to}:${e.file}`]));
      const contents = new Map(text.map((e, i) => [e.file, [blobs[2 * i], blobs[2 * i + 1]]]));
      return entries.map(({ file, additions, deletions }) => {
        const [before, after] = contents.get(file) ?? [];
        return {
          file,
          before: before?.toString('utf8') ?? '',
          after: after?.toString('utf8') ?? '',
          additions,
          deletions,
        };
      });
    });
  }

  /** Rejects (ShadowGitError) when the tree cannot be checked out, e.g. a hash from a wiped data dir. */
  restore(instance: Instance, hash: string): Promise<void> {
    if (!isTreeHash(hash)) return Promise.reject(new Error(`Not a snapshot hash: ${hash}`));
    return this.withRepository(instance, async (git) => {
      await git.run(['read-tree', hash]);
      await git.run(['checkout-index', '--all', '--force']);
    });
  }

  revertFiles(instance: Instance, patches: SnapshotPatch[]): Promise<void> {
    // The earliest patch naming a file holds the file as it was before the first change to undo.
    const byHash = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const { hash, files } of patches) {
      // Patch parts can be rewritten by clients (PATCH …/part): a hash is only ever a git object id here.
      if (!isTreeHash(hash)) continue;
      for (const file of files) {
        const name = this.worktreePath(instance, file);
        if (name === undefined || seen.has(name)) continue;
        seen.add(name);
        byHash.set(hash, [...(byHash.get(hash) ?? []), name]);
      }
    }
    if (byHash.size === 0) return Promise.resolve();
    return this.withRepository(instance, async (git) => {
      for (const [hash, names] of byHash) {
        let present: boolean[];
        try {
          present = await git.exists(names.map((name) => `${hash}:${name}`));
        } catch (error) {
          this.logger.warn({
            msg: 'snapshot to revert to is unreadable, files kept',
            hash,
            error: String(error),
          });
          continue;
        }
        const existing = names.filter((_, i) => present[i]);
        if (existing.length > 0) {
          await git
            .run(['checkout', hash, '--pathspec-from-file=-', '--pathspec-file-nul'], existing.join('\0'))
            .catch((error) =>
              this.logger.warn({ msg: 'snapshot checkout failed', hash, error: String(error) }),
            );
        }
        for (const name of names.filter((_, i) => !present[i])) await this.deleteFile(instance, name);
      }
    });
  }

  /**
   * Deletes a worktree file, never through a symlinked directory (the file itself may be a symlink:
   * the link is removed, not its target).
   */
  private async deleteFile(instance: Instance, name: string): Promise<void> {
    const file = join(instance.worktree, name);
    const [root, parent] = await Promise.all([
      realpath(instance.worktree),
      realpath(dirname(file)).catch(() => undefined),
    ]);
    if (parent === undefined || !isInside(root, parent)) return;
    await unlink(join(parent, basename(file))).catch(() => undefined);
  }

  /**
   * Worktree-relative name of a patch file (absolute, as in `PatchPart.files`); undefined outside the
   * worktree or inside a `.git` directory.
   */
  private worktreePath(instance: Instance, file: string): string | undefined {
    const absolute = resolve(instance.worktree, file);
    if (!isInside(instance.worktree, absolute) || absolute === instance.worktree) return undefined;
    const name = relative(instance.worktree, absolute).split(sep).join('/');
    return name.split('/').includes('.git') ? undefined : name;
  }

  /**
   * Stages the whole worktree. Unreadable files are skipped (`--ignore-errors`) though git still exits
   * non-zero for them; anything else (a locked index, a broken repository) is a failure.
   */
  private async stage(git: ShadowGit): Promise<void> {
    try {
      await git.run(['add', '--all', '--ignore-errors', '.']);
    } catch (error) {
      if (
        !(error instanceof ShadowGitError) ||
        /index\.lock|fatal: (?!adding files failed)/.test(error.stderr)
      )
        throw error;
      this.logger.warn({
        msg: 'snapshot skipped unreadable files',
        error: error.stderr.trim().slice(0, 500),
      });
    }
  }

  /** Runs `fn` after staging the worktree; a git failure is logged (`log` and the error) and answers `fallback`. */
  private staged<T>(
    instance: Instance,
    fallback: T,
    log: object,
    fn: (git: ShadowGit) => Promise<T>,
  ): Promise<T> {
    return this.withRepository(instance, async (git) => {
      try {
        await this.stage(git);
        return await fn(git);
      } catch (error) {
        this.logger.warn({ ...log, error: String(error) });
        return fallback;
      }
    });
  }

  /** Runs `fn` alone on the project's shadow repository, creating the repository when it is missing. */
  private withRepository<T>(instance: Instance, fn: (git: ShadowGit) => Promise<T>): Promise<T> {
    const gitDir = join(this.settings.dataDir, 'snapshot', instance.project.id);
    const git = new ShadowGit({ gitDir, workTree: instance.worktree });
    return this.repositories.run(gitDir, async () => {
      if (!existsSync(join(gitDir, 'HEAD'))) {
        await mkdir(gitDir, { recursive: true });
        await git.run(['init', '--quiet']);
        await git.run(['config', 'core.autocrlf', 'false']);
      } else if (!this.opened.has(gitDir)) {
        // This process serialises its own calls, so a lock present before its first call was left by one that died.
        await rm(join(gitDir, 'index.lock'), { force: true });
      }
      this.opened.add(gitDir);
      return fn(git);
    });
  }
}

/** A git object id (SHA-1 or SHA-256), nothing git could read as an option or a revision expression. */
function isTreeHash(hash: string): boolean {
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(hash);
}
