import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SETTING_GROUPS } from '../common/setting-catalog';
import { loadSettings } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import { SchemaNewerError } from '../database/data-source-options';
import { KEEL_VERSION as version } from '../common/version';
import { CliError } from './cli-error';
import { serve } from './serve';

const COMMANDS = `Usage:
  keel [serve] [--port <n>] [--hostname <host>] [--cors <origin>]... [--log-level <level>] [--print-logs]
                                  start the server (the default command)
                                  --port, --hostname, --cors, --log-level: as KEEL_PORT, KEEL_HOST,
                                  KEEL_CORS (added to it), KEEL_LOG_LEVEL below
                                  --print-logs: accepted as opencode serve takes it; Keel always
                                  writes its logs (JSON lines) to stdout
  keel migrate [--check]          apply pending database migrations and exit
                                  (--check: apply nothing, exit 1 when some are pending)
  keel doctor                     check the installation and configuration, one line each
  keel backup <file>              write a consistent backup, also while the server runs
  keel restore <file> [--force]   restore a backup into an empty data directory or database
  keel move --to <postgres-url>   copy everything from this SQLite database to PostgreSQL
  keel --version                  print the version
  keel --help                     print this help`;

/**
 * `keel --help`: the commands, then every setting with its flag, default and meaning, then where the
 * documentation is (the package root is two folders up from src/cli, dist/cli and dist/bundle alike).
 */
function helpText(): string {
  const lines = [`keel ${version}: opencode-compatible session server, supermemory-compatible memory API and Traefik middleware manager`, '', COMMANDS, '', 'Settings (environment variables; a flag overrides its variable):'];
  for (const group of SETTING_GROUPS) {
    lines.push('', `  ${group.title}`);
    for (const s of group.settings) {
      const names = [s.env, ...(s.aliases ?? []), ...(s.flag ? [s.flag] : [])].join(', ');
      lines.push(`    ${names}  [default: ${s.default}]`, `        ${s.description}`);
    }
  }
  const root = join(__dirname, '..', '..');
  lines.push(
    '',
    `Documentation, shipped in this package: ${join(root, 'README.md')} and ${join(root, 'docs')}/`,
    '  (configuration.md: every setting; operations.md: install, upgrade, backup and restore, move to PostgreSQL;',
    '  deploying.md, security.md, organizations.md, sessions.md, memory.md, routing.md, console.md).',
    'The running server describes its API at /doc (OpenAPI JSON) and /docs (a browsable page).',
  );
  return `${lines.join('\n')}\n`;
}

function settings(argv: string[]): KeelSettings {
  try {
    return loadSettings(process.env, argv);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
}

/** Options of `keel serve`, as the reference's `opencode serve` takes them (`--port=0` or `--port 0`). */
function serveOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    options: { port: { type: 'string' }, hostname: { type: 'string' }, cors: { type: 'string', multiple: true }, 'log-level': { type: 'string' }, 'print-logs': { type: 'boolean' } },
    strict: true,
  }).values;
}

/**
 * The operator's commands, loaded when one runs: `keel serve` (every start) does without the backup
 * and copy machinery, the doctor's checks and the migration tooling.
 */
const commands = {
  backup: () => require('./backup') as typeof import('./backup'),
  doctor: () => require('./doctor') as typeof import('./doctor'),
  migrate: () => require('./migrate') as typeof import('./migrate'),
};

/** Runs one command; resolves to the process exit code (`serve` resolves once listening, and keeps running). */
export async function runCli(argv: string[]): Promise<number | undefined> {
  const [first, ...rest] = argv;
  const command = first === undefined || first.startsWith('-') ? 'serve' : first;
  const args = command === first ? rest : argv;
  if (args.includes('--help') || args.includes('-h') || command === 'help') {
    process.stdout.write(helpText());
    return 0;
  }
  if (args.includes('--version') || args.includes('-v') || command === 'version') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  switch (command) {
    case 'serve': {
      const logLevel = serveOptions(args)['log-level'];
      if (logLevel !== undefined) process.env.KEEL_LOG_LEVEL = logLevel.toLowerCase();
      await serve(settings(args));
      return undefined;
    }
    case 'migrate': {
      const { values } = parseArgs({ args, options: { check: { type: 'boolean', default: false } }, strict: true });
      await commands.migrate().migrate(settings([]), { check: values.check === true });
      return 0;
    }
    case 'doctor': {
      parseArgs({ args, options: {}, strict: true });
      return commands.doctor().doctor(process.env, []);
    }
    case 'backup': {
      const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
      if (positionals.length !== 1) throw new CliError('keel backup takes one argument: the file to write', 2);
      await commands.backup().backup(settings([]), positionals[0]);
      return 0;
    }
    case 'restore': {
      const { values, positionals } = parseArgs({ args, options: { force: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
      if (positionals.length !== 1) throw new CliError('keel restore takes one argument: the backup file to read', 2);
      await commands.backup().restore(settings([]), positionals[0], { force: values.force === true });
      return 0;
    }
    case 'move': {
      const { values } = parseArgs({ args, options: { to: { type: 'string' } }, strict: true });
      if (!values.to) throw new CliError('keel move needs --to <postgres://…>', 2);
      await commands.backup().move(settings([]), values.to);
      return 0;
    }
    default:
      throw new CliError(`unknown command "${command}" (keel --help lists the commands)`, 2);
  }
}

/** One line on stderr for what went wrong, and its exit code. */
export function reportFailure(error: unknown): number {
  if (error instanceof CliError || error instanceof SchemaNewerError) {
    process.stderr.write(`keel: ${error.message}\n`);
    return error instanceof CliError ? error.exitCode : 3;
  }
  const message = error instanceof Error ? error.message : String(error);
  // parseArgs' own errors name the unknown option or the missing value.
  process.stderr.write(`keel: ${message.split('\n')[0]}\n`);
  return (error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
}
