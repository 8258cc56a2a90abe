import { buildDataSourceOptions, openDataSource, runMigrations, schemaState } from '../database/data-source-options';
import type { KeelSettings } from '../common/settings';
import { CliError } from './cli-error';

/**
 * `keel migrate`: apply pending migrations and exit. `--check` applies nothing and exits 1 when some
 * are pending, naming them (for a deploy step that must not start an outdated schema).
 */
export async function migrate(settings: KeelSettings, { check }: { check: boolean }): Promise<void> {
  // Migration files are found by name (the bundle's own entity list is only for the running server).
  const dataSource = await openDataSource(buildDataSourceOptions(settings, []), { migrate: false });
  try {
    const before = await schemaState(dataSource);
    if (check) {
      if (before.pending.length > 0) throw new CliError(`${before.pending.length} migration(s) pending: ${before.pending.join(', ')}; run keel migrate`, 1);
      process.stdout.write(`schema is current (${before.latest})\n`);
      return;
    }
    if (before.pending.length === 0) {
      process.stdout.write(`nothing to migrate: schema is current (${before.latest})\n`);
      return;
    }
    await runMigrations(dataSource);
    for (const name of before.pending) process.stdout.write(`applied ${name}\n`);
  } finally {
    await dataSource.destroy();
  }
}
