import { readdirSync, readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Supermemory, { toFile } from 'supermemory';
import {
  deepHtml,
  docxBomb,
  hugeHtml,
  jsonAmplifier,
  nestedZips,
  pdfFlateBomb,
  pdfNestedForms,
  xlsxBomb,
  zipOfZips,
} from './support/hostile-files';
import { freshProcessEnv, KeelProcess, spawnKeel, startKeel, TestKeel } from './support/keel';
import { makeDocx, makePdf, memoryClient, PolledDocument, waitForDocument } from './support/memory-fixtures';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Polls `GET /global/health` with a 1 s client timeout until stopped; every answer that was not a 200 in time is kept. */
function watchHealth(url: string): { stop: () => Promise<{ answered: number; failures: string[] }> } {
  let running = true;
  let answered = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      try {
        const response = await fetch(`${url}/global/health`, { signal: AbortSignal.timeout(1000) });
        if (response.status === 200) answered++;
        else failures.push(`HTTP ${response.status}`);
      } catch (error) {
        failures.push((error as Error).message);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { answered, failures };
    },
  };
}

/** Serves each file of `files` at `/<name>` with its content type. */
async function serveFiles(
  files: Record<string, { data: Buffer; type: string }>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const file = files[(req.url ?? '').slice(1)];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type }).end(file.data);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('memory: hostile files end failed with the limit they broke, and the server keeps answering', () => {
  let keel: TestKeel;
  let client: Supermemory;
  let web: Awaited<ReturnType<typeof serveFiles>>;

  beforeAll(async () => {
    web = await serveFiles({
      'bomb.docx': { data: docxBomb(), type: DOCX },
      'deep.html': { data: deepHtml(), type: 'text/html' },
    });
    // A tenth of the default time, so the drawing bomb below fails in 10 s rather than a minute.
    keel = await startKeel({ env: { KEEL_API_KEYS: 'test-key', KEEL_ALLOW_PRIVATE_FETCH: 'true', KEEL_EXTRACT_TIMEOUT_MS: '10000' } });
    client = memoryClient(keel.url);
    // The first file starts an extraction process (here compiling its TypeScript): done before health is watched.
    const { id } = await client.documents.uploadFile({
      file: await toFile(Buffer.from('warm-up'), 'warm.txt', { type: 'text/plain' }),
    });
    await waitForDocument(client, id, { dreaming: false });
  });

  afterAll(async () => {
    await keel.close();
    await web.close();
  });

  /** Sends one document and waits for its end while health is polled; health must answer throughout. */
  async function whileHealthy(send: () => Promise<{ id: string }>): Promise<PolledDocument> {
    const health = watchHealth(keel.url);
    try {
      const { id } = await send();
      return await waitForDocument(client, id, { dreaming: false, timeoutMs: 60_000 });
    } finally {
      const { answered, failures } = await health.stop();
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(0);
    }
  }

  const upload = (data: Buffer, name: string, type: string) => async () =>
    client.documents.uploadFile({ file: await toFile(data, name, { type }), containerTag: 'hostile' });

  it.each<[string, () => Buffer, string, string, string | RegExp]>([
    [
      'a DOCX of 300 MB of XML in 0.3 MB',
      () => docxBomb(),
      'bomb.docx',
      DOCX,
      'DOCX expands to more than 200 MB uncompressed (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)',
    ],
    [
      'the same DOCX with headers that say 1,000 bytes',
      () => docxBomb(300, { lie: true }),
      'liar.docx',
      DOCX,
      'DOCX entry word/document.xml expands past the 1000 bytes its header declares: refused as a decompression bomb (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)',
    ],
    [
      'an XLSX of 300 MB of XML',
      () => xlsxBomb(),
      'bomb.xlsx',
      XLSX,
      'XLSX expands to more than 200 MB uncompressed (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)',
    ],
    [
      'a zip of 16 zips of 15 MB, no entry a bomb by itself',
      () => zipOfZips(),
      'parts.zip',
      'application/zip',
      'ZIP archive expands to more than 200 MB uncompressed (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)',
    ],
    [
      'zips in zips five levels deep',
      () => nestedZips(5),
      'nested.zip',
      'application/zip',
      'ZIP archive holds archives nested more than 3 levels deep (level-2.zip)',
    ],
    [
      'a PDF whose content stream is 512 MB of spaces',
      () => pdfFlateBomb(),
      'spaces.pdf',
      'application/pdf',
      'a PDF stream expands more than 100 times its compressed size (KEEL_EXTRACT_MAX_RATIO)',
    ],
    // pdf.js draws the million forms on one synchronous stretch: time or memory runs out first.
    [
      'a PDF of forms drawing forms a million times',
      () => pdfNestedForms(),
      'forms.pdf',
      'application/pdf',
      /^Extraction (took longer than 10000 ms \(KEEL_EXTRACT_TIMEOUT_MS\)|needs more than 256 MB of memory \(KEEL_EXTRACT_MAX_MEMORY_MB\))$/,
    ],
    [
      'HTML nested 100,000 deep',
      () => deepHtml(),
      'deep.html',
      'text/html',
      'HTML nests elements more than 512 deep',
    ],
    [
      '11 MB of HTML paragraphs',
      () => hugeHtml(),
      'huge.html',
      'text/html',
      // Memory runs out first; on a machine loaded enough, the time limit can come first. Either is a bound.
      /^Extraction (needs more than 256 MB of memory \(KEEL_EXTRACT_MAX_MEMORY_MB\)|took longer than 10000 ms \(KEEL_EXTRACT_TIMEOUT_MS\))$/,
    ],
    [
      '0.5 MB of JSON that pretty-printing makes 10.75 million characters',
      () => jsonAmplifier(),
      'zeros.json',
      'application/json',
      'The extracted text is longer than 10000000 characters (KEEL_EXTRACT_MAX_TEXT_CHARS)',
    ],
  ])('uploaded: %s', async (_, make, name, type, reason) => {
    const doc = await whileHealthy(upload(make(), name, type));
    expect(doc).toMatchObject({
      status: 'failed',
      error: reason instanceof RegExp ? expect.stringMatching(reason) : reason,
    });
  });

  it.each([
    ['bomb.docx', 'DOCX expands to more than 200 MB uncompressed (KEEL_EXTRACT_MAX_UNCOMPRESSED_BYTES)'],
    ['deep.html', 'HTML nests elements more than 512 deep'],
  ])('fetched: %s', async (path, reason) => {
    const doc = await whileHealthy(() =>
      client.add({ content: `${web.url}/${path}`, containerTag: 'hostile' }),
    );
    expect(doc).toMatchObject({ status: 'failed', error: reason });
  });

  it('an extraction process killed from outside (no limit broken) ends its document failed naming the crash', async () => {
    const doc = await whileHealthy(async () => {
      const sent = await upload(pdfNestedForms(), 'killed.pdf', 'application/pdf')();
      // pdf.js is drawing the forms, seconds of work: end every extraction process this server runs.
      while ((await client.documents.get(sent.id)).status !== 'extracting') await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const pids = extractionProcesses(process.pid);
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      return sent;
    });
    expect(doc).toMatchObject({ status: 'failed', error: expect.stringMatching(/^The extraction process crashed \(SIGKILL\)/) });
  });

  it('ordinary files still extract afterwards', async () => {
    const docx = await whileHealthy(
      upload(makeDocx('Beluga whales sing.\nThey are white.'), 'whales.docx', DOCX),
    );
    expect(docx).toMatchObject({ status: 'done', content: expect.stringContaining('Beluga whales sing.') });
    const pdf = await whileHealthy(
      upload(makePdf('Narwhals live in Arctic waters.'), 'narwhals.pdf', 'application/pdf'),
    );
    expect(pdf).toMatchObject({
      status: 'done',
      type: 'pdf',
      content: expect.stringContaining('Narwhals live in Arctic waters.'),
    });
  });
});

