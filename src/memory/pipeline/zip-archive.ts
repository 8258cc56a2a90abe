import { inflateRawSync } from 'node:zlib';
import { ExtractionError, ExtractionLimits, formatBytes } from './extraction';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** Entries up to this size are not judged by their ratio: a small file of repeated bytes threatens nothing. */
const RATIO_GRACE_BYTES = 1024 * 1024;
/** Levels of archives in archives (the outer one counts) opened to count what they hold; deeper ones are refused. */
const MAX_NESTING = 3;
const NESTED_ARCHIVE = /\.(zip|jar|docx|docm|dotx|xlsx|xlsm|pptx|pptm|odt|ods|odp|epub)$/i;

interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** What the checks count across an archive and the archives nested in it. */
interface Budget {
  bytes: number;
  entries: number;
}

/** A zip container (DOCX, XLSX, ODT, EPUB, …) by its first bytes: a local file header, or the end record of an empty archive. */
export function isZip(data: Uint8Array): boolean {
  return (
    data.length >= 4 &&
    data[0] === 0x50 &&
    data[1] === 0x4b &&
    ((data[2] === 3 && data[3] === 4) || (data[2] === 5 && data[3] === 6))
  );
}

/**
 * A zip archive judged by its central directory before anything is inflated: the declared sizes of
 * all entries (nested archives included), their count and each entry's compression ratio must stay
 * within the limits. Entries are then inflated one at a time, never past the size the directory
 * declared for them, so an archive whose headers lie is stopped at the lie.
 */
export class ZipArchive {
  private readonly entries: Map<string, ZipEntry>;

  private constructor(
    private readonly data: Buffer,
    entries: ZipEntry[],
    /** What the archive is to the user (`DOCX`, `XLSX`, `ZIP archive`): messages name it. */
    private readonly label: string,
  ) {
    this.entries = new Map(entries.map((e) => [e.name, e]));
  }

  /** `budget` and `depth` carry what the outer archives counted into the archives nested in them. */
  static open(
    data: Buffer,
    limits: ExtractionLimits,
    label: string,
    budget: Budget = { bytes: 0, entries: 0 },
    depth = 0,
  ): ZipArchive {
    const archive = new ZipArchive(data, readCentralDirectory(data, limits, label, budget), label);
    // A zip of zips expands layer by layer: what the inner archives declare counts against the same budget.
    for (const entry of archive.entries.values()) {
      if (!NESTED_ARCHIVE.test(entry.name) || !archive.readable(entry)) continue;
      if (depth + 2 > MAX_NESTING)
        throw new ExtractionError(
          `${label} holds archives nested more than ${MAX_NESTING} levels deep (${entry.name})`,
        );
      const inner = archive.read(entry.name);
      if (isZip(inner)) ZipArchive.open(inner, limits, label, budget, depth + 1);
    }
    return archive;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's bytes, inflated to at most the size its directory record declares. */
  read(name: string): Buffer {
    const entry = this.entries.get(name);
    if (!entry) throw new ExtractionError(`${this.label} has no ${name}`);
    if (entry.flags & 1) throw new ExtractionError(`${this.label} is encrypted`);
    const at = entry.localOffset;
    if (at + 30 > this.data.length || this.data.readUInt32LE(at) !== LOCAL_HEADER)
      throw malformed(this.label);
    const start = at + 30 + this.data.readUInt16LE(at + 26) + this.data.readUInt16LE(at + 28);
    const raw = this.data.subarray(start, start + entry.compressedSize);
    if (raw.length < entry.compressedSize) throw malformed(this.label);
    if (entry.method === STORED) {
      if (entry.compressedSize !== entry.size) throw malformed(this.label);
      return raw;
    }
    if (entry.method !== DEFLATED)
      throw new ExtractionError(
        `${this.label} entry ${name} uses compression method ${entry.method}, which Keel does not read`,
      );
    try {
      return inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.size) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new ExtractionError(
          `${this.label} entry ${name} expands past the ${entry.size} bytes its header declares: refused as a decompression bomb (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)`,
        );
      }
      throw new ExtractionError(`${this.label} entry ${name} is corrupt: ${(error as Error).message}`);
    }
  }

  private readable(entry: ZipEntry): boolean {
    return !(entry.flags & 1) && (entry.method === STORED || entry.method === DEFLATED);
  }
}

