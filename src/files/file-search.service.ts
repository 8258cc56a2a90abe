import { Injectable } from '@nestjs/common';
import { join } from 'node:path';
import { AllowedDirectories } from '../common/allowed-directories';
import { issue, ValidationError } from '../common/errors';
import { openInside } from '../common/paths';
import type { Instance } from '../projects/instance.service';
import { looksBinary } from '../tools/builtin/read.tool';
import { fuzzyFilter } from './fuzzy-match';
import { LineMatcher } from './line-matcher';
import type { TextMatch } from './line-matcher';
import { ProjectFileIndex } from './project-file-index';
import { directoriesOf } from './project-files';

/** Matching lines reported per file (the reference passes ripgrep `--max-count=10`). */
const MATCHES_PER_FILE = 10;
/** Matching lines in one answer; the reference has no bound, a response here stays small. */
const MAX_TEXT_MATCHES = 200;
/** Files larger than this are not searched. */
const MAX_SEARCHED_BYTES = 10 * 1024 * 1024;
const BINARY_SAMPLE_BYTES = 8192;
/** Files read concurrently while searching. */
const READ_BATCH = 32;

const isHidden = (path: string) => path.split('/').some((part) => part.startsWith('.') && part.length > 1);

/** opencode 1.18's `FileSystemEntry`. */
export interface FileSystemEntry {
  path: string;
  type: 'file' | 'directory';
}

/**
 * Files are listed and read below the directory's real path, checked against the allowed roots as the
 * request runs, so a link swapped after the directory check is not followed.
 */
@Injectable()
export class FileSearchService {
  constructor(
    private readonly index: ProjectFileIndex,
    private readonly allowed: AllowedDirectories,
  ) {}

  /**
   * Lines matching the regular expression `pattern` (JavaScript syntax, close to ripgrep's for
   * everyday patterns) in the instance's files, in path order.
   */
  async text(instance: Instance, pattern: string): Promise<TextMatch[]> {
    const matcher = LineMatcher.start(pattern, MATCHES_PER_FILE);
    try {
      const realRoot = await this.allowed.real(instance.directory);
      const files = await this.index.files(realRoot, instance.project.vcs === 'git');
      const read = (from: number) => {
        const batch = files.slice(from, from + READ_BATCH);
        return Promise.all(
          batch.map(async (path) => ({
            path,
            text: await searchableText(realRoot, join(realRoot, path)),
          })),
        );
      };
      const results: TextMatch[] = [];
      let next = read(0);
      for (let from = 0; from < files.length; from += READ_BATCH) {
        const batch = (await next).filter((f): f is { path: string; text: string } => f.text !== undefined);
        // Read the next files while the worker matches these.
        next = read(from + READ_BATCH);
        results.push(...(batch.length > 0 ? await matcher.match(batch) : []));
        if (results.length >= MAX_TEXT_MATCHES) return results.slice(0, MAX_TEXT_MATCHES);
      }
      return results;
    } finally {
      await matcher.close();
    }
  }

  /**
   * Files and/or directories (`dir/`) whose path fuzzily matches `query`, best first. An empty query
   * lists files in path order, or directories with hidden ones last, as the reference does.
   */
  async files(
    instance: Instance,
    query: string,
    options: { kind: 'file' | 'directory' | 'all'; limit: number },
  ): Promise<string[]> {
    const realRoot = await this.allowed.real(instance.directory);
    const files = await this.index.files(realRoot, instance.project.vcs === 'git');
    const dirs = directoriesOf(files);
    const term = query.trim();
    const preferHidden = term.startsWith('.') || term.includes('/.');
    const hiddenLast = (items: string[]) =>
      preferHidden ? items : [...items.filter((i) => !isHidden(i)), ...items.filter(isHidden)];
    if (!term) {
      if (options.kind === 'file') return files.slice(0, options.limit);
      return hiddenLast(dirs.sort()).slice(0, options.limit);
    }
    const targets =
      options.kind === 'file' ? files : options.kind === 'directory' ? dirs : [...files, ...dirs];
    if (options.kind !== 'directory') return fuzzyFilter(term, targets, options.limit);
    // Directories: rank a wider window so hidden ones can be moved behind visible matches.
    return hiddenLast(fuzzyFilter(term, targets, preferHidden ? options.limit : options.limit * 20)).slice(
      0,
      options.limit,
    );
  }

  /**
   * opencode's v2 `/api/fs/find` (the 1.18 TUI's `@` completion): the same fuzzy matches as
   * `files`, typed; directories keep their trailing slash. An empty query lists directories, then files.
   */
  async entries(instance: Instance, query: string, options: { type?: 'file' | 'directory'; limit: number | string }): Promise<FileSystemEntry[]> {
    // The reference document types `limit` as a string: a count is checked here.
    const limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new ValidationError([issue(['limit'], 'must be a whole number of at least 1')], { limit: options.limit });
    let paths: string[];
    if (query.trim() || options.type) paths = await this.files(instance, query, { kind: options.type ?? 'all', limit });
    else {
      const [dirs, files] = await Promise.all([this.files(instance, '', { kind: 'directory', limit }), this.files(instance, '', { kind: 'file', limit })]);
      paths = [...dirs, ...files].slice(0, limit);
    }
    return paths.map((path) => ({ path, type: path.endsWith('/') ? 'directory' : 'file' }));
  }
}

/**
 * A file's text when it is worth searching: a regular file (or a symlink whose target stays inside
 * `realRoot`), not larger than MAX_SEARCHED_BYTES, not binary. The file judged is the file read: the
 * check is made on the open handle, so a link swapped in between cannot hand over a file outside.
 */
async function searchableText(realRoot: string, absolute: string): Promise<string | undefined> {
  const handle = await openInside(realRoot, absolute);
  if (handle === undefined || handle === 'outside') return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_SEARCHED_BYTES) return undefined;
    const content = await handle.readFile();
    if (content.length > MAX_SEARCHED_BYTES || looksBinary(content.subarray(0, BINARY_SAMPLE_BYTES))) return undefined;
    return content.toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
