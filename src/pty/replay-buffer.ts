/**
 * Terminal output produced while no client is attached: the newest `limit` bytes (UTF-8), kept
 * as whole characters so the replay never starts in the middle of one.
 */
export class ReplayBuffer {
  private chunks: string[] = [];
  private bytes = 0;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.bytes;
  }

  append(text: string): void {
    if (this.limit <= 0 || text.length === 0) return;
    this.chunks.push(text);
    this.bytes += Buffer.byteLength(text);
    this.trim();
  }

  /** Everything kept, emptied: only the next client gets the replay. */
  take(): string {
    const text = this.chunks.join('');
    this.chunks = [];
    this.bytes = 0;
    return text;
  }

  private trim(): void {
    while (this.bytes > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0];
      const firstBytes = Buffer.byteLength(first);
      const excess = this.bytes - this.limit;
      if (firstBytes <= excess) {
        this.chunks.shift();
        this.bytes -= firstBytes;
        continue;
      }
      const encoded = Buffer.from(first);
      let start = excess;
      // Skip UTF-8 continuation bytes (10xxxxxx): start on a character boundary.
      while (start < encoded.length && (encoded[start] & 0xc0) === 0x80) start++;
      const kept = encoded.subarray(start).toString('utf8');
      this.chunks[0] = kept;
      this.bytes -= firstBytes - (encoded.length - start);
    }
  }
}
