import { constants, createInflate } from 'node:zlib';
import { ExtractionError, ExtractionLimits, formatBytes } from './extraction';

/** Streams up to this size are not judged by their ratio (as zip entries). */
const RATIO_GRACE_BYTES = 1024 * 1024;
/** How far before `stream` its dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;
// Starts only where a digit run starts, so a run of digits is not retried at each of its positions.
const OBJECT_START = /(?<!\d)(\d+)\s+(\d+)\s+obj\b/g;

/**
 * Counts what a PDF's Flate streams inflate to before pdf.js reads the file, and refuses it past the
 * limits. pdf.js inflates into ArrayBuffers, which no heap limit bounds: a 0.5 MB stream of 512 MB of
 * spaces grew the extraction process by 800 MB. Images are skipped (text extraction never decodes
 * them, and a scanned page legitimately inflates a hundredfold). The count streams through zlib and
 * keeps nothing. What it cannot see (encrypted streams, filter chains, LZW) is bounded by the
 * process's memory limit instead.
 */
export async function checkPdfStreams(data: Buffer, limits: ExtractionLimits): Promise<void> {
  const text = data.toString('latin1');
  const objects = new ObjectIndex(text);
  let total = 0;
  // Each dictionary is looked for after the previous stream, so the scan stays linear in the file.
  let scanned = 0;
  // The next `endstream` found, reused while it lies ahead (-1: there is none), for the same reason.
  let endstream = -2;
  for (let at = text.indexOf('stream'); at >= 0; at = text.indexOf('stream', at + 6)) {
    if (text.startsWith('end', at - 3)) continue;
    // The keyword ends its line (CRLF or LF) and the data starts on the next one.
    const start = text.startsWith('\r\n', at + 6) ? at + 8 : text[at + 6] === '\n' ? at + 7 : -1;
    if (start < 0) continue;
    const dictionary = dictionaryBefore(text, Math.max(scanned, at - DICTIONARY_WINDOW), at);
    scanned = at;
    if (!/\/FlateDecode\b/.test(dictionary) || /\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const length = streamLength(dictionary, objects);
    if (endstream !== -1 && endstream < start) endstream = text.indexOf('endstream', start);
    const end =
      length !== undefined && start + length <= data.length
        ? start + length
        : endstream < 0
          ? data.length
          : endstream;
    total += await inflatedSize(data.subarray(start, end), limits.maxUncompressedBytes - total, limits);
    at = Math.max(at, end - 6);
    scanned = Math.max(scanned, end);
  }
}

/** The text of the object before `stream`, from its `N G obj` (or the whole window when there is none in it). */
function dictionaryBefore(text: string, from: number, at: number): string {
  const window = text.slice(from, at);
  let start = 0;
  for (const match of window.matchAll(OBJECT_START)) start = match.index;
  return window.slice(start);
}

/** `/Length n`, or `/Length n g R` resolved to the number its object holds. */
function streamLength(dictionary: string, objects: ObjectIndex): number | undefined {
  const match = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/.exec(dictionary);
  if (!match) return undefined;
  return match[2] === undefined ? Number(match[1]) : objects.integer(`${match[1]} ${match[2]}`);
}

/** Where each `N G obj` starts, found in one pass the first time an indirect length is asked for. */
class ObjectIndex {
  private offsets?: Map<string, number>;

  constructor(private readonly text: string) {}

  integer(reference: string): number | undefined {
    if (!this.offsets) {
      this.offsets = new Map();
      for (const match of this.text.matchAll(OBJECT_START))
        this.offsets.set(`${match[1]} ${match[2]}`, match.index + match[0].length);
    }
    const at = this.offsets.get(reference);
    if (at === undefined) return undefined;
    const value = /^\s*(\d+)/.exec(this.text.slice(at, at + 32));
    return value ? Number(value[1]) : undefined;
  }
}

/** Bytes `compressed` inflates to, counted chunk by chunk; refused past `budget` or the ratio limit. */
function inflatedSize(compressed: Buffer, budget: number, limits: ExtractionLimits): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
    let size = 0;
    let settled = false;
    const refuse = (message: string) => {
      settled = true;
      inflate.destroy();
      reject(new ExtractionError(message));
    };
    inflate.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > budget)
        refuse(
          `PDF streams expand to more than ${formatBytes(limits.maxUncompressedBytes)} (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)`,
        );
      else if (size > RATIO_GRACE_BYTES && size > compressed.length * limits.maxRatio) {
        refuse(
          `a PDF stream expands more than ${limits.maxRatio} times its compressed size (KEEL_EXTRACT_MAX_RATIO)`,
        );
      }
    });
    // Not zlib data as Node reads it (encrypted, damaged): left to pdf.js, under the memory limit.
    const done = () => {
      if (!settled) resolve(size);
      settled = true;
    };
    inflate.on('end', done);
    inflate.on('error', done);
    inflate.end(compressed);
  });
}
