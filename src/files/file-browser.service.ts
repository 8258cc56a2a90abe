import { Injectable } from '@nestjs/common';
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { AllowedDirectories } from '../common/allowed-directories';
import { PayloadTooLargeError, ValidationError, issue } from '../common/errors';
import { openInside } from '../common/paths';
import type { Instance } from '../projects/instance.service';
import { looksBinary } from '../tools/builtin/read.tool';
import { formatPatch, parseGitDiff } from './file-patch';
import type { FilePatch } from './file-patch';
import { splitNul } from '../common/git';
import { literalPathspec, runGit } from './git-run';
import { resolveProjectPath } from './project-path';

/** `file.list` entry (reference `FileNode`). */
export interface FileNode {
  name: string;
  path: string;
  absolute: string;
  type: 'file' | 'directory';
  ignored: boolean;
}

/** `file.read` answer (reference `FileContent`): text, or base64 with a MIME type for binary files. */
export interface FileContent {
  type: 'text';
  content: string;
  diff?: string;
  patch?: FilePatch;
  encoding?: 'base64';
  mimeType?: string;
}

/** `file.status` entry (reference `File`). */
export interface FileStatus {
  path: string;
  added: number;
  removed: number;
  status: 'added' | 'deleted' | 'modified';
}

/** Largest file `file.read` returns (a whole file goes into one JSON body). */
const MAX_READ_BYTES = 10 * 1024 * 1024;
/** Untracked files larger than this are reported with 0 added lines instead of being read. */
const MAX_COUNTED_BYTES = 10 * 1024 * 1024;
/** git's hash of the empty tree: the base for status and diffs in a repository without commits. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const HIDDEN_ENTRIES = new Set(['.git', '.DS_Store']);

const MIME_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.bmp': 'image/bmp',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.svg': 'image/svg+xml',
  '.avif': 'image/avif',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.mp4': 'video/mp4',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};
/** Images go out as base64 even when their bytes look like text (SVG), so clients can show them. */
const isImage = (extension: string) => MIME_TYPES[extension]?.startsWith('image/') ?? false;

/**
 * Every read goes through the directory's real path, resolved and checked against the allowed roots
 * when the request runs, so a link swapped after the directory check is not followed.
 */
@Injectable()
export class FileBrowserService {
  constructor(private readonly allowed: AllowedDirectories) {}

  /**
   * The entries of the directory `path` (relative to the instance directory), directories first then
   * by name; `ignored` from the repository's ignore rules. A path that is not a directory lists nothing,
   * as in the reference.
   */
  async list(instance: Instance, path: string): Promise<FileNode[]> {
    const root = await this.allowed.real(instance.directory);
    const dir = await resolveProjectPath(instance.directory, root, path);
    const entries = await readdir(join(root, dir.relative), { withFileTypes: true }).catch(() => []);
    const nodes: FileNode[] = entries
      .filter((entry) => !HIDDEN_ENTRIES.has(entry.name))
      .map((entry) => {
        const relative = dir.relative ? `${dir.relative}/${entry.name}` : entry.name;
        return {
          name: entry.name,
          path: relative,
          absolute: join(dir.absolute, entry.name),
          type: entry.isDirectory() ? 'directory' : 'file',
          ignored: false,
        };
      });
    if (instance.project.vcs === 'git' && nodes.length > 0) {
      // As git names them: a directory with a trailing `/`.
      const gitPath = (node: FileNode) => (node.type === 'directory' ? `${node.path}/` : node.path);
      const ignored = await this.ignoredPaths(root, nodes.map(gitPath));
      for (const node of nodes) node.ignored = ignored.has(gitPath(node));
    }
    return nodes.sort((a, b) =>
      a.type !== b.type ? (a.type === 'directory' ? -1 : 1) : a.name.localeCompare(b.name),
    );
  }

  /**
   * A file's content. Text comes back trimmed (as the reference does); images and binary files come
   * back as base64 with `encoding` and `mimeType`. A text file that differs from HEAD also carries the
   * change as `patch` (full context) and `diff`. A missing file reads as empty text, as in the reference.
   */
  async read(instance: Instance, path: string): Promise<FileContent> {
    const root = await this.allowed.real(instance.directory);
    const file = await resolveProjectPath(instance.directory, root, path);
    const refuse = (message: string) => new ValidationError([issue(['path'], message)], { path });
    // The file checked is the file read: judged on the open handle (a link swapped after
    // resolveProjectPath's check cannot hand over a file outside).
    const handle = await openInside(root, join(root, file.relative));
    if (handle === undefined) return { type: 'text', content: '' };
    if (handle === 'outside') throw refuse('path leads outside the project directory through a symbolic link');
    let bytes: Buffer;
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw refuse('path is a directory');
      if (!info.isFile()) throw refuse('path is not a regular file');
      if (info.size > MAX_READ_BYTES) {
        throw new PayloadTooLargeError(`${path} is ${info.size} bytes; file.read returns files up to ${MAX_READ_BYTES} bytes`, { path });
      }
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
    const extension = extname(file.absolute).toLowerCase();
    if (isImage(extension) || looksBinary(bytes.subarray(0, 8192))) {
      return {
        type: 'text',
        content: bytes.toString('base64'),
        encoding: 'base64',
        mimeType: MIME_TYPES[extension] ?? 'application/octet-stream',
      };
    }
    const content = bytes.toString('utf8').trim();
    if (instance.project.vcs !== 'git' || !(await this.differsFromHead(root, file.relative))) {
      return { type: 'text', content };
    }
    const diff = await runGit(root, [
      'diff',
      '--no-color',
      '--no-ext-diff',
      '--text',
      '--unified=2147483647',
      'HEAD',
      '--',
      literalPathspec(file.relative),
    ]);
    if (diff.code !== 0 || !diff.stdout.trim()) return { type: 'text', content };
    const patch = parseGitDiff(file.relative, diff.stdout);
    return { type: 'text', content, patch, diff: formatPatch(patch) };
  }

