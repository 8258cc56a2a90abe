import { lookup } from 'node:dns';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { LookupFunction } from 'node:net';
import { parse as parseHtml, HTMLElement } from 'node-html-parser';
import { isPrivateAddress } from '../../common/private-address';

export interface Extracted {
  text: string;
  type: string;
  title?: string;
}

/** A document that cannot be processed; the message is kept on the document. */
export class ExtractionError extends Error {}

const URL_PATTERN = /^https?:\/\/[^\s]+$/i;

export function isUrl(content: string): boolean {
  return URL_PATTERN.test(content.trim());
}

const HTML_DROP = 'script, style, noscript, template, svg, nav, header, footer, aside, form, iframe, button';

/** Readability-style text: the main/article element when there is one, boilerplate removed, blocks kept apart. */
export function htmlToText(html: string): { text: string; title?: string } {
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
}

export function looksLikeHtml(text: string): boolean {
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(text) || /<(p|div|article|h[1-6]|span|br)\b[^>]*>/i.test(text.slice(0, 5000));
}

/** Plain text of a JSON document: pretty-printed, so keys and values are searchable words. */
function jsonToText(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return undefined;
  }
}

/** Text, markdown, HTML or JSON sent as a string. */
export function extractText(content: string): Extracted {
  if (looksLikeHtml(content)) {
    const { text, title } = htmlToText(content);
    return { text, type: 'text', title };
  }
  const json = jsonToText(content);
  if (json !== undefined) return { text: json, type: 'text' };
  const heading = /^#\s+(.+)$/m.exec(content);
  return { text: content, type: 'text', title: heading?.[1]?.trim() };
}

// PDF parsing runs in a worker thread: pdf.js is CPU-heavy (it must not stall searches) and ESM-only
// inside, which a worker loads natively whatever module system hosts the server.
const PDF_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
(async () => {
  const { PDFParse } = await import(pathToFileURL(workerData.module).href);
  const parser = new PDFParse({ data: workerData.data });
  try {
    const result = await parser.getText();
    parentPort.postMessage({ text: result.text });
  } finally {
    await parser.destroy();
  }
})().catch((error) => parentPort.postMessage({ error: String(error && error.message || error) }));
`;

function pdfText(data: Buffer, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(PDF_WORKER, { eval: true, workerData: { module: require.resolve('pdf-parse'), data: new Uint8Array(data) } });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new ExtractionError(`PDF text extraction took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    worker.once('message', (message: { text?: string; error?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (message.error !== undefined) reject(new ExtractionError(`Could not read the PDF: ${message.error}`));
      else resolve(message.text ?? '');
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(new ExtractionError(`Could not read the PDF: ${error.message}`));
    });
  });
}

async function docxText(data: Buffer): Promise<string> {
  const mammoth = require('mammoth') as typeof import('mammoth'); // loaded on the first DOCX only
  const result = await mammoth.extractRawText({ buffer: data });
  return result.value;
}

export type FileKind = 'pdf' | 'docx' | 'html' | 'json' | 'text' | 'unsupported';

/** Decide how to read a file from its forced type, MIME type, name and leading bytes. */
export function fileKind(name: string | null, mime: string | null, fileType: string | null, head: Buffer): FileKind {
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

export async function extractFile(data: Buffer, name: string | null, mime: string | null, fileType: string | null): Promise<Extracted> {
  const kind = fileKind(name, mime, fileType, data.subarray(0, 4096));
  const title = name ?? undefined;
  switch (kind) {
    case 'pdf':
      return { text: await pdfText(data), type: 'pdf', title };
    case 'docx':
      return { text: await docxText(data), type: 'text', title };
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

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  allowPrivate: boolean;
}

/** DNS lookup that refuses private answers, so the address checked is the address connected to. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      const refused = !allowPrivate && list.find((a) => isPrivateAddress(a.address));
      if (refused) return callback(new ExtractionError(`Refusing to fetch ${hostname}: it resolves to a private address (${refused.address})`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

function getOnce(url: URL, limits: FetchLimits): Promise<{ response: IncomingMessage; body?: Buffer }> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !limits.allowPrivate && isPrivateAddress(host)) {
      return reject(new ExtractionError(`Refusing to fetch ${url.host}: private address`));
    }
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      { method: 'GET', lookup: guardedLookup(limits.allowPrivate), headers: { 'user-agent': 'keel-ingest/1', accept: 'text/html,application/pdf,text/*,*/*;q=0.5' }, timeout: limits.timeoutMs },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          return resolve({ response });
        }
        const parts: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            request.destroy(new ExtractionError(`Fetched content exceeds ${limits.maxBytes} bytes`));
            return;
          }
          parts.push(chunk);
        });
        response.on('end', () => resolve({ response, body: Buffer.concat(parts) }));
        response.on('error', reject);
      },
    );
    const deadline = setTimeout(() => request.destroy(new ExtractionError(`Fetching ${url.href} took longer than ${limits.timeoutMs} ms`)), limits.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () => request.destroy(new ExtractionError(`Fetching ${url.href} timed out`)));
    request.on('error', (error) => reject(error instanceof ExtractionError ? error : new ExtractionError(`Fetching ${url.href} failed: ${error.message}`)));
    request.end();
  });
}

/** Fetch a URL with size, time and redirect caps and no private addresses, then extract its text. */
export async function extractUrl(address: string, limits: FetchLimits): Promise<Extracted & { url: string }> {
  let url = new URL(address.trim());
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ExtractionError(`Unsupported URL scheme ${url.protocol}`);
    const { response, body } = await getOnce(url, limits);
    const status = response.statusCode ?? 0;
    if (!body) {
      if (redirects >= limits.maxRedirects) throw new ExtractionError(`Too many redirects (more than ${limits.maxRedirects})`);
      url = new URL(response.headers.location!, url);
      continue;
    }
    if (status >= 400) throw new ExtractionError(`Fetching ${url.href} answered HTTP ${status}`);
    const mime = String(response.headers['content-type'] ?? '').split(';')[0].trim() || null;
    const name = url.pathname.split('/').pop() || null;
    const kind = fileKind(name, mime, null, body.subarray(0, 4096));
    const extracted = kind === 'html' || kind === 'unsupported' && looksLikeHtml(body.toString('utf8', 0, 5000)) ? { ...htmlToText(body.toString('utf8')), type: 'webpage' } : await extractFile(body, name, mime, null);
    return { ...extracted, title: extracted.title ?? url.href, url: url.href };
  }
}
