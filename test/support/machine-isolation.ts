import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Jest globalSetup/globalTeardown for the e2e suites: the machine's own opencode config must not
 * reach a test. The global config dir (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`),
 * `~/.opencode` and the `OPENCODE_*` variables would otherwise be merged into every test's config,
 * so the run gets an empty home and config home, and those variables are unset. This runs in Jest's
 * parent process before any worker starts, so `os.homedir()` (which reads the real environment, not
 * a test file's copy of `process.env`) sees it too. Tests that need global config set their own
 * XDG_CONFIG_HOME (test/support/config-home.ts).
 */
const ROOT_VARIABLE = 'KEEL_TEST_MACHINE_ROOT';

export default function isolateFromMachine(): void {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'keel-machine-')));
  for (const dir of ['home', 'config']) mkdirSync(join(root, dir));
  process.env[ROOT_VARIABLE] = root;
  // Kept for the tests that run npm as the machine's user does (its npmrc, its cache): test/package.
  process.env.KEEL_TEST_REAL_HOME ??= process.env.HOME;
  process.env.HOME = join(root, 'home');
  process.env.XDG_CONFIG_HOME = join(root, 'config');
  for (const name of ['OPENCODE_CONFIG', 'OPENCODE_CONFIG_CONTENT', 'OPENCODE_CONFIG_DIR', 'OPENCODE_PERMISSION']) delete process.env[name];
}

export function removeMachineRoot(): void {
  const root = process.env[ROOT_VARIABLE];
  if (root) rmSync(root, { recursive: true, force: true });
}
