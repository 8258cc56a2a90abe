import { deflateSync } from 'node:zlib';
import { deepHtml, jsonAmplifier, MB, pdfFlateBomb } from '../../../test/support/hostile-files';
import { assemblePdf, makePdf, pdfStream } from '../../../test/support/memory-fixtures';
import { extract, htmlToText, MAX_HTML_DEPTH } from './content-extractor';
import { ExtractionLimits } from './extraction';
import { checkPdfStreams } from './pdf-streams';

const limits: ExtractionLimits = {
  maxUncompressedBytes: 200 * MB,
  maxRatio: 100,
  maxZipEntries: 10_000,
  maxTextChars: 10_000_000,
};

describe('htmlToText nesting bound', () => {
  it(`refuses elements nested more than ${MAX_HTML_DEPTH} deep, before parsing`, () => {
    expect(() => htmlToText(deepHtml(100_000).toString())).toThrow(
      `HTML nests elements more than ${MAX_HTML_DEPTH} deep`,
    );
    expect(htmlToText(deepHtml(MAX_HTML_DEPTH - 2).toString()).text).toBe('deep');
  });

  it('does not take unclosed paragraphs and items, void elements or script text for nesting', () => {
    const sloppy = `<body>${'<p>para'.repeat(2000)}<ul>${'<li>item'.repeat(2000)}</ul>${'<br><img src=x>'.repeat(2000)}<script>${'<div>'.repeat(2000)}</script></body>`;
    expect(htmlToText(sloppy).text).toContain('para');
  });
});

describe('checkPdfStreams', () => {
  it('refuses a Flate stream that inflates past the ratio limit, counting without keeping the bytes', async () => {
    const before = process.memoryUsage().rss;
    await expect(checkPdfStreams(pdfFlateBomb(512), limits)).rejects.toThrow(
      'a PDF stream expands more than 100 times its compressed size (KEEL_EXTRACT_MAX_RATIO)',
    );
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * MB);
  });

  it('refuses streams that together inflate past the uncompressed limit', async () => {
    await expect(
      checkPdfStreams(pdfFlateBomb(8), { ...limits, maxRatio: 10_000, maxUncompressedBytes: 4 * MB }),
    ).rejects.toThrow('PDF streams expand to more than 4 MB (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)');
  });

  it('passes ordinary PDFs, and leaves images (which text extraction never decodes) uncounted', async () => {
    await expect(
      checkPdfStreams(makePdf('Narwhals live in Arctic waters.'), limits),
    ).resolves.toBeUndefined();
    const blankPage = deflateSync(Buffer.alloc(8 * MB, 0xff));
    const scanned = assemblePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [] /Count 0 >>',
      pdfStream(
        blankPage,
        '/Type /XObject /Subtype /Image /Width 2048 /Height 4096 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode',
      ),
    ]);
    await expect(checkPdfStreams(scanned, limits)).resolves.toBeUndefined();
  });
});

describe('extract output bound', () => {
  it('refuses text longer than the limit, also when pretty-printing JSON makes it so', async () => {
    await expect(
      extract({ source: 'text', content: 'x'.repeat(101) }, { ...limits, maxTextChars: 100 }),
    ).rejects.toThrow('The extracted text is longer than 100 characters (KEEL_EXTRACT_MAX_TEXT_CHARS)');
    const json = jsonAmplifier();
    expect(json.length).toBeLessThan(limits.maxTextChars);
    await expect(
      extract(
        { source: 'file', data: json, name: 'zeros.json', mime: 'application/json', fileType: null },
        limits,
      ),
    ).rejects.toThrow(/KEEL_EXTRACT_MAX_TEXT_CHARS/);
  });
});
