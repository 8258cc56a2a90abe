import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BackupWriter, InvalidBackupError, readBackup } from '../backup/backup-file';
import { readState, StagedFiles, stateFiles, statePath } from '../backup/data-files';
import { openSnapshot } from '../backup/database-snapshot';
import { DatabaseWriter } from '../backup/database-writer';
import { CanonicalValue, ReadBackChecksum } from '../backup/tables';
import type { KeelSettings } from '../common/settings';
import { KEEL_VERSION } from '../common/version';
import type { DatabaseTarget } from '../database/data-source-options';
import { CliError } from './cli-error';

const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const where = (target: DatabaseTarget) => (target.databaseUrl ? `PostgreSQL ${new URL(target.databaseUrl).host}${new URL(target.databaseUrl).pathname}` : `SQLite in ${target.dataDir}`);

/**
 * `keel backup <file>`: one consistent snapshot of the database (taken while the server may go on
 * writing: everything acknowledged before the backup began is in it) and the state files beside it.
 * Written to `<file>.partial`, renamed when complete: a file under the name asked for is always whole.
 */
export async function backup(settings: KeelSettings, file: string): Promise<void> {
  if (existsSync(file)) throw new CliError(`${file} already exists: choose another name (a backup never overwrites a file)`);
  const started = Date.now();
  const snapshot = await openSnapshot(settings).catch((error: Error) => {
    throw new CliError(`cannot read the database (${where(settings)}): ${error.message}`);
  });
  const partial = `${file}.partial`;
  const writer = new BackupWriter(partial);
  let rows = 0;
  try {
    const migrations = await snapshot.migrations();
    if (!migrations.length) throw new CliError(`${where(settings)} holds no Keel database to back up`);
    await writer.header({ version: KEEL_VERSION, dialect: snapshot.dialect, migrations, created: new Date().toISOString() });
    const tables = await snapshot.tables();
    for (const table of tables) {
      await writer.startTable(table.name, table.columns);
      for await (const batch of snapshot.rows(table)) await writer.rows(batch);
      rows += (await writer.endTable()).rows;
    }
    const files = stateFiles(settings);
    for (const { name, path } of files) await writer.file(name, readState(path));
    await writer.complete();
    renameSync(partial, file);
    say(`backup ${file}: ${tables.length} tables, ${rows} rows, ${files.length} files, ${megabytes(statSync(file).size)} in ${seconds(started)} (schema ${migrations.at(-1)})`);
  } catch (error) {
    writer.abort();
    rmSync(partial, { force: true });
    throw error;
  } finally {
    await snapshot.close();
  }
}

/**
 * `keel restore <file> [--force]`: into an empty data directory or database (with --force, replacing
 * what is there). The whole file is checked before anything is written; the database is written all or
 * nothing (see DatabaseWriter), then the state files are put in place. An older backup is upgraded by
 * this Keel's newer migrations, as an older database is at start.
 */
export async function restore(settings: KeelSettings, file: string, { force }: { force: boolean }): Promise<void> {
  const started = Date.now();
  if (!existsSync(file)) throw new CliError(`${file} does not exist`);
  const manifest = await readBackup(file).catch((error: unknown) => {
    throw error instanceof InvalidBackupError ? new CliError(`${error.message}; nothing was written`) : error;
  });
  const occupant = (await DatabaseWriter.occupant(settings)) ?? stateFiles(settings).map((f) => `${f.path} exists`)[0];
  if (occupant && !force) throw new CliError(`${occupant}: restore into an empty data directory or database, or pass --force to replace it`);
  const target = await DatabaseWriter.open(settings, { replace: force });
  const staged = new StagedFiles(join(settings.dataDir, `.restoring-${process.pid}`));
  try {
    const schema = target.migrationsFor(manifest.header.migrations);
    if (!schema) {
      throw new CliError(
        `${file} was written by a newer Keel (${manifest.header.version}, schema ${manifest.header.migrations.at(-1)}); this Keel ${KEEL_VERSION} knows migrations up to ${target.knownMigrations().at(-1)?.name ?? ''}: restore it with a newer Keel. Nothing was written`,
      );
    }
    await target.createSchema(schema, manifest.tables.map((t) => t.name));
    const copied = new Map<string, string[]>();
    const read = new Map<string, ReadBackChecksum>();
    let keep: number[] = [];
    let table = '';
    await readBackup(file, {
      table: async (name, columns) => {
        const present = new Set(await target.columnsOf(name));
        if (!present.size) throw new CliError(`${file} holds table ${name}, which its schema does not have`);
        keep = columns.map((c, i) => (present.has(c) ? i : -1)).filter((i) => i >= 0);
        table = name;
        copied.set(name, keep.map((i) => columns[i]));
        read.set(name, new ReadBackChecksum());
      },
      rows: (rows) => {
        for (const row of rows) read.get(table)!.add(row);
        return target.insert(table, copied.get(table)!, keep.length === rows[0]?.length ? rows : rows.map((row) => keep.map((i) => row[i])));
      },
      file: (name, data) => {
        const path = statePath(settings, name);
        if (path) staged.add(path, data);
        return Promise.resolve();
      },
    });
    await target.finishRows();
    // Compared with the rows as the backup holds them (readBackup checked those against its manifest).
    await verify(target, manifest.tables.filter((t) => copied.get(t.name)?.length === t.columns.length), (t) => {
      const checksum = read.get(t.name) ?? new ReadBackChecksum();
      return { rows: checksum.rows, sha256: checksum.digest() };
    });
    const upgraded = await target.upgrade();
    await target.commit();
    staged.moveIntoPlace();
    const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
    say(`restored ${file} into ${where(settings)}: ${manifest.tables.length} tables, ${rows} rows, ${manifest.files.length} files in ${seconds(started)}${upgraded.length ? `; upgraded through ${upgraded.at(-1)}` : ''}`);
  } catch (error) {
    await target.abandon();
    staged.discard();
    if (error instanceof CliError) throw error;
    throw new CliError(`restore failed, nothing was written (${(error as Error).message.split('\n')[0]}); fix that and run keel restore again`);
  }
}

