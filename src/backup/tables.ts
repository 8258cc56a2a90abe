import { createHash } from 'node:crypto';

/** A table as it is copied: its name, the columns copied (generated ones left out) and its key. */
export interface TableInfo {
  name: string;
  columns: string[];
  /** Primary-key columns (for a stable order when a table is read). */
  key: string[];
  /** Tables this one's foreign keys point at (copied first). */
  references: string[];
}

/**
 * Tables rebuilt from the others instead of copied (the full-text and vector indexes, which differ per
 * engine: FTS5 and vec0 tables on SQLite, tsvector tables on PostgreSQL), and bookkeeping that is not
 * data (applied migrations, which the schema carries; worker heartbeats; relayed events).
 */
const REBUILT = /^(memory_chunk_fts|memory_entry_fts|memory_chunk_vec|memory_chunk_search|memory_entry_search)/;
const NOT_DATA = new Set(['migrations', 'memory_worker', 'relayed_event', 'typeorm_metadata']);

/** A table or column name quoted for SQL (the same in both dialects). */
export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function isCopied(table: string): boolean {
  return !REBUILT.test(table) && !NOT_DATA.has(table) && !table.startsWith('sqlite_');
}

/** Tables ordered so each comes after the tables its foreign keys reference. */
export function inReferenceOrder(tables: TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  const place = (table: TableInfo, path: Set<string>) => {
    if (placed.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const name of table.references) {
      const referenced = byName.get(name);
      if (referenced && referenced !== table) place(referenced, path);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) place(table, new Set());
  return ordered;
}

/**
 * A value as backups carry it, the same from either engine: booleans as 1/0 (SQLite's form; PostgreSQL
 * takes '1'/'0' for a boolean), bytes as `{"$b64": …}`, numbers and text as they are.
 */
export type CanonicalValue = string | number | null | { $b64: string };

export function canonical(value: unknown): CanonicalValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Buffer.isBuffer(value)) return { $b64: value.toString('base64') };
  if (typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The value a driver binds for a canonical one. */
export function bindable(value: CanonicalValue): string | number | Buffer | null {
  return value !== null && typeof value === 'object' ? Buffer.from(value.$b64, 'base64') : value;
}

/**
 * A table's checksum: SHA-256 over its rows' digests in sorted order, so it does not depend on the
 * order rows are read in (engines sort text differently) and two engines holding the same rows agree.
 */
export class TableChecksum {
  private readonly digests: Buffer[] = [];

  add(row: CanonicalValue[]): void {
    this.digests.push(createHash('sha256').update(JSON.stringify(row)).digest());
  }

  get rows(): number {
    return this.digests.length;
  }

  digest(): string {
    const hash = createHash('sha256');
    for (const d of this.digests.sort(Buffer.compare)) hash.update(d);
    return hash.digest('hex');
  }
}

/** A timestamp's text with the fraction's trailing zeros dropped: `…33.470` and PostgreSQL's `…33.47` are one instant. */
const TIMESTAMP_FRACTION = /^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)(\.\d*?)0*((?:Z|[+-]\d\d(?::?\d\d)?)?)$/;

export function sameInstantText(value: CanonicalValue): CanonicalValue {
  if (typeof value !== 'string' || !value.includes('.')) return value;
  return value.replace(TIMESTAMP_FRACTION, (_, seconds: string, fraction: string, zone: string) => `${seconds}${fraction === '.' ? '' : fraction}${zone}`);
}

/**
 * The checksum that compares a copy with what the target reads back (move and restore). A timestamp
 * written as SQLite's `2026-01-02 03:04:05.470` reads back from PostgreSQL as `…05.47`: the same
 * instant, so timestamp-shaped text is compared without its fraction's trailing zeros. (A backup
 * file's own integrity checksum, TableChecksum, stays exact.)
 */
export class ReadBackChecksum extends TableChecksum {
  override add(row: CanonicalValue[]): void {
    super.add(row.map(sameInstantText));
  }
}
