import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip, type Gzip } from 'node:zlib';
import { CanonicalValue, TableChecksum } from './tables';

/**
 * A Keel backup: gzip'd lines of JSON, engine-neutral (a SQLite backup restores into PostgreSQL and the
 * other way round). The first line names it and the schema it was written at; each table's rows follow
 * its `table` line and end with their count and checksum; files of the data directory come as base64
 * chunks; a last `complete` line says nothing was cut off. gzip's own CRC catches damaged bytes.
 */
const FORMAT = 1;

interface BackupHeader {
  keel: 'backup';
  format: number;
  /** The Keel version that wrote it. */
  version: string;
  /** The engine it was taken from. */
  dialect: 'sqlite' | 'postgres';
  /** Migrations applied to the database it was taken from, oldest first: its schema. */
  migrations: string[];
  created: string;
}

interface TableSummary {
  name: string;
  columns: string[];
  rows: number;
  sha256: string;
}

interface BackupManifest {
  header: BackupHeader;
  tables: TableSummary[];
  files: { path: string; size: number }[];
}

/** A backup file that cannot be restored, and why (nothing has been written when this is thrown). */
export class InvalidBackupError extends Error {}

/** Bytes of a file per base64 line. */
const FILE_CHUNK = 256 * 1024;

export class BackupWriter {
  private readonly gzip: Gzip = createGzip({ level: 6 });
  private readonly out: WriteStream;
  private checksum?: TableChecksum;
  private table?: string;

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    this.gzip.pipe(this.out);
  }

  private async line(value: unknown): Promise<void> {
    if (!this.gzip.write(`${JSON.stringify(value)}\n`)) await once(this.gzip, 'drain');
  }

  header(header: Omit<BackupHeader, 'keel' | 'format'>): Promise<void> {
    return this.line({ header: { keel: 'backup', format: FORMAT, ...header } });
  }

  async startTable(name: string, columns: string[]): Promise<void> {
    this.table = name;
    this.checksum = new TableChecksum();
    await this.line({ table: name, columns });
  }

  async rows(rows: CanonicalValue[][]): Promise<void> {
    for (const row of rows) {
      this.checksum!.add(row);
      await this.line(row);
    }
  }

  async endTable(): Promise<{ rows: number; sha256: string }> {
    const summary = { rows: this.checksum!.rows, sha256: this.checksum!.digest() };
    await this.line({ end: this.table, ...summary });
    return summary;
  }

  async file(path: string, data: Buffer): Promise<void> {
    await this.line({ file: path, size: data.length, sha256: createHash('sha256').update(data).digest('hex') });
    for (let at = 0; at < data.length; at += FILE_CHUNK) await this.line({ chunk: data.subarray(at, at + FILE_CHUNK).toString('base64') });
  }

  async complete(): Promise<void> {
    await this.line({ complete: true });
    this.gzip.end();
    await once(this.out, 'close');
  }

  /** Stops writing (the caller removes the partial file). */
  abort(): void {
    this.gzip.destroy();
    this.out.destroy();
  }
}

/** The lines of a gzip'd file; a file that is not gzip, or is cut short, throws InvalidBackupError. */
async function* lines(path: string): AsyncIterable<string> {
  const input = createReadStream(path);
  const gunzip = createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      const text = rest + decoder.write(chunk);
      const parts = text.split('\n');
      rest = parts.pop()!;
      yield* parts;
    }
  } catch (error) {
    if (/unexpected end of file/.test(String(error))) throw new InvalidBackupError(`${path} is truncated: it ends before the backup does`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') throw new InvalidBackupError(`${path} is not a Keel backup (not gzip data, or damaged)`);
    throw error;
  }
  if (rest) yield rest;
}

/** What a reader is told, in file order, once each line has been checked. */
interface BackupVisitor {
  table?(name: string, columns: string[]): Promise<void>;
  rows?(rows: CanonicalValue[][]): Promise<void>;
  endTable?(summary: TableSummary): Promise<void>;
  file?(path: string, data: Buffer): Promise<void>;
}

const ROWS_PER_VISIT = 1000;

