import { spawn as spawnPty, IPty } from 'node-pty';
import { Terminal } from '@xterm/headless';

/** Keys as a terminal sends them. */
export const KEY = {
  enter: '\r',
  escape: '\x1b',
  tab: '\t',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  backspace: '\x7f',
  ctrlC: '\x03',
  ctrlP: '\x10',
  ctrlX: '\x18',
} as const;

/**
 * A program in a pseudo-terminal whose output is rendered by a headless xterm.js, so a test reads
 * the screen a user would see (text only), not the escape sequences. It answers the terminal queries
 * xterm.js answers (cursor position, device attributes, colours), which full-screen programs wait for.
 */
export class TerminalScreen {
  readonly terminal: Terminal;
  private readonly pty: IPty;
  private exitCode: number | undefined;
  private raw = '';
  private listeners: (() => void)[] = [];

  constructor(file: string, args: string[], options: { cwd: string; env: Record<string, string>; cols?: number; rows?: number }) {
    const cols = options.cols ?? 120;
    const rows = options.rows ?? 40;
    this.terminal = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    this.pty = spawnPty(file, args, { name: 'xterm-256color', cols, rows, cwd: options.cwd, env: options.env });
    // Replies to the program's queries (xterm.js generates them while parsing) go back into the PTY.
    this.terminal.onData((data) => this.pty.write(data));
    this.pty.onData((data) => {
      this.raw += data;
      if (this.raw.length > 1_000_000) this.raw = this.raw.slice(-500_000);
      this.terminal.write(data, () => this.notify());
    });
    this.pty.onExit(({ exitCode }) => {
      this.exitCode = exitCode;
      this.notify();
    });
  }

  get exited(): boolean {
    return this.exitCode !== undefined;
  }

  /** The visible screen, one line per row, right-trimmed. */
  text(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    // Trimmed of any trailing white space (full-screen programs paint blank cells with non-breaking spaces too).
    for (let y = 0; y < this.terminal.rows; y++) lines.push((buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '').replace(/\s+$/, ''));
    return lines.join('\n');
  }

  /**
   * How the first visible occurrence of `text` is drawn (its first cell's colours and inverse flag), or
   * undefined when it is not on screen: which option of a dialog is selected shows only in its style.
   */
  styleOf(text: string): string | undefined {
    const buffer = this.terminal.buffer.active;
    for (let y = 0; y < this.terminal.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      const x = line?.translateToString(false).indexOf(text) ?? -1;
      const cell = x >= 0 ? line!.getCell(x) : undefined;
      if (cell) return `${cell.getBgColorMode()}:${cell.getBgColor()}/${cell.getFgColorMode()}:${cell.getFgColor()}/${cell.isInverse()}`;
    }
    return undefined;
  }

  /** Screen text with runs of spaces collapsed, for matching phrases that wrap around borders. */
  flatText(): string {
    return this.text().replace(/[ \t]+/g, ' ');
  }

  write(data: string): void {
    this.pty.write(data);
  }

  /** Types text one character at a time, as a user does (some prompts react to each key). */
  async type(text: string, delayMs = 15): Promise<void> {
    for (const char of text) {
      this.pty.write(char);
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }

  /**
   * Resolves once the screen satisfies `predicate` (a regular expression on the text, or a
   * function); rejects with the screen after `timeoutMs`, or when the program exits.
   */
  waitFor(predicate: RegExp | ((screen: string) => boolean), timeoutMs = 30_000, label?: string): Promise<string> {
    const test = typeof predicate === 'function' ? predicate : (s: string) => predicate.test(s);
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const screen = this.text();
        if (test(screen)) {
          finish();
          resolve(screen);
          return true;
        }
        if (this.exited) {
          finish();
          reject(new Error(`program exited (${this.exitCode}) before ${label ?? String(predicate)}; screen:\n${screen}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${label ?? String(predicate)}; screen:\n${this.text()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
      };
      const listener = () => void check();
      if (!check()) this.listeners.push(listener);
    });
  }

  /** Output received so far, escape sequences included (for a failing test's message). */
  output(): string {
    return this.raw;
  }

  /** Ends the program (SIGTERM, then SIGKILL) and the terminal. */
  async close(): Promise<void> {
    if (!this.exited) {
      const exited = new Promise<void>((resolve) => this.listeners.push(() => this.exited && resolve()));
      try {
        this.pty.kill('SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          this.pty.kill('SIGKILL');
        } catch {
          // already gone
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
    }
    this.terminal.dispose();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