/** Pids of the extraction processes `parent` started, from /proc. */
function extractionProcesses(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (
        Number(ppid) === parent &&
        state !== 'Z' &&
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('extraction-child')
      )
        found.push(Number(entry));
    } catch {
      // gone while the list was read
    }
  }
  return found;
}

function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Needs a built server: dist/ (npm test builds it) or a private build passed as KEEL_DIST. */
describe('memory: a document whose extraction dies with the server is not retried into a crash loop', () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let server: KeelProcess | undefined;

  beforeAll(async () => {
    ({ env, cleanup } = await freshProcessEnv({
      KEEL_API_KEYS: 'test-key',
      KEEL_INGEST_CONCURRENCY: '1',
      KEEL_EXTRACT_MAX_ATTEMPTS: '2',
      // The drawing bomb must still be extracting when the server is killed.
      KEEL_EXTRACT_TIMEOUT_MS: '600000',
      KEEL_LOG_LEVEL: 'error',
    }));
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null)
      await server.stop('SIGKILL');
    await cleanup();
  });

  it('kill -9 during extraction, twice: the next start fails the document for good and stays up', async () => {
    server = await spawnKeel(env);
    const { id } = await memoryClient(server.url).documents.uploadFile({
      file: await toFile(pdfNestedForms(7, 10), 'forms.pdf', { type: 'application/pdf' }),
    });
    for (let attempt = 1; attempt <= 2; attempt++) {
      // Killed the way the kernel's OOM killer or an operator would: mid-extraction, no chance to clean up.
      const pid = server.child.pid!;
      const extraction = await waitFor('the extraction process', () => extractionProcesses(pid)[0]);
      expect((await memoryClient(server.url).documents.get(id)).status).toBe('extracting');
      await server.stop('SIGKILL');
      // The extraction process notices its server is gone and ends (it would spin for minutes otherwise).
      await waitFor(
        'the orphaned extraction process to end',
        () => (running(extraction) ? undefined : true),
        5_000,
      );
      server = await spawnKeel(env);
    }
    const client = memoryClient(server.url);
    expect(await waitForDocument(client, id, { dreaming: false })).toMatchObject({
      status: 'failed',
      error:
        'Extraction did not finish in 2 attempts (the server stopped during each); not tried again (KEEL_EXTRACT_MAX_ATTEMPTS)',
    });
    expect(extractionProcesses(server.child.pid!)).toEqual([]);
    expect((await fetch(`${server.url}/global/health`)).status).toBe(200);
    // The bundled extraction process reads an ordinary file.
    const { id: docx } = await client.documents.uploadFile({
      file: await toFile(makeDocx('Orcas hunt in pods.'), 'orcas.docx', { type: DOCX }),
    });
    expect(await waitForDocument(client, docx, { dreaming: false })).toMatchObject({
      status: 'done',
      content: expect.stringContaining('Orcas hunt in pods.'),
    });
    await server.stop('SIGTERM');
  });
});
