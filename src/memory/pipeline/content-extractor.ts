import { parse as parseHtml, HTMLElement } from 'node-html-parser';
import { checkTextLength, ExtractionError, ExtractionJob, ExtractionLimits, Extracted, looksLikeHtml, looksLikeJson, plainText } from './extraction';
import { checkPdfStreams } from './pdf-streams';
import { isZip, ZipArchive } from './zip-archive';

// Every parser here reads untrusted bytes, so this module runs only in the extraction process
// (extraction-child.ts), under its memory and time limits; the server never loads it.

const HTML_DROP = 'script, style, noscript, template, svg, nav, header, footer, aside, form, iframe, button';

/**
 * Elements nested deeper than this are refused, as deep as Chromium's parser nests: node-html-parser
 * recurses once per level when it collects text, and its stack runs out near 10,000.
 */
export const MAX_HTML_DEPTH = 512;

/** Characters kept of a title: a title is a line, whatever a page puts in its `<title>`. */
const MAX_TITLE_CHARS = 1000;

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements whose content the parser takes as text, so tags inside them do not nest; each with the search for its end tag. */
const TEXT_ELEMENTS = new Map(['script', 'style', 'noscript', 'pre'].map((name) => [name, new RegExp(`</${name}`, 'ig')]));
/** An open element the parser closes when one of these opens inside it (node-html-parser's rules). */
const CLOSED_BY_OPENING: Record<string, string[]> = {
  li: ['li'],
  p: ['p', 'div'],
  b: ['div'],
  td: ['td', 'th', 'tr', 'tbody', 'tfoot'],
  th: ['td', 'th', 'tr', 'tbody', 'tfoot'],
  tr: ['tr', 'tbody', 'tfoot'],
  thead: ['tbody', 'tfoot'],
  tbody: ['tbody', 'tfoot'],
  dt: ['dt', 'dd'],
  dd: ['dt', 'dd'],
  ...Object.fromEntries(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((h) => [h, [h]])),
};

/**
 * Whether elements nest deeper than `max`, by one linear pass over the tags (no regular expression
 * that could backtrack): an end tag closes up to the nearest open element of its name, as lenient
 * parsers do, so sloppy pages with unclosed paragraphs or items are not taken for deep ones.
 */
function htmlNestsDeeperThan(html: string, max: number): boolean {
  const open: string[] = [];
  const openCount = new Map<string, number>();
  const pop = () => {
    const name = open.pop()!;
    openCount.set(name, openCount.get(name)! - 1);
    return name;
  };
  let at = 0;
  while ((at = html.indexOf('<', at)) >= 0) {
    if (html.startsWith('<!--', at)) {
      const end = html.indexOf('-->', at + 4);
      if (end < 0) break;
      at = end + 3;
      continue;
    }
    const closing = html[at + 1] === '/';
    const name = /^[a-zA-Z][-.:0-9_a-zA-Z]*/.exec(html.slice(at + (closing ? 2 : 1), at + 66))?.[0].toLowerCase();
    if (!name) {
      at++;
      continue;
    }
    const end = html.indexOf('>', at);
    if (end < 0) break;
    if (closing) {
      if (openCount.get(name)) while (pop() !== name);
    } else if (TEXT_ELEMENTS.has(name)) {
      const endTag = TEXT_ELEMENTS.get(name)!;
      endTag.lastIndex = end;
      const close = endTag.exec(html);
      if (!close) break;
      at = close.index;
      continue;
    } else if (!VOID_ELEMENTS.has(name) && html[end - 1] !== '/') {
      while (open.length > 0 && CLOSED_BY_OPENING[open[open.length - 1]]?.includes(name)) pop();
      open.push(name);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (open.length > max) return true;
    }
    at = end + 1;
  }
  return false;
}

/** Readability-style text: the main/article element when there is one, boilerplate removed, blocks kept apart. */
export function htmlToText(html: string): { text: string; title?: string } {
  const tooDeep = () => new ExtractionError(`HTML nests elements more than ${MAX_HTML_DEPTH} deep`);
  if (htmlNestsDeeperThan(html, MAX_HTML_DEPTH)) throw tooDeep();
  try {
    const root = parseHtml(html, { blockTextElements: { script: false, style: false, noscript: false, pre: true } });
    const title = root.querySelector('title')?.text.trim() || root.querySelector('h1')?.text.trim() || undefined;
    for (const node of root.querySelectorAll(HTML_DROP)) node.remove();
    const main: HTMLElement = root.querySelector('article') ?? root.querySelector('main') ?? root.querySelector('body') ?? root;
    const text = main.structuredText
      .split('\n')
      .map((line) => line.replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join('\n');
    return { text, title };
  } catch (error) {
    // The parser nests some markup the scan above does not count (it keeps ignored end tags open).
    if (error instanceof RangeError && /call stack/.test(error.message)) throw tooDeep();
    throw error;
  }
}

/** Plain text of a JSON document: pretty-printed, so keys and values are searchable words. */
function jsonToText(text: string): string | undefined {
  if (!looksLikeJson(text)) return undefined;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON, or nested too deep to print: kept as the text it is.
    return undefined;
  }
}

/** Text, markdown, HTML or JSON sent as a string. */
function extractText(content: string): Extracted {
  if (looksLikeHtml(content)) return { ...htmlToText(content), type: 'text' };
  const json = jsonToText(content);
  if (json !== undefined) return { text: json, type: 'text' };
  return plainText(content);
}

