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
 *                                                        (empty for binary files), numstat additions/deletions
 *   restore(instance, hash)                              whole tree back to `hash` (files created since are kept)
 *   revertFiles(instance, patches)                       each file of each patch back to the patch's tree, or
 *                                                        deleted when absent there; the first patch naming a file wins
 *
 * Hashes are tree ids of the shadow repository only: they mean nothing in the user's repository.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { isInside } from '../common/paths';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { ConfigService } from '../config/config.service';
import { KeyedMutex } from '../ingestion/store';
import type { Instance } from '../projects/instance.service';
import type { FileDiff } from '../sessions/session.entity';
import { ShadowGit, splitNul } from './shadow-git';

/** The reference `PatchPart` payload: the pre-step tree and the files changed since. */
export interface SnapshotPatch {
  hash: string;
  files: string[];
}

@Injectable()
export class SnapshotService {
  private readonly logger = new Logger(SnapshotService.name);
  private readonly repositories = new KeyedMutex();
  private readonly initialized = new Set<string>();

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
    return this.withRepository(instance, async (git) => {
      try {
        await git.run(['add', '--all', '.']);
        return (await git.run(['write-tree'])).trim();
      } catch (error) {
        this.logger.warn({ msg: 'snapshot failed', worktree: instance.worktree, error: String(error) });
        return undefined;
      }
    });
  }

  patch(instance: Instance, hash: string): Promise<SnapshotPatch> {
    return this.withRepository(instance, async (git) => {
      try {
        await git.run(['add', '--all', '.']);
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
      } catch (error) {
        this.logger.warn({ msg: 'snapshot patch failed', hash, error: String(error) });
        return { hash, files: [] };
      }
    });
  }

  diff(instance: Instance, hash: string): Promise<string> {
    return this.withRepository(instance, async (git) => {
      try {
        await git.run(['add', '--all', '.']);
        return (await git.run(['diff', '--no-ext-diff', '--no-renames', hash, '--', '.'])).trim();
      } catch (error) {
        this.logger.warn({ msg: 'snapshot diff failed', hash, error: String(error) });
        return '';
      }
    });
  }

  diffFull(instance: Instance, from: string, to: string): Promise<FileDiff[]> {
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
        for (const name of names.filter((_, i) => !present[i])) {
          await unlink(join(instance.worktree, name)).catch(() => undefined);
        }
      }
    });
  }

  /** Worktree-relative name of a patch file (absolute, as in `PatchPart.files`); undefined outside the worktree. */
  private worktreePath(instance: Instance, file: string): string | undefined {
    const absolute = isAbsolute(file) ? file : join(instance.worktree, file);
    if (!isInside(instance.worktree, absolute) || absolute === instance.worktree) return undefined;
    return relative(instance.worktree, absolute).split(sep).join('/');
  }

  /** Runs `fn` alone on the project's shadow repository, creating the repository on first use. */
  private withRepository<T>(instance: Instance, fn: (git: ShadowGit) => Promise<T>): Promise<T> {
    const gitDir = join(this.settings.dataDir, 'snapshot', instance.project.id);
    const git = new ShadowGit({ gitDir, workTree: instance.worktree });
    return this.repositories.run(gitDir, async () => {
      if (!this.initialized.has(gitDir)) {
        if (!existsSync(join(gitDir, 'HEAD'))) {
          await mkdir(gitDir, { recursive: true });
          await git.run(['init', '--quiet']);
          await git.run(['config', 'core.autocrlf', 'false']);
        }
        this.initialized.add(gitDir);
      }
      return fn(git);
    });
  }
}