const malformed = (label: string) => new ExtractionError(`${label} is not a readable ZIP archive`);

/** Offset of the end-of-central-directory record: the last signature within the 64 KiB a comment may take. */
function findEnd(data: Buffer): number {
  for (let at = data.length - 22; at >= Math.max(0, data.length - 22 - 0xffff); at--) {
    if (data.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  return -1;
}

function readCentralDirectory(
  data: Buffer,
  limits: ExtractionLimits,
  label: string,
  budget: Budget,
): ZipEntry[] {
  const end = findEnd(data);
  if (end < 0) throw malformed(label);
  if (data.readUInt16LE(end + 4) !== 0 || data.readUInt16LE(end + 6) !== 0)
    throw new ExtractionError(`${label} spans several disks`);
  let count = data.readUInt16LE(end + 10);
  let size = data.readUInt32LE(end + 12);
  let offset = data.readUInt32LE(end + 16);
  if (
    (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) &&
    end >= 20 &&
    data.readUInt32LE(end - 20) === ZIP64_LOCATOR
  ) {
    const at = Number(data.readBigUInt64LE(end - 20 + 8));
    if (at + 56 > data.length || data.readUInt32LE(at) !== ZIP64_END) throw malformed(label);
    count = Number(data.readBigUInt64LE(at + 32));
    size = Number(data.readBigUInt64LE(at + 40));
    offset = Number(data.readBigUInt64LE(at + 48));
  }
  // The count is known before any entry is read, so a directory of millions of entries costs nothing.
  budget.entries += count;
  if (budget.entries > limits.maxZipEntries)
    throw new ExtractionError(
      `${label} holds more than ${limits.maxZipEntries} files (KEEL_EXTRACT_MAX_ZIP_ENTRIES)`,
    );
  if (offset + size > data.length) throw malformed(label);
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== CENTRAL_HEADER) throw malformed(label);
    const flags = data.readUInt16LE(at + 8);
    const nameLength = data.readUInt16LE(at + 28);
    const extraLength = data.readUInt16LE(at + 30);
    const entry: ZipEntry = {
      name: data.toString(flags & 0x800 ? 'utf8' : 'latin1', at + 46, at + 46 + nameLength),
      flags,
      method: data.readUInt16LE(at + 10),
      compressedSize: data.readUInt32LE(at + 20),
      size: data.readUInt32LE(at + 24),
      localOffset: data.readUInt32LE(at + 42),
    };
    readZip64Sizes(data.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), entry);
    budget.bytes += entry.size;
    if (budget.bytes > limits.maxUncompressedBytes) {
      throw new ExtractionError(
        `${label} expands to more than ${formatBytes(limits.maxUncompressedBytes)} uncompressed (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)`,
      );
    }
    if (entry.size > RATIO_GRACE_BYTES && entry.size > entry.compressedSize * limits.maxRatio) {
      const ratio = Math.round(entry.size / Math.max(1, entry.compressedSize));
      throw new ExtractionError(
        `${label} entry ${entry.name} is compressed ${ratio}:1, more than ${limits.maxRatio}:1 (KEEL_EXTRACT_MAX_RATIO)`,
      );
    }
    entries.push(entry);
    at += 46 + nameLength + extraLength + data.readUInt16LE(at + 32);
  }
  return entries;
}

/** Sizes and offset too large for the 32-bit fields live in the Zip64 extra field (id 1), in this order. */
function readZip64Sizes(extra: Buffer, entry: ZipEntry): void {
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 1) {
      let field = at + 4;
      const next = (): number => {
        if (field + 8 > at + 4 + length || field + 8 > extra.length) return 0xffffffff;
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localOffset === 0xffffffff) entry.localOffset = next();
      return;
    }
    at += 4 + length;
  }
}
