import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib';
import {
  assemblePdf,
  DOCUMENT_XML,
  DOCX_PARTS,
  pdfStream,
  storedEntry,
  zipArchive,
  ZipEntry,
} from './memory-fixtures';

// Hostile files, generated when a test or bench runs (none is committed). Compressed runs are built
// from one compressed megabyte repeated, so a 300 MB bomb takes milliseconds to make.

export const MB = 1024 * 1024;

/**
 * Raw deflate of `before`, `megabytes` times the 1 MB `megabyte`, then `after`. Each piece is deflated
 * on its own with a sync flush (byte-aligned, not final, no reference outside itself), so the
 * megabyte's compressed form can be repeated as is; the last piece ends the stream.
 */
function deflateRun(before: string, megabyte: Buffer, megabytes: number, after: string): Buffer {
  const sync = { level: 9, finishFlush: constants.Z_SYNC_FLUSH };
  const compressed = deflateRawSync(megabyte, sync);
  return Buffer.concat([
    deflateRawSync(Buffer.from(before), sync),
    ...Array<Buffer>(megabytes).fill(compressed),
    deflateRawSync(Buffer.from(after)),
  ]);
}

/** A zip entry of `before` + `megabytes` times `megabyte` + `after`, deflated, with its true size and CRC-32. */
function runEntry(
  name: string,
  before: string,
  megabyte: Buffer,
  megabytes: number,
  after: string,
): ZipEntry {
  let crc = crc32(before);
  for (let i = 0; i < megabytes; i++) crc = crc32(megabyte, crc);
  crc = crc32(after, crc);
  return {
    name,
    method: 8,
    body: deflateRun(before, megabyte, megabytes, after),
    size: Buffer.byteLength(before) + megabytes * MB + Buffer.byteLength(after),
    crc,
  };
}

/** A megabyte of one byte value: deflate shrinks it a thousandfold. */
const repeated = (byte: number) => Buffer.alloc(MB, byte);

/** A megabyte of a 20 KB random block repeated: it deflates about thirtyfold, an ordinary ratio. */
function ordinary(): Buffer {
  const block = Buffer.from(Array.from({ length: 20 * 1024 }, () => Math.floor(Math.random() * 256)));
  return Buffer.concat(Array<Buffer>(Math.ceil(MB / block.length)).fill(block)).subarray(0, MB);
}

function deflatedEntry(name: string, data: Buffer): ZipEntry {
  return { name, method: 8, body: deflateRawSync(data), size: data.length, crc: crc32(data) };
}

/** A Word document whose `document.xml` is one paragraph of `megabytes` MB of text (0.3 MB of file for 300 MB). */
export function docxBomb(megabytes = 300, options: { lie?: boolean } = {}): Buffer {
  const xml = runEntry(
    'word/document.xml',
    `${DOCUMENT_XML.start}<w:p><w:r><w:t>`,
    repeated(0x61),
    megabytes,
    `</w:t></w:r></w:p>${DOCUMENT_XML.end}`,
  );
  // The lying variant states 1,000 bytes in both headers: only inflating it tells the truth.
  return zipArchive([...DOCX_PARTS, xml], (entry) => (options.lie && entry === xml ? 1000 : entry.size));
}

/** A spreadsheet whose one sheet is `megabytes` MB of XML. */
export function xlsxBomb(megabytes = 300): Buffer {
  return zipArchive([
    storedEntry(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    ),
    storedEntry('xl/workbook.xml', '<?xml version="1.0" encoding="UTF-8"?><workbook/>'),
    runEntry(
      'xl/worksheets/sheet1.xml',
      '<?xml version="1.0" encoding="UTF-8"?><worksheet><sheetData><row><c t="inlineStr"><is><t>',
      repeated(0x30),
      megabytes,
      '</t></is></c></row></sheetData></worksheet>',
    ),
  ]);
}

/**
 * A zip of `count` zips of `megabytes` MB each, every entry at an ordinary ratio: no level looks
 * like a bomb, only the sum does (16 × 15 MB inside 0.6 MB).
 */
export function zipOfZips(count = 16, megabytes = 15): Buffer {
  const inner = zipArchive([runEntry('data.bin', '', ordinary(), megabytes, '')]);
  return zipArchive(Array.from({ length: count }, (_, i) => deflatedEntry(`part-${i}.zip`, inner)));
}

/** Zips inside zips `levels` deep, a small text file at the bottom. */
export function nestedZips(levels = 5): Buffer {
  let archive = zipArchive([storedEntry('note.txt', 'at the bottom')]);
  for (let i = 1; i < levels; i++) archive = zipArchive([storedEntry(`level-${i}.zip`, archive)]);
  return archive;
}

/** Adler-32 (zlib's trailer) of `count` bytes of value `byte`, in closed form. */
function adler32OfRun(byte: number, count: number): number {
  const mod = 65521n;
  const n = BigInt(count);
  const a = (1n + n * BigInt(byte)) % mod;
  const b = (n + (BigInt(byte) * n * (n + 1n)) / 2n) % mod;
  return Number((b << 16n) | a);
}

/** A one-page PDF whose content stream is `megabytes` MB of spaces behind FlateDecode (0.5 MB of file for 512 MB). */
export function pdfFlateBomb(megabytes = 512): Buffer {
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler32OfRun(0x20, megabytes * MB));
  const zlibStream = Buffer.concat([
    deflateSync(Buffer.alloc(0)).subarray(0, 2),
    deflateRun('', repeated(0x20), megabytes, ''),
    trailer,
  ]);
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    pdfStream(zlibStream, '/Filter /FlateDecode'),
  ]);
}

/**
 * A PDF of forms drawing forms: each of `depth` levels draws the next `fan` times, the last shows a
 * word, so 2 KB of file asks for `fan ** depth` drawings (a million for 6 × 10).
 */
export function pdfNestedForms(depth = 6, fan = 10): Buffer {
  const form = (k: number) => 6 + k; // object numbers: 1 catalog, 2 pages, 3 page, 4 contents, 5 font, 6… forms
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /X0 ${form(0)} 0 R >> >> >>`,
    pdfStream('/X0 Do'),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  for (let k = 0; k <= depth; k++) {
    const last = k === depth;
    const resources = last ? '/Font << /F1 5 0 R >>' : `/XObject << /X${k + 1} ${form(k + 1)} 0 R >>`;
    const content = last ? 'BT /F1 12 Tf 72 720 Td (deep) Tj ET' : `/X${k + 1} Do `.repeat(fan);
    objects.push(
      pdfStream(content, `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << ${resources} >>`),
    );
  }
  return assemblePdf(objects);
}

/** `levels` nested `<div>`s around a word. */
export function deepHtml(levels = 100_000): Buffer {
  return Buffer.from(`<html><body>${'<div>'.repeat(levels)}deep${'</div>'.repeat(levels)}</body></html>`);
}

/** A page of `paragraphs` one-letter paragraphs (4 MB for a million): the parser's tree of them outgrows the memory limit. */
export function hugeHtml(paragraphs = 1_000_000): Buffer {
  return Buffer.from(`<html><body>${'<p>w'.repeat(paragraphs)}</body></html>`);
}

/** `count` zeros in arrays `depth` deep: pretty-printing indents each by 2 × `depth` spaces (0.5 MB becomes 10.75 M characters). */
export function jsonAmplifier(count = 250_000, depth = 20): Buffer {
  return Buffer.from(`${'['.repeat(depth)}${'0,'.repeat(count - 1)}0${']'.repeat(depth)}`);
}
