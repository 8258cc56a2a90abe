import { randomBytes } from 'node:crypto';
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Document, YAMLMap } from 'yaml';

/** yaml, loaded when a static configuration is first read (not at start-up). */
const yaml = () => require('yaml') as typeof import('yaml');
const isMap = (node: unknown): node is YAMLMap => yaml().isMap(node);
import { ConflictError } from '../../common/errors';

/** File-system refusals that come from the chosen file or its directory, not from a fault of the server. */
const REFUSALS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'its directory no longer exists',
  ENOTDIR: 'a part of the path is not a directory',
  ENAMETOOLONG: 'the name is too long',
};

function refusal(error: unknown, action: string, file: string): unknown {
  const reason = REFUSALS[(error as NodeJS.ErrnoException).code ?? ''];
  return reason
    ? new ConflictError(`Keel cannot ${action} the Traefik static configuration ${file}: ${reason}`)
    : error;
}

/** A plugin declared under `experimental.plugins.<key>` of Traefik's static configuration. */
export interface DeclaredPlugin {
  key: string;
  moduleName?: string;
  version?: string;
}

/**
 * The `experimental.plugins` key middleware-manager v3 derives from a module name: its last path
 * segment, lower-cased, without `@…`, `.git` or `-plugin` (so both managers agree on the same file).
 */
export function pluginKey(moduleName: string): string {
  let key = moduleName.split('/').pop() ?? '';
  key = key.split('@')[0];
  if (key.endsWith('.git')) key = key.slice(0, -4);
  if (key.endsWith('-plugin')) key = key.slice(0, -7);
  return key.toLowerCase();
}

/**
 * Traefik's static configuration file, edited through yaml's Document API so comments, key order
 * and everything outside `experimental.plugins` stay as they were.
 */
export class TraefikStaticConfig {
  private constructor(
    readonly file: string,
    private readonly document: Document,
    readonly existed: boolean,
  ) {}

  /** Reads `file` (absent: an empty document); a file that is not a YAML mapping is a 409. */
  static async read(file: string): Promise<TraefikStaticConfig> {
    let text = '';
    let existed = true;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') existed = false;
      else if (code === 'EISDIR')
        throw new ConflictError(`The Traefik static configuration path ${file} is a directory`);
      else throw refusal(error, 'read', file);
    }
    const document = yaml().parseDocument(text);
    if (document.errors.length) {
      const first = document.errors[0];
      const line = first.linePos?.[0].line;
      throw new ConflictError(
        `The Traefik static configuration ${basename(file)} is not valid YAML${line ? ` (line ${line})` : ''}: ${first.message.split('\n')[0]}. Fix the file first; Keel leaves it untouched.`,
      );
    }
    if (document.contents !== null && !isMap(document.contents))
      throw new ConflictError(`The Traefik static configuration ${basename(file)} is not a YAML mapping`);
    return new TraefikStaticConfig(file, document, existed);
  }

  private section(path: string[]): YAMLMap | undefined {
    const node = this.document.getIn(path, true);
    if (node === undefined || node === null) return undefined;
    if (!isMap(node)) throw new ConflictError(`${path.join('.')} in ${basename(this.file)} is not a mapping`);
    return node;
  }

  plugins(): DeclaredPlugin[] {
    const plugins = this.section(['experimental', 'plugins']);
    if (!plugins) return [];
    return plugins.items.map((pair) => {
      const key = String((pair.key as { value?: unknown })?.value ?? pair.key);
      const entry = isMap(pair.value) ? (pair.value.toJSON() as Record<string, unknown>) : {};
      return {
        key,
        moduleName: typeof entry.moduleName === 'string' ? entry.moduleName : undefined,
        version: typeof entry.version === 'string' ? entry.version : undefined,
      };
    });
  }

  /** Declares (or re-declares, e.g. another version) the plugin under `key`. */
  declare(key: string, moduleName: string, version: string): void {
    this.section(['experimental']);
    const existing = this.section(['experimental', 'plugins']);
    const current = existing?.get(key, true);
    if (isMap(current)) {
      // Updated in place, so comments on the entry stay.
      current.set('moduleName', moduleName);
      current.set('version', version);
    } else if (existing) {
      existing.flow = false;
      existing.set(key, this.document.createNode({ moduleName, version }));
    } else
      this.document.setIn(
        ['experimental', 'plugins'],
        this.document.createNode({ [key]: { moduleName, version } }),
      );
  }

  /** Removes `key`; false when it was not declared. Emptied `plugins` and `experimental` go too, as v3 does. */
  remove(key: string): boolean {
    const plugins = this.section(['experimental', 'plugins']);
    if (!plugins?.has(key)) return false;
    plugins.delete(key);
    if (plugins.items.length === 0) this.document.deleteIn(['experimental', 'plugins']);
    const experimental = this.section(['experimental']);
    if (experimental && experimental.items.length === 0) this.document.deleteIn(['experimental']);
    return true;
  }

  /** Writes a temporary file beside the target, then renames it over: readers see the old or the new file, never half. */
  async write(): Promise<void> {
    const mode = this.existed
      ? ((await stat(this.file).catch(() => undefined))?.mode ?? 0o644) & 0o777
      : 0o644;
    const temp = join(
      dirname(this.file),
      `.${basename(this.file)}.keel-${randomBytes(6).toString('hex')}.tmp`,
    );
    const text = this.document.contents === null ? '' : this.document.toString({ lineWidth: 0 });
    try {
      await writeFile(temp, text, { mode, flag: 'wx' });
      await rename(temp, this.file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw refusal(error, 'write', this.file);
    }
  }
}
