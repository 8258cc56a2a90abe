import type { Request, Response } from 'express';
import type { Subscription } from 'rxjs';

export interface SseOptions {
  heartbeatMs: number;
  /** Bytes the client may lag behind before it is dropped, so a stalled reader never grows memory. */
  maxBufferedBytes: number;
  heartbeat: () => unknown;
}

/**
 * A data-only SSE response (`data: <json>` + blank line), the framing of the reference server.
 * Writes never wait: the socket buffers, and a client that stops reading is disconnected once
 * its backlog passes the bound.
 */
export class SseStream {
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private subscription?: Subscription;
  private readonly closeHandlers: (() => void)[] = [];

  constructor(
    req: Request,
    private readonly res: Response,
    private readonly options: SseOptions,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.socket?.setTimeout(0);
    this.timer = setInterval(() => this.send(options.heartbeat()), options.heartbeatMs);
    this.timer.unref();
    req.on('close', () => this.close());
    res.on('error', () => this.close());
  }

  /** Keep a subscription alive exactly as long as the stream. */
  attach(subscription: Subscription): void {
    if (this.closed) subscription.unsubscribe();
    else this.subscription = subscription;
  }

  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  send(frame: unknown): void {
    if (this.closed) return;
    if (this.res.writableLength > this.options.maxBufferedBytes) {
      this.res.destroy();
      this.close();
      return;
    }
    this.res.write(`data: ${JSON.stringify(frame)}\n\n`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.subscription?.unsubscribe();
    if (!this.res.writableEnded) this.res.end();
    for (const handler of this.closeHandlers) handler();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
