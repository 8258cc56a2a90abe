import type { IPty } from 'node-pty';
import { WebSocket } from 'ws';
import type { PtySettings } from './pty-settings';
import { killProcessTree } from './process-tree';
import { ReplayBuffer } from './replay-buffer';
import { Utf8Frames } from './utf8-frames';

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
 * (cut by Utf8Frames). A client that cannot keep up pauses the terminal
 * (its program blocks on write, as on a real terminal) for at most the grace period, then is
 * dropped, so it never blocks the others for long nor makes the server buffer without bound.
 */
export class Terminal {
  private readonly clients = new Set<WebSocket>();
  private readonly replay: ReplayBuffer;
  private readonly frames = new Utf8Frames();
  private pending: Buffer[] = [];
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
    // Spawned with `encoding: null`: raw bytes, framed on character boundaries by Utf8Frames.
    pty.onData((data) => this.output(data as unknown as Buffer));
    pty.onExit(({ exitCode }) => {
      this.exited = true;
      this.info.status = 'exited';
      this.flush(true);
      this.closeClients(1000, 'terminal exited');
      clearTimeout(this.graceTimer);
      onExit(exitCode);
    });
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
    if (replay.length > 0) this.send(socket, replay);
    this.clients.add(socket);
    // Keystrokes and pastes, written as typed: the frame's bytes (text or binary) go to the terminal.
    socket.on('message', (data: Buffer) => {
      if (!this.exited) this.pty.write(data);
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

  private output(data: Buffer): void {
    this.pending.push(data);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // Coalesce the reads of one I/O turn into one frame: fewer, larger frames, same order.
      setImmediate(() => this.flush());
    }
  }

  private flush(final = false): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 && !final) return;
    const frame = this.frames.take(this.pending, final);
    this.pending = [];
    if (frame.length === 0) return;
    if (this.clients.size === 0) {
      this.replay.append(frame);
      return;
    }
    for (const socket of this.clients) this.send(socket, frame);
  }

  /** A text frame: `frame` is valid UTF-8 already, so it goes out without re-encoding. */
  private send(socket: WebSocket, frame: Buffer): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(frame, { binary: false }, () => this.maybeResume());
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
