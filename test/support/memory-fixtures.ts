import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import Supermemory from 'supermemory';

/** A one-page PDF whose text layer holds `text` (Helvetica, one line per sentence). */
export function makePdf(text: string): Buffer {
  const lines = text.split('\n');
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 12 Tf 72 720 Td 14 TL ${lines.map((l) => `(${escape(l)}) Tj T*`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A ZIP archive with stored (uncompressed) entries. */
function zip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content, 'utf8');
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** A minimal Word document, one paragraph per line. */
export function makeDocx(text: string): Buffer {
  const paragraphs = text
    .split('\n')
    .map((l) => `<w:p><w:r><w:t xml:space="preserve">${l.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`)
    .join('');
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs}</w:body></w:document>`,
  });
}

export interface WebServer {
  url: string;
  /** JSON bodies POSTed to `/hook` (webhook deliveries). */
  hooks: Record<string, unknown>[];
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
  return { url: `http://127.0.0.1:${port}`, hooks, close: () => new Promise((resolve) => server.close(() => resolve())) };
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

/** What a 4xx looks like through the SDK: status and the `{error, details}` body. */
export async function expectApiError(promise: Promise<unknown>, status: number, detailsPattern?: RegExp): Promise<{ error: unknown; details?: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { status?: number; error?: { error: unknown; details?: string } };
    expect(e.status).toBe(status);
    expect(e.error).toEqual(expect.objectContaining({ error: expect.anything() }));
    if (detailsPattern) expect(e.error?.details).toMatch(detailsPattern);
    return e.error!;
  }
  throw new Error(`expected HTTP ${status}`);
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
