import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './keel';
import { TerminalScreen } from './terminal-screen';

/** The opencode TUIs the tests drive, installed by scripts/test-prerequisites.sh into test/clients. */
export type TuiVersion = '1.18.33' | '1.1.11';

const CLIENTS = join(__dirname, '..', 'clients', 'node_modules');

/** The `opencode` executable of a version: the platform package's binary itself (test/clients/package.json). */
export function tuiBinary(version: TuiVersion): string {
  const binary = join(CLIENTS, `opencode-tui-${version}`, 'bin', 'opencode');
  if (!existsSync(binary)) throw new Error(`opencode ${version} is not installed: run \`npm install --prefix test/clients\` (npm test does it)`);
  return binary;
}

export interface Tui {
  screen: TerminalScreen;
  /** The TUI's own HOME (config, state, logs), removed by close(). */
  home: string;
  close(): Promise<void>;
}

/**
 * `opencode attach <url> --dir <directory>` in a pseudo-terminal, with a HOME and XDG directories
 * of its own (nothing of the machine's opencode config or state, nothing left behind), no update
 * check and no model catalogue download: the TUI talks to the server under test only.
 */
export function attachTui(version: TuiVersion, url: string, directory: string, size: { cols?: number; rows?: number } = {}): Tui {
  const home = tempDir(`keel-tui-home-${version}-`);
  const xdg = { XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_STATE_HOME: join(home, '.local', 'state'), XDG_CACHE_HOME: join(home, '.cache') };
  for (const dir of Object.values(xdg)) mkdirSync(dir, { recursive: true });
  const screen = new TerminalScreen(tuiBinary(version), ['attach', url, '--dir', directory], {
    cwd: directory,
    cols: size.cols ?? 120,
    rows: size.rows ?? 40,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      ...xdg,
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      LANG: 'C.UTF-8',
      SHELL: '/bin/sh',
      OPENCODE_DISABLE_AUTOUPDATE: 'true',
      OPENCODE_DISABLE_MODELS_FETCH: 'true',
      OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
    },
  });
  return {
    screen,
    home,
    close: async () => {
      await screen.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
