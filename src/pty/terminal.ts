import type { IPty } from 'node-pty';
import { WebSocket } from 'ws';
import type { PtySettings } from './pty-settings';
import { killProcessTree } from './process-tree';
import { ReplayBuffer } from './replay-buffer';

/** The reference's `Pty` schema. */
export interface PtyInfo {
  id: string;
  title: string;
  command: string;
  args: string[];
  cwd: string;
  status: 'running' | 'exited';
  pid: number;
}

/** Close code for a client dropped because it could not keep up (RFC 6455 "try again later"). */
const CLOSE_TOO_SLOW = 1013;

/**
 * One running terminal: its process, the WebSocket clients attached to it and the output kept
 * while none is. Output reaches every client in order, as text frames of whole characters
 * (node-pty decodes with a stream decoder). A client that cannot keep up pauses the terminal
 * (its program blocks on write, as on a real terminal) for at most the grace period, then is
 * dropped, so it never blocks the others for long nor makes the server buffer without bound.
 */
export class Terminal {
  private readonly clients = new Set<WebSocket>();
  private readonly replay: ReplayBuffer;
  private pending: string[] = [];
  private flushScheduled = false;
  private paused = false;
  private graceTimer?: NodeJS.Timeout;
  private exited = false;

  constructor(
    readonly info: PtyInfo,
    readonly directory: string,
    private readonly pty: IPty,
    private readonly settings: PtySettings,
    onExit: (exitCode: number) => void,
  ) {
    this.replay = new ReplayBuffer(settings.replayBytes);
    pty.onData((text) => this.output(text));
    pty.onExit(({ exitCode }) => {
      this.exited = true;
      this.info.status = 'exited';
      this.flush();
      this.closeClients(1000, 'terminal exited');
      clearTimeout(this.graceTimer);
      onExit(exitCode);
    });
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Attach a client: it first receives what was produced while nobody was attached. */
  attach(socket: WebSocket): void {
    if (this.exited) {
      socket.close(1000, 'terminal exited');
      return;
    }
    // Output still waiting for this tick belongs before the replay is taken.
    this.flush();
    const replay = this.replay.take();
    if (replay) this.send(socket, replay);
    this.clients.add(socket);
    socket.on('message', (data, isBinary) => {
      // Keystrokes and pastes, written as typed; binary frames are taken as UTF-8 text.
      const text = isBinary || typeof data !== 'string' ? Buffer.from(data as Buffer).toString('utf8') : data;
      if (!this.exited) this.pty.write(text);
    });
    socket.on('close', () => this.detach(socket));
    socket.on('error', () => this.detach(socket));
  }

  resize(cols: number, rows: number): void {
    if (!this.exited) this.pty.resize(cols, rows);
  }

  /** Close every client and kill the process tree; the exit callback still runs. */
  kill(): void {
    this.closeClients(1000, 'terminal closed');
    killProcessTree(this.info.pid);
  }

  private detach(socket: WebSocket): void {
    if (this.clients.delete(socket)) this.maybeResume();
  }

  private output(text: string): void {
    this.pending.push(text);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // Coalesce the reads of one I/O turn into one frame: fewer, larger frames, same order.
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
    this.pending = [];
    if (this.clients.size === 0) {
      this.replay.append(text);
      return;
    }
    for (const socket of this.clients) this.send(socket, text);
  }

  private send(socket: WebSocket, text: string): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(text, () => this.maybeResume());
    if (socket.bufferedAmount > this.settings.clientHighWaterBytes) this.pause();
  }

  private pause(): void {
    if (this.paused || this.exited) return;
    this.paused = true;
    this.pty.pause();
    this.graceTimer = setTimeout(() => this.dropSlowClients(), this.settings.slowClientGraceMs);
  }

  private maybeResume(): void {
    if (!this.paused) return;
    const lowWater = this.settings.clientHighWaterBytes / 2;
    for (const socket of this.clients) {
      if (socket.readyState === WebSocket.OPEN && socket.bufferedAmount > lowWater) return;
    }
    this.paused = false;
    clearTimeout(this.graceTimer);
    if (!this.exited) this.pty.resume();
  }

  private dropSlowClients(): void {
    for (const socket of this.clients) {
      if (socket.bufferedAmount > this.settings.clientHighWaterBytes / 2) {
        this.clients.delete(socket);
        socket.close(CLOSE_TOO_SLOW, 'client too slow');
        // A client that stopped reading never completes the closing handshake.
        setTimeout(() => socket.terminate(), 1_000).unref();
      }
    }
    this.maybeResume();
  }

  private closeClients(code: number, reason: string): void {
    for (const socket of this.clients) socket.close(code, reason);
    this.clients.clear();
    this.maybeResume();
  }
}
