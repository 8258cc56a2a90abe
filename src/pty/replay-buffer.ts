/**
 * Terminal output produced while no client is attached: the newest `limit` bytes, cut on a
 * character boundary so the replay never starts in the middle of one (frames are valid UTF-8).
 */
export class ReplayBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly limit: number) {}

  append(frame: Buffer): void {
    if (this.limit <= 0 || frame.length === 0) return;
    this.chunks.push(frame);
    this.bytes += frame.length;
    this.trim();
  }

  /** Everything kept, emptied: only the next client gets the replay. */
  take(): Buffer {
    const replay = Buffer.concat(this.chunks);
    this.chunks = [];
    this.bytes = 0;
    return replay;
  }

  private trim(): void {
    while (this.bytes > this.limit) {
      const first = this.chunks[0];
      const excess = this.bytes - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
        continue;
      }
      let start = excess;
      // Skip UTF-8 continuation bytes (10xxxxxx): start on a character boundary.
      while (start < first.length && (first[start] & 0xc0) === 0x80) start++;
      // A copy, so the dropped part of a large read is not kept alive.
      this.chunks[0] = Buffer.from(first.subarray(start));
      this.bytes -= start;
    }
  }
}
