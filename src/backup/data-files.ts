import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { KeelSettings } from '../common/settings';

/**
 * Files that hold state beside the database, by the names backups give them: provider credentials
 * (`data/auth.json`), the session snapshots' git stores (`data/snapshot/…`, what undo and revert read)
 * and the routing manager's data sources and plugin settings (`routing/config.json`). Vector index
 * files are not among them: they are rebuilt from the database.
 */
function roots(settings: Pick<KeelSettings, 'dataDir' | 'routing'>): { prefix: string; dir: string; only?: string[] }[] {
  return [
    { prefix: 'data', dir: settings.dataDir, only: ['auth.json', 'snapshot'] },
    { prefix: 'routing', dir: settings.routing.configDir, only: ['config.json'] },
  ];
}

function walk(dir: string, names?: string[]): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (names && !names.includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...walk(path));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** The state files that exist now: their backup names and paths. */
export function stateFiles(settings: Pick<KeelSettings, 'dataDir' | 'routing'>): { name: string; path: string }[] {
  return roots(settings).flatMap(({ prefix, dir, only }) =>
    walk(dir, only).map((path) => ({ name: `${prefix}/${relative(dir, path).split(sep).join('/')}`, path })),
  );
}

/** Where a backup's file goes; undefined for a name this Keel does not restore. */
export function statePath(settings: Pick<KeelSettings, 'dataDir' | 'routing'>, name: string): string | undefined {
  const [prefix, ...rest] = name.split('/');
  const root = roots(settings).find((r) => r.prefix === prefix);
  if (!root || !rest.length || (root.only && !root.only.includes(rest[0]))) return undefined;
  return join(root.dir, ...rest);
}

export function readState(path: string): Buffer {
  return statSync(path).size ? readFileSync(path) : Buffer.alloc(0);
}

/**
 * Files restored into a staging directory first, then moved into place once the database is in:
 * an interrupted restore leaves none of them where Keel reads them.
 */
export class StagedFiles {
  private readonly staged: { from: string; to: string }[] = [];

  constructor(private readonly staging: string) {}

  add(path: string, data: Buffer): void {
    const from = join(this.staging, String(this.staged.length));
    mkdirSync(this.staging, { recursive: true });
    writeFileSync(from, data, { mode: 0o600 });
    this.staged.push({ from, to: path });
  }

  moveIntoPlace(): void {
    for (const { from, to } of this.staged) {
      mkdirSync(dirname(to), { recursive: true });
      try {
        renameSync(from, to);
      } catch (error) {
        // The routing config directory may be on another file system than the staging directory.
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        copyFileSync(from, to);
      }
    }
    this.discard();
  }

  discard(): void {
    rmSync(this.staging, { recursive: true, force: true });
  }
}