/** Every table's rows, read back from the target, against what was copied. */
async function verify<T extends { name: string; columns: string[] }>(target: DatabaseWriter, tables: T[], expected: (t: T) => { rows: number; sha256: string }): Promise<void> {
  for (const table of tables) {
    const got = await target.checksum(table.name, table.columns);
    const want = expected(table);
    if (got.rows !== want.rows || got.digest() !== want.sha256) throw new Error(`table ${table.name} does not read back as written (${got.rows} rows, ${want.rows} expected)`);
  }
}

/**
 * `keel move --to postgres://…`: every table of this database (SQLite, usually) copied into an empty
 * PostgreSQL database in one transaction, the search and vector indexes rebuilt as PostgreSQL needs,
 * each table's row count and checksum compared before it commits. Keel then runs on the target with
 * DATABASE_URL set to it. Writes made while it runs stay behind: stop the server first.
 */
export async function move(settings: KeelSettings, url: string): Promise<void> {
  const started = Date.now();
  if (!/^postgres(ql)?:\/\//.test(url)) throw new CliError('--to must be a PostgreSQL URL (postgres://user@host:5432/database)');
  const destination: DatabaseTarget = { dataDir: settings.dataDir, databaseUrl: url };
  if (settings.databaseUrl === url) throw new CliError('--to names the database Keel already uses');
  const occupant = await DatabaseWriter.occupant(destination).catch((error: Error) => {
    throw new CliError(`cannot reach ${url.replace(/\/\/[^@]*@/, '//')}: ${error.message}`);
  });
  if (occupant) throw new CliError(`${occupant}: keel move writes only into an empty database (create one with createdb)`);
  const snapshot = await openSnapshot(settings).catch((error: Error) => {
    throw new CliError(`cannot read the database (${where(settings)}): ${error.message}`);
  });
  const target = await DatabaseWriter.open(destination, { replace: false });
  try {
    const migrations = await snapshot.migrations();
    if (!migrations.length) throw new CliError(`${where(settings)} holds no Keel database to move`);
    const schema = target.migrationsFor(migrations);
    if (!schema) throw new CliError(`${where(settings)} was written by a newer Keel (schema ${migrations.at(-1)}): move it with that version`);
    const tables = await snapshot.tables();
    await target.createSchema(schema, tables.map((t) => t.name));
    const moved: { name: string; columns: string[]; rows: number; sha256: string }[] = [];
    for (const table of tables) {
      const present = new Set(await target.columnsOf(table.name));
      const keep = table.columns.map((c, i) => (present.has(c) ? i : -1)).filter((i) => i >= 0);
      const columns = keep.map((i) => table.columns[i]);
      const checksum = new ReadBackChecksum();
      for await (const batch of snapshot.rows(table)) {
        const rows: CanonicalValue[][] = keep.length === table.columns.length ? batch : batch.map((row) => keep.map((i) => row[i]));
        for (const row of rows) checksum.add(row);
        await target.insert(table.name, columns, rows);
      }
      moved.push({ name: table.name, columns, rows: checksum.rows, sha256: checksum.digest() });
    }
    await target.finishRows();
    await verify(target, moved, (t) => t);
    const upgraded = await target.upgrade();
    await target.commit();
    for (const t of moved.filter((m) => m.rows > 0)) say(`  ${t.name}: ${t.rows} rows, checksum ok`);
    say(
      `moved ${moved.reduce((n, t) => n + t.rows, 0)} rows in ${moved.length} tables from ${where(settings)} to ${where(destination)} in ${seconds(started)}${upgraded.length ? ` (upgraded through ${upgraded.at(-1)})` : ''}.`,
    );
    say(`Now start Keel with DATABASE_URL=${url.replace(/\/\/[^@]*@/, '//…@')}`);
  } catch (error) {
    await target.abandon();
    if (error instanceof CliError) throw error;
    throw new CliError(`move failed, nothing was written to the target (${(error as Error).message.split('\n')[0]}); fix that and run keel move again`);
  } finally {
    await snapshot.close();
  }
}
