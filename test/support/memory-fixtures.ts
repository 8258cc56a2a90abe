import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import Supermemory from 'supermemory';

/** A PDF file of these objects (numbered from 1, the first one the catalog), with its cross-reference table. */
export function assemblePdf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n')]);
    offsets.push(length);
    parts.push(object);
    length += object.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** A PDF stream object: its dictionary entries (`/Filter /FlateDecode`, …) and its bytes. */
export function pdfStream(data: string | Buffer, dictionary = ''): Buffer {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1');
  return Buffer.concat([Buffer.from(`<< /Length ${bytes.length}${dictionary ? ` ${dictionary}` : ''} >>\nstream\n`), bytes, Buffer.from('\nendstream')]);
}

/** A one-page PDF whose text layer holds `text` (Helvetica, one line per sentence). */
export function makePdf(text: string): Buffer {
  const lines = text.split('\n');
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    pdfStream(`BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((l) => `(${escape(l)}) Tj T*`).join(' ')} ET`),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** One file of a ZIP archive as written: stored (method 0) or deflated (8) bytes, with the true size and CRC-32. */
export interface ZipEntry {
  name: string;
  method: 0 | 8;
  body: Buffer;
  size: number;
  crc: number;
}

export function storedEntry(name: string, content: string | Buffer): ZipEntry {
  const data = Buffer.from(content);
  return { name, method: 0, body: data, size: data.length, crc: crc32(data) };
}

/** A ZIP archive; `declaredSize` replaces the uncompressed size both headers state (an archive that lies). */
export function zipArchive(entries: ZipEntry[], declaredSize: (entry: ZipEntry) => number = (e) => e.size): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const nameBytes = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt32LE(entry.crc, 14);
    local.writeUInt32LE(entry.body.length, 18);
    local.writeUInt32LE(declaredSize(entry), 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.method, 10);
    central.writeUInt32LE(entry.crc, 16);
    central.writeUInt32LE(entry.body.length, 20);
    central.writeUInt32LE(declaredSize(entry), 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, entry.body);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + entry.body.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** The parts every Word document has around `word/document.xml`. */
export const DOCX_PARTS: ZipEntry[] = [
  storedEntry(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  ),
  storedEntry(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  ),
];

/** `word/document.xml` is this text inside its body element. */
export const DOCUMENT_XML = {
  start: '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>',
  end: '</w:body></w:document>',
};

/** A minimal Word document, one paragraph per line. */
export function makeDocx(text: string): Buffer {
  const paragraphs = text
    .split('\n')
    .map((l) => `<w:p><w:r><w:t xml:space="preserve">${l.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`)
    .join('');
  return zipArchive([...DOCX_PARTS, storedEntry('word/document.xml', `${DOCUMENT_XML.start}${paragraphs}${DOCUMENT_XML.end}`)]);
}

export interface WebServer {
  url: string;
  /** JSON bodies POSTed to `/hook` (webhook deliveries). */
  hooks: Record<string, unknown>[];
  /** Resolves once a delivery matching `predicate` has arrived (deliveries are asynchronous to the pipeline). */
  hookArrived: (predicate: (hook: Record<string, unknown>) => boolean, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
}

/** A local web server: `/article` (an HTML page with boilerplate), `/moved` (redirect), `POST /hook` (webhook receiver). */
export async function startWebServer(): Promise<WebServer> {
  const hooks: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/hook') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        hooks.push({ ...(JSON.parse(body) as Record<string, unknown>), signature: req.headers['x-keel-signature'], delivery: req.headers['x-keel-delivery'] });
        res.end('ok');
      });
    } else if (req.url === '/article') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        '<html><head><title>Glacier Report</title><script>var tracking = "nope";</script></head><body><nav>Home | About</nav>' +
          '<article><h1>Glacier Report</h1><p>The Aletsch glacier retreated forty meters this summer.</p><p>Researchers measured meltwater at the Konkordia station.</p></article>' +
          '<footer>Copyright footer text</footer></body></html>',
      );
    } else if (req.url === '/moved') {
      res.writeHead(302, { location: '/article' });
      res.end();
    } else {
      res.writeHead(404);
      res.end('missing');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const hookArrived = async (predicate: (hook: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!hooks.some(predicate)) {
      if (Date.now() > deadline) throw new Error(`no matching webhook delivery within ${timeoutMs} ms (${hooks.length} delivered)`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { url: `http://127.0.0.1:${port}`, hooks, hookArrived, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export function memoryClient(url: string, apiKey = 'test-key'): Supermemory {
  return new Supermemory({ apiKey, baseURL: url, maxRetries: 0, timeout: 20_000 });
}

export interface PolledDocument {
  id: string;
  status: string;
  dreamingStatus?: string;
  error?: string;
  content?: string | null;
  [key: string]: unknown;
}

/** Poll `GET /v3/documents/{id}` until the pipeline (and, by default, dreaming) has finished. */
export async function waitForDocument(client: Supermemory, id: string, options: { dreaming?: boolean; timeoutMs?: number } = {}): Promise<PolledDocument> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const doc = (await client.documents.get(id)) as unknown as PolledDocument;
    const finished = doc.status === 'failed' || (doc.status === 'done' && (options.dreaming === false || doc.dreamingStatus === 'done'));
    if (finished) return doc;
    if (Date.now() > deadline) throw new Error(`document ${id} still ${doc.status}/${doc.dreamingStatus}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Poll `GET /v3/documents/processing` until no document of the key's organization is unfinished; throws `failure` after `timeoutMs`. */
export async function waitUntilProcessed(client: Supermemory, timeoutMs: number, failure: string, pollMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await client.documents.listProcessing()).totalCount > 0) {
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

const SYNONYMS: Record<string, string> = { car: 'vehicle', automobile: 'vehicle', auto: 'vehicle', crimson: 'red', scarlet: 'red' };

/** Bag of words hashed into 64 dimensions, with a few synonyms sharing a word: "semantic" enough to test hybrid search. */
function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    vector[h % 64] += 1;
  }
  return vector;
}

/** An OpenAI-compatible `POST /v1/embeddings` server on loopback. */
export async function startEmbeddingServer(): Promise<{ url: string; requests: number; close: () => Promise<void> }> {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404);
        return res.end();
      }
      state.requests++;
      const { input, model } = JSON.parse(body) as { input: string[]; model: string };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', model, data: input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
