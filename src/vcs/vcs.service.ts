import { Injectable } from '@nestjs/common';
import type { Instance } from '../projects/instance.service';
import {
  ChangedFile,
  ChangeStatus,
  changedSince,
  currentBranch,
  defaultBranch,
  hasHead,
  LineCounts,
  lineCountsSince,
  mergeBase,
  patchSince,
  splitPatches,
  untrackedLineCounts,
  untrackedPatch,
  workingTreeStatus,
} from './vcs-git';

/**
 * `GET /vcs` (opencode 1.18's `VcsInfo`). What it cannot tell is `null`, as the reference answers
 * (its document says optional strings): a detached HEAD, a repository with no branch to compare
 * with, a directory outside git.
 */
export interface VcsInfo {
  branch: string | null;
  default_branch: string | null;
}

/** `GET /vcs/status` entry. */
export interface VcsFileStatus {
  file: string;
  additions: number;
  deletions: number;
  status: ChangeStatus;
}

/** `GET /vcs/diff` entry: the file's unified diff. */
export interface VcsFileDiff extends VcsFileStatus {
  patch: string;
}

/** `working tree against HEAD` or `this branch (and the working tree) against where it left the default branch`. */
export type VcsDiffMode = 'git' | 'branch';

/** Without `context`, opencode shows whole files: git's largest context. */
const WHOLE_FILE = 2147483647;
/** Patch bytes one answer carries, in all and per file; past that a file's patch is left out (header only). */
const MAX_PATCH_BYTES = 10_000_000;

/** What a patch left out looks like: the file named, no hunks (the format opencode uses). */
const patchLeftOut = (file: string) => `===================================================================\n--- ${file}\t\n+++ ${file}\t\n`;

/**
 * The version-control answers of opencode 1.18.33's `Vcs` service for the Instance's directory:
 * branch and default branch, changed files with line counts, and per-file unified diffs of the
 * working tree (staged, unstaged and untracked changes together; renames as a deletion and an
 * addition; binary files as `Binary files … differ` with 0 and 0) against HEAD, or against the merge
 * base with the default branch. Paths are from the repository root, sorted. Outside git every
 * answer is empty.
 */
@Injectable()
export class VcsService {
  async info(instance: Instance): Promise<VcsInfo> {
    if (instance.project.vcs !== 'git') return { branch: null, default_branch: null };
    const [branch, root] = await Promise.all([currentBranch(instance.directory), defaultBranch(instance.directory)]);
    return { branch: branch ?? null, default_branch: root?.name ?? null };
  }

  async status(instance: Instance): Promise<VcsFileStatus[]> {
    if (instance.project.vcs !== 'git') return [];
    const head = await hasHead(instance.directory);
    const [files, counts] = await Promise.all([workingTreeStatus(instance.directory), head ? lineCountsSince(instance.directory, 'HEAD') : new Map<string, LineCounts>()]);
    const result: VcsFileStatus[] = [];
    for (const entry of sortByFile(files)) {
      const lines = counts.get(entry.file) ?? (entry.status === 'added' ? await untrackedLineCounts(instance.worktree, entry.file) : undefined);
      result.push({ file: entry.file, additions: lines?.additions ?? 0, deletions: lines?.deletions ?? 0, status: entry.status });
    }
    return result;
  }

  async diff(instance: Instance, mode: VcsDiffMode, context = WHOLE_FILE): Promise<VcsFileDiff[]> {
    if (instance.project.vcs !== 'git') return [];
    const directory = instance.directory;
    if (mode === 'git') {
      if (await hasHead(directory)) return this.diffAgainst(instance, 'HEAD', context);
      // No commit yet: every file git lists is new.
      return this.collect(instance, undefined, await workingTreeStatus(directory), new Map(), new Map(), false, context);
    }
    const [branch, root] = await Promise.all([currentBranch(directory), defaultBranch(directory)]);
    if (!root || branch === root.name) return [];
    const base = await mergeBase(directory, root.ref);
    return base ? this.diffAgainst(instance, base, context) : [];
  }

  private async diffAgainst(instance: Instance, base: string, context: number): Promise<VcsFileDiff[]> {
    const directory = instance.directory;
    const [tracked, counts, status] = await Promise.all([changedSince(directory, base), lineCountsSince(directory, base), workingTreeStatus(directory)]);
    const files = new Map<string, ChangedFile>();
    for (const entry of [...tracked, ...status.filter((s) => s.code === '??')]) if (!files.has(entry.file)) files.set(entry.file, entry);
    const patches = tracked.length ? await patchSince(directory, base, context, MAX_PATCH_BYTES) : undefined;
    return this.collect(instance, base, [...files.values()], counts, patches ? splitPatches(patches) : new Map(), patches?.truncated ?? false, context);
  }

  private async collect(
    instance: Instance,
    base: string | undefined,
    files: ChangedFile[],
    counts: Map<string, LineCounts>,
    patches: Map<string, string>,
    cut: boolean,
    context: number,
  ): Promise<VcsFileDiff[]> {
    const result: VcsFileDiff[] = [];
    let bytes = 0;
    let full = false;
    for (const entry of sortByFile(files)) {
      const lines = counts.get(entry.file) ?? (entry.status === 'added' ? await untrackedLineCounts(instance.worktree, entry.file) : undefined);
      let patch = full ? patchLeftOut(entry.file) : await this.patchOf(instance, base, entry, patches, cut, context);
      const size = Buffer.byteLength(patch);
      if (!full && bytes + size > MAX_PATCH_BYTES) {
        patch = patchLeftOut(entry.file);
        full = true;
      } else if (!full) {
        bytes += size;
        full = bytes >= MAX_PATCH_BYTES;
      }
      result.push({ file: entry.file, patch, additions: lines?.additions ?? 0, deletions: lines?.deletions ?? 0, status: entry.status });
    }
    return result;
  }

  private async patchOf(instance: Instance, base: string | undefined, entry: ChangedFile, patches: Map<string, string>, cut: boolean, context: number): Promise<string> {
    const known = patches.get(entry.file);
    if (known !== undefined) return known;
    if (entry.code !== '??' && cut) return patchLeftOut(entry.file);
    const out =
      entry.code === '??' || base === undefined
        ? await untrackedPatch(instance.worktree, entry.file, context, MAX_PATCH_BYTES)
        : await patchSince(instance.worktree, base, context, MAX_PATCH_BYTES, entry.file);
    const text = out.truncated ? '' : out.stdout.toString('utf8');
    return text || patchLeftOut(entry.file);
  }
}

/** opencode sorts by `localeCompare`; so does Keel (same order for the paths a repository holds). */
function sortByFile<T extends { file: string }>(files: T[]): T[] {
  return [...files].sort((a, b) => a.file.localeCompare(b.file));
}
