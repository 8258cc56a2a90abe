import type { Request, Response } from 'express';
import type { Subscription } from 'rxjs';
import { logStreamOpened } from '../common/request-log';

export interface SseOptions<T> {
  heartbeatMs: number;
  /** Bytes the client may lag behind before it is dropped, so a stalled reader never grows memory. */
  maxBufferedBytes: number;
  heartbeat: () => T;
  /** The complete frame of an item (`data: <json>\n\n`). */
  render: (item: T) => string;
  /** Its size without rendering it, for items that may be rendered late (immutable ones only). */
  estimate: (item: T) => number | undefined;
}

/** Rendered bytes handed to the socket before waiting for it to drain. */
const SOCKET_HIGH_WATER = 256 * 1024;

/**
 * A data-only SSE response (`data: <json>` + blank line), the framing of the reference server.
 * Publishing never waits. Frames are rendered when sent, except items with an `estimate` (streamed
 * part updates, whose objects are never mutated once published): for a client that reads slower
 * than they come those wait as objects (each text shares its storage with the next one) and are
 * rendered when the socket has room, since their frames, each carrying the whole text so far,
 * add up to O(n²) bytes. A client whose backlog passes the bound is disconnected.
 */
export class SseStream<T extends object> {
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private subscription?: Subscription;
  private readonly closeHandlers: (() => void)[] = [];
  /** Frames already rendered, or streamed items rendered when their turn comes. */
  private queue: (string | T)[] = [];
  private head = 0;
  private queuedBytes = 0;
  private waitingForDrain = false;

  constructor(
    req: Request,
    private readonly res: Response,
    private readonly options: SseOptions<T>,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.flushHeaders();
    logStreamOpened(req, res);
    res.socket?.setNoDelay(true);
    res.socket?.setTimeout(0);
    this.timer = setInterval(() => this.send(options.heartbeat()), options.heartbeatMs);
    this.timer.unref();
    req.on('close', () => this.abort());
    res.on('error', () => this.abort());
    res.on('drain', () => {
      this.waitingForDrain = false;
      this.pump();
    });
  }

  /** Keep a subscription alive exactly as long as the stream. */
  attach(subscription: Subscription): void {
    if (this.closed) subscription.unsubscribe();
    else this.subscription = subscription;
  }

  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  send(item: T): void {
    if (this.closed) return;
    const estimate = this.options.estimate(item);
    const frame = estimate === undefined ? this.options.render(item) : undefined;
    const size = frame?.length ?? estimate!;
    if (this.res.writableLength + this.queuedBytes + size > this.options.maxBufferedBytes) {
      this.res.destroy();
      this.abort();
      return;
    }
    if (this.head === this.queue.length && !this.waitingForDrain && this.res.writableLength < SOCKET_HIGH_WATER) {
      this.res.write(frame ?? this.options.render(item));
      return;
    }
    this.queue.push(frame ?? item);
    this.queuedBytes += size;
    this.pump();
  }

  /** Ends the response once everything sent so far is written. */
  close(): void {
    if (this.closed) return;
    while (this.head < this.queue.length) this.res.write(this.dequeue());
    this.finish();
  }

  /** The client is gone: drop what it had not received. */
  private abort(): void {
    if (this.closed) return;
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
    this.finish();
  }

  private finish(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.subscription?.unsubscribe();
    if (!this.res.writableEnded) this.res.end();
    for (const handler of this.closeHandlers) handler();
  }

  private pump(): void {
    while (!this.waitingForDrain && this.head < this.queue.length) {
      // Past the bound the last write returned false, so the response will emit 'drain'.
      if (this.res.writableLength >= SOCKET_HIGH_WATER) this.waitingForDrain = true;
      else this.res.write(this.dequeue());
    }
  }

  private dequeue(): string {
    const entry = this.queue[this.head];
    this.queue[this.head++] = '';
    const frame = typeof entry === 'string' ? entry : this.options.render(entry);
    this.queuedBytes -= typeof entry === 'string' ? frame.length : this.options.estimate(entry)!;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      this.queuedBytes = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return frame;
  }
}
