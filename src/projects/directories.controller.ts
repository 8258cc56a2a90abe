import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { existsSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AllowedDirectories } from '../common/allowed-directories';
import { issue, ValidationError } from '../common/errors';
import { isInside } from '../common/paths';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';

/** Entries listed at most per directory (the rest is reported as `truncated`). */
const MAX_ENTRIES = 2000;

interface DirectoryEntry {
  name: string;
  /** Absolute real path: the `?directory=` to open it with. */
  path: string;
  /** Whether it holds a `.git`: a project's likely root. */
  git: boolean;
}

interface DirectoryListing {
  /** The directory listed; null at the top level, which lists the allowed roots. */
  path: string | null;
  /** The allowed root the directory is in (the innermost); null at the top level. */
  root: string | null;
  /** The directory above, when it is still inside an allowed root; null otherwise. */
  parent: string | null;
  directories: DirectoryEntry[];
  truncated: boolean;
}

const ENTRY_SCHEMA = {
  type: 'object',
  required: ['name', 'path', 'git'],
  properties: { name: { type: 'string' }, path: { type: 'string' }, git: { type: 'boolean' } },
};

/**
 * The directories a project may be opened in (the console's directory picker): the allowed roots
 * (`KEEL_ALLOWED_DIRECTORIES`) at the top level, the subdirectories of one of them below. Only what
 * the server may use is listed; a path outside the roots is a 400 naming `path`, whether it exists or not.
 */
@ApiTags('console')
@Controller('keel')
export class DirectoriesController {
  private readonly roots: string[];

  constructor(
    private readonly allowed: AllowedDirectories,
    @Inject(KEEL_SETTINGS) settings: KeelSettings,
  ) {
    this.roots = settings.allowedDirectories;
  }

  @Get('directories')
  @ApiOperation({ summary: 'Directories under the allowed roots, for opening a project (the roots themselves without path)' })
  @ApiQuery({ name: 'path', required: false, description: 'An absolute directory inside an allowed root; absent: the roots' })
  @ApiOkResponse({
    description: 'The listing, directories sorted by name (dot-directories last)',
    schema: {
      type: 'object',
      required: ['path', 'root', 'parent', 'directories', 'truncated'],
      properties: {
        path: { type: 'string', nullable: true },
        root: { type: 'string', nullable: true },
        parent: { type: 'string', nullable: true },
        directories: { type: 'array', items: ENTRY_SCHEMA },
        truncated: { type: 'boolean' },
      },
    },
  })
  @ApiBadRequestResponse({ description: 'path is outside the allowed directories, not a directory, or not absolute' })
  async list(@Query('path') path?: unknown): Promise<DirectoryListing> {
    if (path === undefined || path === '') return { path: null, root: null, parent: null, directories: await this.rootEntries(), truncated: false };
    if (typeof path !== 'string' || !path.startsWith('/') || path.length > 4096 || path.includes('\0'))
      throw new ValidationError([issue(['path'], 'path must be one absolute directory path')], { path });
    const real = await this.allowed.real(path, 'path');
    const entries = await readdir(real, { withFileTypes: true }).catch(() => {
      throw new ValidationError([issue(['path'], 'path cannot be read by the server')], { path });
    });
    const directories: DirectoryEntry[] = [];
    for (const entry of entries) {
      let target = join(real, entry.name);
      if (entry.isSymbolicLink()) {
        // A link is listed where it leads, and only when that is a directory the server may use.
        const resolved = await realpath(target).catch(() => undefined);
        if (!resolved || !(await this.allowed.realLocation(resolved)) || !(await stat(resolved)).isDirectory()) continue;
        target = resolved;
      } else if (!entry.isDirectory()) continue;
      directories.push({ name: entry.name, path: target, git: existsSync(join(target, '.git')) });
    }
    directories.sort((a, b) => Number(a.name.startsWith('.')) - Number(b.name.startsWith('.')) || a.name.localeCompare(b.name));
    const above = dirname(real);
    const parent = above !== real && (await this.allowed.realLocation(above)) ? above : null;
    const root = (await this.rootEntries()).map((r) => r.path).filter((r) => isInside(r, real)).sort((a, b) => b.length - a.length)[0] ?? real;
    return { path: real, root, parent, directories: directories.slice(0, MAX_ENTRIES), truncated: directories.length > MAX_ENTRIES };
  }

  /** The roots that exist, each once (a root and its real path are one). */
  private async rootEntries(): Promise<DirectoryEntry[]> {
    const seen = new Set<string>();
    const out: DirectoryEntry[] = [];
    for (const root of this.roots) {
      const real = await realpath(root).catch(() => undefined);
      if (!real || seen.has(real) || !(await stat(real)).isDirectory()) continue;
      seen.add(real);
      out.push({ name: basename(real) || real, path: real, git: existsSync(join(real, '.git')) });
    }
    return out;
  }
}
