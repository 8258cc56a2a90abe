import { accessSync, constants, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { consoleDirectory } from '../common/console-static';
import { isDirectory } from '../common/paths';
import { isLoopback, loadSettings } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { KEEL_VERSION } from '../common/version';
import { buildDataSourceOptions, openDataSource, schemaState, SchemaNewerError } from '../database/data-source-options';

interface Finding {
  ok: boolean;
  what: string;
  /** How to fix it, for a problem. */
  fix?: string;
}

const ok = (what: string): Finding => ({ ok: true, what });
const problem = (what: string, fix: string): Finding => ({ ok: false, what, fix });

/** Native modules the package builds when installed (npm runs their install scripts only when allowed). */
const NATIVE_MODULES = ['better-sqlite3', 'node-pty', 'usearch', 'sqlite-vec'];
/** Programs optional features run, and the Debian package that has each. */
const PROGRAMS = [
  { name: 'git', package: 'git', feature: 'snapshots, undo/redo, VCS status and diffs' },
  { name: 'bash', package: 'bash', feature: 'the bash tool and shell commands' },
];

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function writable(dir: string): Finding {
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `.keel-doctor-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
    return ok(`data directory ${dir} is writable`);
  } catch (error) {
    return problem(`data directory ${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'create it and give the user Keel runs as write access, or set KEEL_DATA_DIR');
  }
}

async function database(settings: KeelSettings): Promise<Finding> {
  const file = join(settings.dataDir, 'keel.sqlite');
  const where = settings.databaseUrl ? `PostgreSQL ${new URL(settings.databaseUrl).host}${new URL(settings.databaseUrl).pathname}` : `SQLite ${file}`;
  // Looking must not create it.
  if (!settings.databaseUrl && !existsSync(file)) return ok(`database ${where} does not exist yet: keel serve creates it`);
  try {
    const dataSource = await openDataSource(buildDataSourceOptions(settings, []), { migrate: false });
    try {
      const state = await schemaState(dataSource);
      if (state.pending.length > 0) return ok(`database ${where} answers; ${state.pending.length} migration(s) will be applied at the next start (or now, with keel migrate)`);
      return ok(`database ${where} answers, schema current (${state.latest})`);
    } finally {
      await dataSource.destroy();
    }
  } catch (error) {
    // The database is fine, the code is old: pointing at DATABASE_URL would send the operator the wrong way.
    if (error instanceof SchemaNewerError) {
      const { unknown, latest } = error.state;
      return problem(
        `database ${where} answers, but its schema is newer than this Keel (${KEEL_VERSION}): it has migration ${unknown.at(-1)}, this Keel knows migrations up to ${latest}`,
        `upgrade Keel to the release that wrote it (one that knows ${unknown.at(-1)}; this is ${KEEL_VERSION}, which knows up to ${latest}), or restore into an empty database a backup this version made`,
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return problem(`database ${where}: ${message}`, settings.databaseUrl ? 'check DATABASE_URL and that PostgreSQL is running and reachable' : 'check KEEL_DATA_DIR');
  }
}

function nativeModules(): Finding[] {
  return NATIVE_MODULES.map((name) => {
    try {
      require(name);
      return ok(`native module ${name} loads`);
    } catch (error) {
      return problem(`native module ${name} does not load (${(error as Error).message.split('\n')[0]})`, `reinstall allowing its build: npm install -g --allow-scripts=${NATIVE_MODULES.slice(0, 3).join(',')} <keel package>`);
    }
  });
}

/**
 * `keel doctor`: what a start needs and what optional features need, one line each, ok or a problem
 * with its fix. Reads the same environment and flags as `keel serve`.
 */
export async function diagnose(env: NodeJS.ProcessEnv, argv: string[]): Promise<Finding[]> {
  let settings: KeelSettings;
  try {
    settings = loadSettings(env, argv);
  } catch (error) {
    return [problem(`configuration: ${(error as Error).message}`, 'fix the variable named above (keel --help lists them)')];
  }
  const findings: Finding[] = [ok(`configuration read (bind ${settings.host}:${settings.port})`)];
  if (isLoopback(settings.host)) {
    findings.push(
      settings.serverPassword && settings.apiKeys.length
        ? ok('credentials set (server password and API keys)')
        : ok(`loopback bind: ${settings.serverPassword ? '' : 'no server password, '}${settings.apiKeys.length ? '' : 'no API keys, '}only this machine can connect`),
    );
  } else {
    // loadSettings already refuses a non-loopback bind without both; reaching here means both are set.
    findings.push(ok(`bind ${settings.host} is not loopback, and the server password and API keys are set`));
  }
  findings.push(writable(settings.dataDir));
  findings.push(await database(settings));
  const consoleDir = consoleDirectory(env);
  findings.push(consoleDir ? ok(`console assets in ${consoleDir}`) : problem('console assets not found: /ui/ will answer 404', 'reinstall the package (it ships console/dist), or build it with npm run build in a checkout'));
  for (const root of new Set(settings.allowedDirectories)) {
    findings.push(
      (await isDirectory(root))
        ? ok(`allowed directory ${root} exists`)
        : problem(`allowed directory ${root} does not exist`, 'create it, or fix KEEL_ALLOWED_DIRECTORIES'),
    );
  }
  findings.push(...nativeModules());
  for (const program of PROGRAMS) {
    findings.push(onPath(program.name, env) ? ok(`${program.name} found (${program.feature})`) : problem(`${program.name} not found: ${program.feature} will not work`, `apt-get install ${program.package}`));
  }
  return findings;
}

/** Prints the findings; the exit code is 1 when any is a problem. */
export async function doctor(env: NodeJS.ProcessEnv, argv: string[]): Promise<number> {
  const findings = await diagnose(env, argv);
  for (const f of findings) process.stdout.write(f.ok ? `ok       ${f.what}\n` : `problem  ${f.what}\n         fix: ${f.fix}\n`);
  return findings.some((f) => !f.ok) ? 1 : 0;
}