async function pdfText(data: Buffer, limits: ExtractionLimits): Promise<string> {
  await checkPdfStreams(data, limits);
  // Loaded on the first PDF only (pdf.js is most of this process's start-up).
  const { PDFParse } = require('pdf-parse') as typeof import('pdf-parse');
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    return (await parser.getText()).text;
  } catch (error) {
    throw new ExtractionError(`Could not read the PDF: ${(error as Error).message}`);
  } finally {
    await parser.destroy();
  }
}

async function docxText(archive: ZipArchive): Promise<string> {
  const mammoth = require('mammoth') as typeof import('mammoth'); // loaded on the first DOCX only
  // mammoth reads parts through this object instead of its own unzip, so every part is inflated by
  // ZipArchive, within the sizes its directory declared.
  const file = {
    exists: (name: string) => archive.has(name),
    read: (name: string, encoding?: string) => {
      const data = archive.read(name);
      return Promise.resolve(encoding === 'base64' ? data.toString('base64') : encoding ? new TextDecoder(encoding).decode(data) : data);
    },
  };
  try {
    const result = await mammoth.extractRawText({ file } as unknown as Parameters<typeof mammoth.extractRawText>[0]);
    return result.value;
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    throw new ExtractionError(`Could not read the DOCX: ${(error as Error).message}`);
  }
}

type FileKind = 'pdf' | 'docx' | 'html' | 'json' | 'text' | 'unsupported';

/** Decide how to read a file from its forced type, MIME type, name and leading bytes. */
function fileKind(name: string | null, mime: string | null, fileType: string | null, head: Buffer): FileKind {
  const ext = (name ?? '').toLowerCase().split('.').pop() ?? '';
  const m = (mime ?? '').toLowerCase();
  if (fileType === 'pdf' || head.subarray(0, 5).toString('latin1') === '%PDF-' || m === 'application/pdf' || ext === 'pdf') return 'pdf';
  if (m.includes('wordprocessingml') || ext === 'docx') return 'docx';
  if (fileType === 'webpage' || m === 'text/html' || ext === 'html' || ext === 'htm') return 'html';
  if (m === 'application/json' || ext === 'json') return 'json';
  if (fileType === 'text' || m.startsWith('text/') || ['txt', 'md', 'markdown', 'csv', 'log'].includes(ext)) return 'text';
  if (!m || m === 'application/octet-stream') {
    // No declared type: text when the bytes are valid UTF-8 without NULs.
    const sample = head.subarray(0, 4096);
    if (!sample.includes(0) && Buffer.from(sample.toString('utf8'), 'utf8').equals(sample)) return 'text';
  }
  return 'unsupported';
}

/** What a zip container is called in messages: its extension (`DOCX`, `XLSX`, …) or `ZIP archive`. */
function archiveLabel(name: string | null): string {
  const ext = /\.([a-z0-9]{1,5})$/i.exec(name ?? '')?.[1];
  return ext && ext.toLowerCase() !== 'zip' ? ext.toUpperCase() : 'ZIP archive';
}

async function extractFile(data: Buffer, name: string | null, mime: string | null, fileType: string | null, limits: ExtractionLimits): Promise<Extracted> {
  const kind = fileKind(name, mime, fileType, data.subarray(0, 4096));
  const title = name ?? undefined;
  // Every zip container is judged by its directory first, whatever it is and whether Keel reads it.
  const archive = isZip(data) ? ZipArchive.open(data, limits, kind === 'docx' ? 'DOCX' : archiveLabel(name)) : undefined;
  switch (kind) {
    case 'pdf':
      return { text: await pdfText(data, limits), type: 'pdf', title };
    case 'docx':
      if (!archive) throw new ExtractionError('Could not read the DOCX: it is not a ZIP archive');
      return { text: await docxText(archive), type: 'text', title };
    case 'html': {
      const page = htmlToText(data.toString('utf8'));
      return { text: page.text, type: 'webpage', title: page.title ?? title };
    }
    case 'json':
      return { text: jsonToText(data.toString('utf8')) ?? data.toString('utf8'), type: 'text', title };
    case 'text':
      return { text: data.toString('utf8'), type: 'text', title };
    default:
      throw new ExtractionError(`Unsupported file type: ${mime || name || 'unknown'} (supported: text, markdown, HTML, JSON, PDF, DOCX)`);
  }
}

/** A fetched page: HTML (also when it says nothing but looks like it), else read as a file of its type. */
async function extractPage(data: Buffer, name: string | null, mime: string | null, limits: ExtractionLimits): Promise<Extracted> {
  const kind = fileKind(name, mime, null, data.subarray(0, 4096));
  if (kind === 'html' || (kind === 'unsupported' && looksLikeHtml(data.toString('utf8', 0, 5000)))) return { ...htmlToText(data.toString('utf8')), type: 'webpage' };
  return extractFile(data, name, mime, null, limits);
}

/** Reads one job within the limits; ExtractionError says why a document cannot be read. */
export async function extract(job: ExtractionJob, limits: ExtractionLimits): Promise<Extracted> {
  const extracted =
    job.source === 'text'
      ? extractText(job.content)
      : job.source === 'file'
        ? await extractFile(Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength), job.name, job.mime, job.fileType, limits)
        : await extractPage(Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength), job.name, job.mime, limits);
  checkTextLength(extracted.text, limits);
  return extracted.title === undefined ? extracted : { ...extracted, title: extracted.title.slice(0, MAX_TITLE_CHARS) };
}
