import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFiles } from './support/config-home';
import { expectSessionAnswer, expectSessionBadRequest } from './support/error-bodies';
import { expectReferenceResponse, expectReferenceSchema } from './support/reference-schema';
import { freshProcessEnv, spawnKeel, startKeel, tempDir, TestKeel } from './support/keel';

type Client = ReturnType<typeof createOpencodeClient>;

/** A 400 BadRequestError whose first issue names `field`. */
async function expectBadRequest(
  call: Promise<{ error?: unknown; response: Response }>,
  field: string,
): Promise<void> {
  expectSessionBadRequest(await expectSessionAnswer(call, 400), field);
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
/** NUL and control bytes around the word "needle": binary, so never searched. */
const BINARY = Buffer.from([0, 1, 2, 3, 110, 101, 101, 100, 108, 101]);

describe('files: find, list, read and status inside the instance directory', () => {
  let keel: TestKeel;
  let repo: string;
  let outside: string;
  let plain: string;
  let client: Client;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });

  beforeAll(async () => {
    keel = await startKeel();
    outside = tempDir('keel-files-outside-');
    writeFiles(outside, { 'secret.txt': 'needle outside the project\n' });
    plain = tempDir('keel-files-plain-');
    writeFiles(plain, { 'notes.txt': 'needle in a plain directory\n' });
    repo = tempDir('keel-files-');
    git('init', '-q', '-b', 'main');
    writeFiles(repo, {
      '.gitignore': 'build/\n*.log\n',
      'src/app.ts': "export const answer = 42;\nconst greeting = 'héllo needle';\nconst other = 1;\n",
      'src/util/strings.ts': 'export const needle = "needle needle";\n',
      'src/many.txt': Array.from({ length: 15 }, (_, i) => `needle ${i}`).join('\n'),
      'README.md': '# Project\nremove me\n',
      '.hidden/config.txt': 'hidden needle\n',
      'build/out.js': 'needle in build output\n',
      'debug.log': 'needle in a log\n',
      'doomed.txt': 'one\ntwo\n',
      empty: '',
      'pixel.png': PNG,
      'data.bin': BINARY,
    });
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'initial');
    // Worktree changes: a modified file, a deletion, a staged new file, an untracked file.
    writeFiles(repo, {
      'README.md': '# Project\nkept\nadded line\n',
      'staged.txt': 'a\nb\nc\n',
      'untracked.txt': 'x\ny',
    });
    git('add', 'staged.txt');
    unlinkSync(join(repo, 'doomed.txt'));
    // Links out of the project: a directory link and a file link.
    symlinkSync(outside, join(repo, 'escape'));
    symlinkSync(join(outside, 'secret.txt'), join(repo, 'escape.txt'));
    client = createOpencodeClient({ baseUrl: keel.url, directory: repo });
  });

  afterAll(async () => {
    await keel.close();
    for (const d of [repo, outside, plain]) rmSync(d, { recursive: true, force: true });
  });

  describe('find.text', () => {
    it('returns ripgrep-shaped matches with byte offsets, honouring .gitignore and never following links out', async () => {
      const { data, response } = await client.find.text({ pattern: 'needle' });
      expect(response.status).toBe(200);
      expectReferenceResponse(data, 'find.text');
      const paths = [...new Set(data!.map((m) => m.path.text))];
      expect(paths).toEqual(['.hidden/config.txt', 'src/app.ts', 'src/many.txt', 'src/util/strings.ts']);
      const app = data!.find((m) => m.path.text === 'src/app.ts')!;
      const line = "const greeting = 'héllo needle';\n";
      expect(app).toEqual({
        path: { text: 'src/app.ts' },
        lines: { text: line },
        line_number: 2,
        absolute_offset: Buffer.byteLength('export const answer = 42;\n'),
        // "é" is two bytes: offsets count bytes, as ripgrep's do.
        submatches: [
          {
            match: { text: 'needle' },
            start: Buffer.byteLength("const greeting = 'héllo "),
            end: Buffer.byteLength("const greeting = 'héllo needle"),
          },
        ],
      });
      const strings = data!.find((m) => m.path.text === 'src/util/strings.ts')!;
      expect(strings.submatches.map((s) => s.start)).toEqual([13, 23, 30]);
      // Ten matching lines per file, like the reference's ripgrep --max-count=10.
      expect(data!.filter((m) => m.path.text === 'src/many.txt').map((m) => m.line_number)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      expect(JSON.stringify(data)).not.toContain('outside the project');
    });

    it('takes a regular expression; an invalid one or a missing pattern is a 400 naming pattern', async () => {
      const { data } = await client.find.text({ pattern: 'answer = \\d+' });
      expect(data!.map((m) => [m.path.text, m.submatches[0].match.text])).toEqual([
        ['src/app.ts', 'answer = 42'],
      ]);
      expect((await client.find.text({ pattern: 'no such text anywhere' })).data).toEqual([]);
      await expectBadRequest(client.find.text({ pattern: '(unclosed' }), 'pattern');
      await expectBadRequest(client.find.text({} as { pattern: string }), 'pattern');
    });

    it('searches a directory outside git too', async () => {
      const { data } = await createOpencodeClient({ baseUrl: keel.url, directory: plain }).find.text({
        pattern: 'needle',
      });
      expect(data!.map((m) => m.path.text)).toEqual(['notes.txt']);
    });

    it('applies anchors per line (CRLF lines too) and follows links that stay inside', async () => {
      const dir = tempDir('keel-files-lines-');
      try {
        writeFiles(dir, {
          'crlf.txt': 'the end\r\nend of it\r\n',
          'src/a.ts': 'const a = 1;\n  const b = 2;\n',
        });
        symlinkSync(join(dir, 'src', 'a.ts'), join(dir, 'inside-link.ts'));
        const search = createOpencodeClient({ baseUrl: keel.url, directory: dir }).find;
        const endOfLine = (await search.text({ pattern: 'end$' })).data!;
        expect(endOfLine.map((m) => [m.path.text, m.line_number, m.lines.text])).toEqual([
          ['crlf.txt', 1, 'the end\r\n'],
        ]);
        const startOfLine = (await search.text({ pattern: '^const' })).data!;
        expect(startOfLine.map((m) => [m.path.text, m.line_number])).toEqual([
          ['inside-link.ts', 1],
          ['src/a.ts', 1],
        ]);
        expect((await search.text({ pattern: '(?<=const )b' })).data!.map((m) => m.path.text)).toEqual([
          'inside-link.ts',
          'src/a.ts',
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('stops a runaway pattern with a 400 naming pattern, answering other requests meanwhile', async () => {
      const dir = tempDir('keel-files-redos-');
      try {
        writeFiles(dir, { 'a.txt': `${'a'.repeat(40)}!\n` });
        const c = createOpencodeClient({ baseUrl: keel.url, directory: dir });
        let searchDone = false;
        const search = expectBadRequest(c.find.text({ pattern: '(a+)+$' }), 'pattern').finally(
          () => (searchDone = true),
        );
        // Matching runs off the main thread, so the server keeps answering while it backtracks.
        expect((await c.lsp.status()).data).toEqual([]);
        expect(searchDone).toBe(false);
        await search;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('stops at 200 matching lines in one answer', async () => {
      const many = tempDir('keel-files-many-');
      try {
        writeFiles(
          many,
          Object.fromEntries(
            Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, 'hit\n'.repeat(10)]),
          ),
        );
        const { data } = await createOpencodeClient({ baseUrl: keel.url, directory: many }).find.text({
          pattern: 'hit',
        });
        expect(data).toHaveLength(200);
        expect(data![199].path.text).toBe('f19.txt');
      } finally {
        rmSync(many, { recursive: true, force: true });
      }
    });
  });

  describe('find.files', () => {
    it('fuzzy-matches file and directory names, best first, without ignored files', async () => {
      const { data, response } = await client.find.files({ query: 'strings' });
      expect(response.status).toBe(200);
      expectReferenceResponse(data, 'find.files');
      expect(data![0]).toBe('src/util/strings.ts');
      expect((await client.find.files({ query: 'sut' })).data).toContain('src/util/strings.ts');
      expect((await client.find.files({ query: 'util', type: 'directory' })).data).toEqual(['src/util/']);
      expect((await client.find.files({ query: 'util' })).data).toEqual(
        expect.arrayContaining(['src/util/', 'src/util/strings.ts']),
      );
      expect((await client.find.files({ query: 'util', dirs: 'false' })).data).toEqual([
        'src/util/strings.ts',
      ]);
      expect((await client.find.files({ query: 'out' })).data).not.toContain('build/out.js');
      expect((await client.find.files({ query: 'zzzz' })).data).toEqual([]);
    });

    it('lists without a query (directories hidden last), honours limit and validates it', async () => {
      expect((await client.find.files({ query: '', type: 'directory' })).data).toEqual([
        'src/',
        'src/util/',
        '.hidden/',
      ]);
      expect((await client.find.files({ query: '', dirs: 'false', limit: 2 })).data).toHaveLength(2);
      expect((await client.find.files({ query: 's', limit: 3 })).data).toHaveLength(3);
      await expectBadRequest(client.find.files({ query: 'a', limit: 0 }), 'limit');
      await expectBadRequest(client.find.files({ query: 'a', limit: 201 }), 'limit');
      await expectBadRequest(client.find.files({ query: 'a', type: 'socket' as 'file' }), 'type');
      await expectBadRequest(client.find.files({} as { query: string }), 'query');
    });
  });

  describe('file.list', () => {
    it('lists a directory, directories first, with .gitignore matches flagged and .git left out', async () => {
      const { data, response } = await client.file.list({ path: '' });
      expect(response.status).toBe(200);
      expectReferenceResponse(data, 'file.list');
      expect(data!.map((n) => [n.name, n.type, n.ignored])).toEqual([
        ['.hidden', 'directory', false],
        ['build', 'directory', true],
        ['src', 'directory', false],
        ['.gitignore', 'file', false],
        ['data.bin', 'file', false],
        ['debug.log', 'file', true],
        ['empty', 'file', false],
        // A symlink is listed as a file (the reference does the same) and is never followed here.
        ['escape', 'file', false],
        ['escape.txt', 'file', false],
        ['pixel.png', 'file', false],
        ['README.md', 'file', false],
        ['staged.txt', 'file', false],
        ['untracked.txt', 'file', false],
      ]);
      const { data: src } = await client.file.list({ path: 'src' });
      expect(src!.map((n) => n.path)).toEqual(['src/util', 'src/app.ts', 'src/many.txt']);
      expect(src![1].absolute).toBe(join(repo, 'src', 'app.ts'));
      expect((await client.file.list({ path: join(repo, 'src', 'util') })).data!.map((n) => n.path)).toEqual([
        'src/util/strings.ts',
      ]);
      expect((await client.file.list({ path: 'missing' })).data).toEqual([]);
    });

    it('refuses paths that leave the directory (.., absolute elsewhere, a symlink out) with a 400 naming path', async () => {
      await expectBadRequest(client.file.list({ path: '..' }), 'path');
      await expectBadRequest(client.file.list({ path: 'src/../../' }), 'path');
      await expectBadRequest(client.file.list({ path: outside }), 'path');
      await expectBadRequest(client.file.list({ path: 'escape' }), 'path');
      await expectBadRequest(client.file.list({} as { path: string }), 'path');
    });
  });

  describe('file.read', () => {
    it('reads text; a file that differs from HEAD carries its patch and diff', async () => {
      const { data: app, response } = await client.file.read({ path: 'src/app.ts' });
      expect(response.status).toBe(200);
      expectReferenceSchema(app, 'FileContent');
      expect(app).toEqual({
        type: 'text',
        content: "export const answer = 42;\nconst greeting = 'héllo needle';\nconst other = 1;",
      });

      const { data: readme } = await client.file.read({ path: 'README.md' });
      expectReferenceSchema(readme, 'FileContent');
      expect(readme!.content).toBe('# Project\nkept\nadded line');
      expect(readme!.patch).toEqual({
        oldFileName: 'README.md',
        newFileName: 'README.md',
        oldHeader: 'old',
        newHeader: 'new',
        hunks: [
          {
            oldStart: 1,
            oldLines: 2,
            newStart: 1,
            newLines: 3,
            lines: [' # Project', '-remove me', '+kept', '+added line'],
          },
        ],
      });
      expect(readme!.diff).toBe(
        'Index: README.md\n===================================================================\n--- README.md\told\n+++ README.md\tnew\n@@ -1,2 +1,3 @@\n # Project\n-remove me\n+kept\n+added line\n',
      );
    });

    it('gives a staged new file a patch from nothing; an untracked file has none', async () => {
      const { data: staged } = await client.file.read({ path: 'staged.txt' });
      expectReferenceSchema(staged, 'FileContent');
      expect(staged!.patch!.hunks).toEqual([
        { oldStart: 0, oldLines: 0, newStart: 1, newLines: 3, lines: ['+a', '+b', '+c'] },
      ]);
      expect((await client.file.read({ path: 'untracked.txt' })).data).toEqual({
        type: 'text',
        content: 'x\ny',
      });
    });

    it('returns images and binary files as base64 with a MIME type; a missing file reads as empty', async () => {
      const { data: png } = await client.file.read({ path: 'pixel.png' });
      expectReferenceSchema(png, 'FileContent');
      expect(png).toEqual({
        type: 'text',
        content: PNG.toString('base64'),
        encoding: 'base64',
        mimeType: 'image/png',
      });
      const { data: bin } = await client.file.read({ path: 'data.bin' });
      expect(bin).toEqual({
        type: 'text',
        content: BINARY.toString('base64'),
        encoding: 'base64',
        mimeType: 'application/octet-stream',
      });
      expect((await client.file.read({ path: 'empty' })).data).toEqual({ type: 'text', content: '' });
      expect((await client.file.read({ path: 'no/such/file.txt' })).data).toEqual({
        type: 'text',
        content: '',
      });
      expect((await client.file.read({ path: join(repo, 'src', 'util', 'strings.ts') })).data!.content).toBe(
        'export const needle = "needle needle";',
      );
    });

    it('refuses paths that leave the directory and never reads them; a directory is a 400', async () => {
      for (const path of [
        '../keel',
        `../${outside.split('/').pop()}/secret.txt`,
        join(outside, 'secret.txt'),
        '/etc/passwd',
        'escape.txt',
        'escape/secret.txt',
        'escape/not-there.txt',
        'src/../../x',
      ]) {
        const { error, response } = await client.file.read({ path });
        expect(response.status).toBe(400);
        expect(JSON.stringify(error)).not.toContain('needle outside');
        await expectBadRequest(client.file.read({ path }), 'path');
      }
      await expectBadRequest(client.file.read({ path: 'src' }), 'path');
    });
  });

  describe('file.status', () => {
    it('lists changes against HEAD with line counts: modified, deleted, staged and untracked files', async () => {
      const { data, response } = await client.file.status();
      expect(response.status).toBe(200);
      expectReferenceResponse(data, 'file.status');
      const byPath = Object.fromEntries(data!.map((f) => [f.path, f]));
      expect(byPath['README.md']).toEqual({ path: 'README.md', added: 2, removed: 1, status: 'modified' });
      expect(byPath['doomed.txt']).toEqual({ path: 'doomed.txt', added: 0, removed: 2, status: 'deleted' });
      expect(byPath['staged.txt']).toEqual({ path: 'staged.txt', added: 3, removed: 0, status: 'added' });
      expect(byPath['untracked.txt']).toEqual({
        path: 'untracked.txt',
        added: 2,
        removed: 0,
        status: 'added',
      });
      expect(byPath['src/app.ts']).toBeUndefined();
      expect(byPath['debug.log']).toBeUndefined();
    });

    it('is empty outside a git repository', async () => {
      const { data } = await createOpencodeClient({ baseUrl: keel.url, directory: plain }).file.status();
      expect(data).toEqual([]);
    });
  });

  it('answers find.symbols, lsp, formatter and mcp with empty results (no language servers, formatters or MCP servers)', async () => {
    const symbols = await client.find.symbols({ query: 'answer' });
    expect(symbols.response.status).toBe(200);
    expect(symbols.data).toEqual([]);
    expectReferenceResponse(symbols.data, 'find.symbols');
    const lsp = await client.lsp.status();
    expect(lsp.data).toEqual([]);
    expectReferenceResponse(lsp.data, 'lsp.status');
    const formatter = await client.formatter.status();
    expect(formatter.data).toEqual([]);
    expectReferenceResponse(formatter.data, 'formatter.status');
    const mcp = await client.mcp.status();
    expect(mcp.data).toEqual({});
    expectReferenceResponse(mcp.data, 'mcp.status');
  });

  it('app.log validates its body: level and service are named when wrong', async () => {
    const { data, response } = await client.app.log({ service: 'tui', level: 'info', message: 'hello' });
    expect(response.status).toBe(200);
    expect(data).toBe(true);
    await expectBadRequest(
      client.app.log({ service: 'tui', level: 'loud' as 'info', message: 'x' }),
      'level',
    );
    await expectBadRequest(client.app.log({ level: 'info', message: 'x' }), 'service');
  });
});

describe('app.log on the built server', () => {
  it('writes the entry into the server log with its service, level and extra fields', async () => {
    const { env, cleanup } = await freshProcessEnv({ KEEL_LOG_LEVEL: 'debug' });
    const dir = tempDir('keel-files-log-');
    const server = await spawnKeel(env);
    try {
      const client = createOpencodeClient({ baseUrl: server.url, directory: dir });
      const { data } = await client.app.log({
        service: 'tui',
        level: 'warn',
        message: 'disk almost full',
        extra: { free: '1%' },
      });
      expect(data).toBe(true);
      // The log line travels through the child's stdout pipe, which may deliver it after the response.
      const logged = () =>
        server
          .output()
          .split('\n')
          .slice(0, -1) // only complete lines
          .filter((l) => l.includes('disk almost full'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      for (let i = 0; i < 100 && logged().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      const line = logged();
      expect(line).toEqual([
        expect.objectContaining({
          level: 40,
          context: 'tui',
          msg: 'disk almost full',
          source: 'client',
          extra: { free: '1%' },
        }),
      ]);
    } finally {
      await server.stop();
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
