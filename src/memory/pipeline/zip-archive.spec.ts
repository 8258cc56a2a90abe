import { deflateRawSync } from 'node:zlib';
import { docxBomb, MB, nestedZips, zipOfZips } from '../../../test/support/hostile-files';
import { makeDocx, storedEntry, zipArchive } from '../../../test/support/memory-fixtures';
import { ExtractionError, ExtractionLimits } from './extraction';
import { isZip, ZipArchive } from './zip-archive';

const limits: ExtractionLimits = {
  maxUncompressedBytes: 200 * MB,
  maxRatio: 100,
  maxZipEntries: 100,
  maxTextChars: 1e7,
};

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ExtractionError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('ZipArchive', () => {
  it('reads stored and deflated entries', () => {
    const text = 'Beluga whales sing. '.repeat(100);
    const deflated = {
      name: 'b.txt',
      method: 8 as const,
      body: deflateRawSync(text),
      size: text.length,
      crc: 0,
    };
    const archive = ZipArchive.open(
      zipArchive([storedEntry('a.txt', 'stored'), deflated]),
      limits,
      'ZIP archive',
    );
    expect(archive.read('a.txt').toString()).toBe('stored');
    expect(archive.read('b.txt').toString()).toBe(text);
    expect(archive.has('missing')).toBe(false);
    expect(isZip(makeDocx('x'))).toBe(true);
    expect(isZip(Buffer.from('%PDF-1.4'))).toBe(false);
  });

  it('refuses by the central directory alone: declared total, entry count and ratio', () => {
    expect(refusal(() => ZipArchive.open(docxBomb(300), limits, 'DOCX'))).toBe(
      'DOCX expands to more than 200 MB uncompressed (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)',
    );
    const many = zipArchive(Array.from({ length: 101 }, (_, i) => storedEntry(`f${i}.txt`, 'x')));
    expect(refusal(() => ZipArchive.open(many, limits, 'XLSX'))).toBe(
      'XLSX holds more than 100 files (KEEL_EXTRACT_MAX_ZIP_ENTRIES)',
    );
    expect(refusal(() => ZipArchive.open(docxBomb(20), limits, 'DOCX'))).toMatch(
      /^DOCX entry word\/document\.xml is compressed \d+:1, more than 100:1 \(KEEL_EXTRACT_MAX_RATIO\)$/,
    );
  });

  it('stops an entry whose headers lie at the size they declare', () => {
    const archive = ZipArchive.open(docxBomb(300, { lie: true }), limits, 'DOCX');
    expect(archive.read('_rels/.rels').toString()).toContain('officeDocument');
    expect(refusal(() => archive.read('word/document.xml'))).toBe(
      'DOCX entry word/document.xml expands past the 1000 bytes its header declares: refused as a decompression bomb (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)',
    );
  });

  it('counts what nested archives hold, and refuses nesting past three levels', () => {
    expect(refusal(() => ZipArchive.open(zipOfZips(16, 15), limits, 'ZIP archive'))).toBe(
      'ZIP archive expands to more than 200 MB uncompressed (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)',
    );
    expect(() => ZipArchive.open(zipOfZips(2, 15), limits, 'ZIP archive')).not.toThrow();
    expect(refusal(() => ZipArchive.open(nestedZips(4), limits, 'ZIP archive'))).toBe(
      'ZIP archive holds archives nested more than 3 levels deep (level-1.zip)',
    );
    expect(() => ZipArchive.open(nestedZips(3), limits, 'ZIP archive')).not.toThrow();
  });

  it('refuses what is not a whole archive', () => {
    const docx = makeDocx('text');
    expect(refusal(() => ZipArchive.open(docx.subarray(0, docx.length - 30), limits, 'DOCX'))).toBe(
      'DOCX is not a readable ZIP archive',
    );
    expect(refusal(() => ZipArchive.open(Buffer.from('PK\x03\x04 nothing else'), limits, 'DOCX'))).toBe(
      'DOCX is not a readable ZIP archive',
    );
  });
});