/**
 * Reads a backup through, checking every part of it (format, each table's row count and checksum, each
 * file's checksum, the final line), and tells `visitor` what it holds. Throws InvalidBackupError on the
 * first thing wrong. Run once without a visitor to check a file before anything is written.
 */
export async function readBackup(path: string, visitor: BackupVisitor = {}): Promise<BackupManifest> {
  let header: BackupHeader | undefined;
  const tables: TableSummary[] = [];
  const files: { path: string; size: number }[] = [];
  let table: { name: string; columns: string[]; checksum: TableChecksum; pending: CanonicalValue[][] } | undefined;
  let file: { path: string; size: number; sha256: string; parts: Buffer[] } | undefined;
  let complete = false;
  const bad = (why: string) => new InvalidBackupError(`${path} is not a usable Keel backup: ${why}`);
  const flush = async () => {
    if (table?.pending.length) {
      await visitor.rows?.(table.pending);
      table.pending = [];
    }
  };
  for await (const line of lines(path)) {
    if (complete) throw bad('there is more after its last line');
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw header ? bad('a line is not JSON') : new InvalidBackupError(`${path} is not a Keel backup`);
    }
    if (!header) {
      const h = (record as { header?: BackupHeader })?.header;
      if (h?.keel !== 'backup') throw new InvalidBackupError(`${path} is not a Keel backup`);
      if (h.format > FORMAT) throw new InvalidBackupError(`${path} is in backup format ${h.format}, newer than this Keel reads (${FORMAT}): use a newer Keel`);
      header = h;
      continue;
    }
    if (Array.isArray(record)) {
      if (!table) throw bad('a row outside a table');
      table.checksum.add(record as CanonicalValue[]);
      table.pending.push(record as CanonicalValue[]);
      if (table.pending.length >= ROWS_PER_VISIT) await flush();
      continue;
    }
    const r = record as Record<string, unknown>;
    if (typeof r.table === 'string') {
      if (table || file) throw bad(`table ${r.table} starts inside another part`);
      table = { name: r.table, columns: r.columns as string[], checksum: new TableChecksum(), pending: [] };
      await visitor.table?.(table.name, table.columns);
    } else if (typeof r.end === 'string') {
      if (!table || r.end !== table.name) throw bad(`table ${String(r.end)} ends without starting`);
      await flush();
      const summary = { name: table.name, columns: table.columns, rows: table.checksum.rows, sha256: table.checksum.digest() };
      if (summary.rows !== r.rows || summary.sha256 !== r.sha256) throw bad(`table ${table.name} does not match its checksum (${summary.rows} rows read, ${String(r.rows)} written)`);
      tables.push(summary);
      await visitor.endTable?.(summary);
      table = undefined;
    } else if (typeof r.file === 'string') {
      if (table || file) throw bad(`file ${r.file} starts inside another part`);
      if (r.file.split('/').some((part) => part === '..' || part === '') || r.file.startsWith('/')) throw bad(`file name ${r.file} leaves the data directory`);
      file = { path: r.file, size: Number(r.size), sha256: String(r.sha256), parts: [] };
      if (file.size === 0) await endFile();
    } else if (typeof r.chunk === 'string') {
      if (!file) throw bad('file data outside a file');
      file.parts.push(Buffer.from(r.chunk, 'base64'));
      if (file.parts.reduce((n, p) => n + p.length, 0) >= file.size) await endFile();
    } else if (r.complete === true) {
      if (table || file) throw bad('it ends inside a part');
      complete = true;
    } else {
      throw bad('a line it does not know');
    }
  }
  if (!header) throw new InvalidBackupError(`${path} is empty`);
  if (!complete) throw new InvalidBackupError(`${path} is truncated: it ends before the backup does`);
  return { header, tables, files };

  async function endFile(): Promise<void> {
    const data = Buffer.concat(file!.parts);
    if (data.length !== file!.size || createHash('sha256').update(data).digest('hex') !== file!.sha256) throw bad(`file ${file!.path} does not match its checksum`);
    files.push({ path: file!.path, size: file!.size });
    await visitor.file?.(file!.path, data);
    file = undefined;
  }
}
