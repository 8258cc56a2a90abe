import { isUtf8 } from 'node:buffer';

const EMPTY = Buffer.alloc(0);

/** Byte length of the UTF-8 sequence a lead byte starts (1 for ASCII and for invalid bytes). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

/** Length of the prefix of `data` that ends on a character boundary. */
function wholeCharacters(data: Buffer): number {
  for (let i = data.length - 1; i >= Math.max(0, data.length - 4); i--) {
    if ((data[i] & 0xc0) === 0x80) continue; // continuation byte: look further back
    return i + sequenceLength(data[i]) > data.length ? i : data.length;
  }
  return data.length;
}

/**
 * Cuts raw terminal output into frames a WebSocket may carry as text: whole characters only (a
 * character split across reads waits for its last bytes) and valid UTF-8 (programs may print
 * anything; invalid bytes become U+FFFD, as a decoder would). Valid output is passed through
 * without a decode/encode round trip.
 */
export class Utf8Frames {
  private carry: Buffer = EMPTY;

  /** The whole characters of the carried bytes plus `chunks`; `final` flushes everything. */
  take(chunks: Buffer[], final = false): Buffer {
    const data = this.carry.length === 0 && chunks.length === 1 ? chunks[0] : Buffer.concat([this.carry, ...chunks]);
    const cut = final ? data.length : wholeCharacters(data);
    this.carry = cut === data.length ? EMPTY : Buffer.from(data.subarray(cut));
    const frame = cut === data.length ? data : data.subarray(0, cut);
    return isUtf8(frame) ? frame : Buffer.from(frame.toString('utf8'));
  }
}