  /**
   * Files that differ from HEAD below the instance directory (paths relative to it): staged and
   * unstaged changes with git's added/removed line counts, untracked files as `added` with their line
   * count, deletions as `deleted`. Outside a git repository: none.
   */
  async status(instance: Instance): Promise<FileStatus[]> {
    if (instance.project.vcs !== 'git') return [];
    const dir = await this.allowed.real(instance.directory);
    const base =
      (await runGit(dir, ['rev-parse', '--verify', '--quiet', 'HEAD'])).code === 0 ? 'HEAD' : EMPTY_TREE;
    const [numstat, nameStatus, untracked] = await Promise.all([
      runGit(dir, ['diff', '--numstat', '-z', '--no-renames', '--relative', base]),
      runGit(dir, ['diff', '--name-status', '-z', '--no-renames', '--relative', base]),
      runGit(dir, ['ls-files', '-z', '--others', '--exclude-standard']),
    ]);
    const statuses = new Map<string, FileStatus['status']>();
    const fields = splitNul(nameStatus.stdout);
    for (let i = 0; i + 1 < fields.length; i += 2) {
      statuses.set(fields[i + 1], fields[i] === 'A' ? 'added' : fields[i] === 'D' ? 'deleted' : 'modified');
    }
    const changed: FileStatus[] = [];
    for (const record of splitNul(numstat.stdout)) {
      const [added, removed, path] = record.split('\t');
      // Binary files have "-" counts.
      changed.push({
        path,
        added: Number(added) || 0,
        removed: Number(removed) || 0,
        status: statuses.get(path) ?? 'modified',
      });
    }
    for (const path of splitNul(untracked.stdout)) {
      changed.push({ path, added: await countLines(join(dir, path)), removed: 0, status: 'added' });
    }
    return changed;
  }

  /**
   * Whether the file's content differs from its HEAD version, by comparing blob hashes: a `git diff HEAD`
   * reads the whole HEAD tree (about 0.2 s in a 20,000-file repository), two hashes take milliseconds.
   * A file missing from HEAD differs only when it is staged (new in the index).
   */
  private async differsFromHead(directory: string, relative: string): Promise<boolean> {
    const [head, worktree] = await Promise.all([
      runGit(directory, ['rev-parse', '--verify', '--quiet', `HEAD:./${relative}`]),
      runGit(directory, ['hash-object', '--', relative]),
    ]);
    if (head.code === 0) return worktree.code !== 0 || head.stdout.trim() !== worktree.stdout.trim();
    const staged = await runGit(directory, ['ls-files', '-z', '--', literalPathspec(relative)]);
    return staged.code === 0 && staged.stdout.length > 0;
  }

  /** Which of `paths` (relative to `directory`, directories with a trailing `/`) the ignore rules match. */
  private async ignoredPaths(directory: string, paths: string[]): Promise<Set<string>> {
    // --no-index: judge by the rules alone, as the reference does, even for files git already tracks.
    const result = await runGit(
      directory,
      ['check-ignore', '--no-index', '-z', '--stdin'],
      `${paths.join('\0')}\0`,
    );
    return new Set(result.code === 0 ? splitNul(result.stdout) : []);
  }
}

/** A file's bytes; a symbolic link in its place is not followed (ELOOP), a FIFO does not block. */
async function readAll(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Lines as git counts them for a new file: newline characters, plus an unterminated last line. */
async function countLines(path: string): Promise<number> {
  // lstat: an untracked symlink is not followed, wherever it points.
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_COUNTED_BYTES) return 0;
  const bytes = await readAll(path).catch(() => Buffer.alloc(0));
  if (bytes.length === 0 || looksBinary(bytes.subarray(0, 8192))) return 0;
  let lines = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) lines++;
  return bytes[bytes.length - 1] === 0x0a ? lines : lines + 1;
}
