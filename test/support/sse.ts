/** Reads a data-only SSE stream into parsed frames, for asserting on event order. */
export class SseClient {
  readonly frames: unknown[] = [];
  private readonly controller = new AbortController();
  private waiters: { predicate: (f: unknown) => boolean; resolve: (f: unknown) => void }[] = [];
  closed = false;
  readonly done: Promise<void>;
  /** Raw text received, to assert on framing. */
  raw = '';

  constructor(url: string, headers: Record<string, string> = {}) {
    this.done = this.run(url, headers);
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient(url, headers);
    await client.next(() => true);
    return client;
  }

  private async run(url: string, headers: Record<string, string>): Promise<void> {
    try {
      const response = await fetch(url, { headers, signal: this.controller.signal });
      if (!response.body) return;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        this.raw += text;
        buffer += text;
        let index: number;
        while ((index = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, index);
          buffer = buffer.slice(index + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) this.push(JSON.parse(data));
        }
      }
    } catch {
      // aborted or reset: the stream is over
    } finally {
      this.closed = true;
    }
  }

  private push(frame: unknown): void {
    this.frames.push(frame);
    this.waiters = this.waiters.filter((w) => {
      if (!w.predicate(frame)) return true;
      w.resolve(frame);
      return false;
    });
  }

  /** Resolves with the first frame (already received or future) matching `predicate`. */
  next<T = unknown>(predicate: (frame: any) => boolean, timeoutMs = 10_000): Promise<T> {
    const existing = this.frames.find(predicate);
    if (existing) return Promise.resolve(existing as T);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching SSE frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames).slice(0, 2000)}`)), timeoutMs);
      this.waiters.push({
        predicate,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f as T);
        },
      });
    });
  }

  /** Frames whose `type` (or `payload.type`) is `type`. */
  ofType(type: string): any[] {
    return this.frames.filter((f: any) => f?.type === type || f?.payload?.type === type);
  }

  close(): void {
    this.controller.abort();
  }
}
