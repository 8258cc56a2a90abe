import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { IPty } from 'node-pty';
import { resolve } from 'node:path';
import { AllowedDirectories } from '../common/allowed-directories';
import { issue, NotFoundError, ValidationError } from '../common/errors';
import { ascendingId } from '../common/ids';
import { EventBus } from '../events/event-bus.service';
import { Metrics } from '../observability/metrics.service';
import { Instance, InstanceService } from '../projects/instance.service';
import { KEEL_SETTINGS } from '../common/settings';
import type { KeelSettings } from '../common/settings';
import type { PtySettings } from './pty-settings';
import { PtyInfo, Terminal } from './terminal';

export interface CreatePtyInput {
  command?: string;
  args?: string[];
  cwd?: string;
  title?: string;
  env?: Record<string, string>;
}

export interface UpdatePtyInput {
  title?: string;
  size?: { rows: number; cols: number };
}

/** Server secrets a terminal's environment does not inherit. */
const SECRET_ENV = ['KEEL_SERVER_PASSWORD', 'OPENCODE_SERVER_PASSWORD', 'KEEL_API_KEYS', 'DATABASE_URL'];

/** The largest terminal side accepted by a resize (node-pty and the kernel take 16-bit sizes). */
const MAX_TERMINAL_SIDE = 10_000;

/**
 * Terminals of each directory's instance. They live in memory only (a process does not survive a
 * restart); instance disposal and server shutdown kill them with their whole process tree.
 */
@Injectable()
export class PtyService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly byDirectory = new Map<string, Map<string, Terminal>>();
  /** Last resort when the server dies without a shutdown: no orphan shells. */
  private readonly killAllOnExit = () => this.killAll();
  private readonly settings: PtySettings;

  constructor(
    private readonly instances: InstanceService,
    private readonly bus: EventBus,
    private readonly allowed: AllowedDirectories,
    private readonly metrics: Metrics,
    @Inject(KEEL_SETTINGS) keel: KeelSettings,
  ) {
    this.settings = keel.pty;
  }

  onModuleInit(): void {
    this.metrics.sample('keel_pty_open', 'Open terminals', () => {
      let open = 0;
      for (const terminals of this.byDirectory.values()) open += terminals.size;
      return open;
    });
    this.instances.onDispose((directory) => this.killDirectory(directory));
    process.once('exit', this.killAllOnExit);
  }

  beforeApplicationShutdown(): void {
    process.off('exit', this.killAllOnExit);
    this.killAll();
  }

  async create(instance: Instance, input: CreatePtyInput): Promise<PtyInfo> {
    const { cwd, real } = await this.workingDirectory(instance, input.cwd);
    const id = ascendingId('pty');
    const command = input.command ?? (process.env.SHELL || '/bin/sh');
    // The user's shell starts as a login shell, as in a terminal emulator.
    const args = input.command === undefined ? [...(input.args ?? []), '-l'] : [...(input.args ?? [])];
    // node-pty (a native addon, ~2.5 MB) is loaded with the first terminal.
    const { spawn } = require('node-pty') as typeof import('node-pty');
    let child: IPty;
    try {
      child = spawn(command, args, { name: 'xterm-256color', cols: 80, rows: 24, cwd: real, env: this.environment(input.env), encoding: null });
    } catch (error) {
      throw new ValidationError([issue(['command'], `cannot start: ${(error as Error).message}`)], { command });
    }
    const info: PtyInfo = {
      id,
      title: input.title ?? `Terminal ${id.slice(-4)}`,
      command,
      args,
      cwd,
      status: 'running',
      pid: child.pid,
    };
    const terminal = new Terminal(info, instance.directory, child, this.settings, (exitCode) => this.exited(terminal, exitCode));
    this.terminals(instance.directory, true).set(id, terminal);
    this.bus.publish(instance.directory, 'pty.created', { info: { ...info } });
    return { ...info };
  }

  list(directory: string): PtyInfo[] {
    return [...this.terminals(directory).values()].map((t) => ({ ...t.info }));
  }

  get(directory: string, id: string): PtyInfo {
    return { ...this.terminal(directory, id).info };
  }

  update(directory: string, id: string, input: UpdatePtyInput): PtyInfo {
    const terminal = this.terminal(directory, id);
    if (input.size) {
      const { rows, cols } = input.size;
      const bad = (['rows', 'cols'] as const).filter((k) => !Number.isInteger(input.size![k]) || input.size![k] < 1 || input.size![k] > MAX_TERMINAL_SIDE);
      if (bad.length > 0) {
        throw new ValidationError(
          bad.map((k) => issue(['size', k], `must be an integer between 1 and ${MAX_TERMINAL_SIDE}`)),
          input,
        );
      }
      terminal.resize(cols, rows);
    }
    if (input.title !== undefined) terminal.info.title = input.title;
    this.bus.publish(directory, 'pty.updated', { info: { ...terminal.info } });
    return { ...terminal.info };
  }

  /** Kill the terminal's process tree and close its clients. */
  remove(directory: string, id: string): void {
    const terminal = this.terminal(directory, id);
    this.terminals(directory).delete(id);
    terminal.kill();
    this.bus.publish(directory, 'pty.deleted', { id });
  }

  /** The running terminal a WebSocket attaches to. */
  terminal(directory: string, id: string): Terminal {
    const terminal = this.terminals(directory).get(id);
    if (!terminal) throw new NotFoundError(`PTY session not found: ${id}`, { ptyID: id });
    return terminal;
  }

  private exited(terminal: Terminal, exitCode: number): void {
    const terminals = this.terminals(terminal.directory);
    // Deleted or disposed terminals are already gone; their exit is not news.
    if (terminals.get(terminal.info.id) !== terminal) return;
    terminals.delete(terminal.info.id);
    this.bus.publish(terminal.directory, 'pty.exited', { id: terminal.info.id, exitCode });
  }

  private killDirectory(directory: string): void {
    const terminals = this.byDirectory.get(directory);
    if (!terminals) return;
    this.byDirectory.delete(directory);
    for (const terminal of terminals.values()) terminal.kill();
  }

  private killAll(): void {
    for (const directory of [...this.byDirectory.keys()]) this.killDirectory(directory);
  }

  private terminals(directory: string, create = false): Map<string, Terminal> {
    let terminals = this.byDirectory.get(directory);
    if (!terminals) {
      terminals = new Map();
      if (create) this.byDirectory.set(directory, terminals);
    }
    return terminals;
  }

  /**
   * `cwd` (relative to the instance directory) must be an existing directory whose real path is inside
   * the allowed roots; the instance directory itself is checked again when no `cwd` is given. The
   * terminal starts in the real path (a link swapped after the check leads nowhere) and reports `cwd`
   * as named.
   */
  private async workingDirectory(instance: Instance, requested: string | undefined): Promise<{ cwd: string; real: string }> {
    if (requested === undefined) return { cwd: instance.directory, real: await this.allowed.real(instance.directory) };
    const cwd = resolve(instance.directory, requested);
    return { cwd, real: await this.allowed.real(cwd, 'cwd', requested) };
  }

  private environment(extra: Record<string, string> | undefined): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && !SECRET_ENV.includes(key)) env[key] = value;
    }
    return { ...env, ...extra, TERM: 'xterm-256color' };
  }
}
