import { issue, NotFoundError, PayloadTooLargeError, ValidationError } from '../common/errors';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { ClientLogService } from './client-log.service';
import { FileBrowserService } from './file-browser.service';
import { FileSearchService } from './file-search.service';
import { FilesController, ToolingController } from './files.controller';

// What DirectoryMiddleware would have put on the request (the spec boots the controller without it, as the sessions spec does).
const instance = { directory: '/work/project', worktree: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;

/** What the services were asked (the Instance is asserted to be the request's, then left out). */
const calls: unknown[][] = [];
const record = (name: string, seen: Instance, ...args: unknown[]) => {
  expect(seen).toBe(instance);
  calls.push([name, ...args]);
};
const search = {
  text: (seen: Instance, pattern: string) => {
    record('text', seen, pattern);
    if (pattern === '(') return Promise.reject(new ValidationError([issue(['pattern'], 'pattern is not a valid regular expression')], { pattern }));
    if (pattern === 'boom') return Promise.reject(new Error('EIO reading /secret/path'));
    return Promise.resolve([{ path: { text: 'a.txt' }, line_number: 1 }]);
  },
  files: (seen: Instance, query: string, options: unknown) => (record('files', seen, query, options), Promise.resolve(['a.txt'])),
  entries: (seen: Instance, query: string, options: unknown) => (record('entries', seen, query, options), Promise.resolve([{ path: 'a.txt', type: 'file' }])),
};
const browser = {
  list: (seen: Instance, path: string) => (record('list', seen, path), Promise.resolve([])),
  read: (seen: Instance, path: string) => {
    record('read', seen, path);
    if (path === 'big.bin') return Promise.reject(new PayloadTooLargeError('big.bin is too large', { path }));
    if (path === 'gone') return Promise.reject(new NotFoundError('File not found: gone'));
    return Promise.resolve({ type: 'text', content: 'alpha' });
  },
  status: (seen: Instance) => (record('status', seen), Promise.resolve([])),
};
const clientLog = { write: (entry: unknown) => calls.push(['write', entry]) };

describe('FilesController and ToolingController at the boundary (find, file, log)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [FilesController, ToolingController],
      [
        { provide: FileSearchService, useValue: search },
        { provide: FileBrowserService, useValue: browser },
        { provide: ClientLogService, useValue: clientLog },
      ],
      { instance },
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  /** A 400 BadRequestError naming `field`, the services untouched. */
  const expectRefused = async (path: string, field: string | (string | number)[]) => {
    const res = await ctx.http().get(path);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, field);
    expect(calls).toEqual([]);
  };

  describe('GET /find (find.text)', () => {
    it('200 with the matches; the service receives the pattern', async () => {
      const res = await ctx.http().get('/find').query({ pattern: 'al.ha', directory: '/work/project' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ path: { text: 'a.txt' }, line_number: 1 }]);
      expect(calls).toEqual([['text', 'al.ha']]);
    });

    it.each([
      ['without pattern', '/find', 'pattern'],
      ['with pattern given twice', '/find?pattern=a&pattern=b', 'pattern'],
      ['with a NUL in pattern', '/find?pattern=a%00b', 'pattern'],
      ['with directory given twice', '/find?pattern=a&directory=/a&directory=/b', 'directory'],
    ])('%s: 400 naming the field', (_case, path, field) => expectRefused(path, field));

    it('a pattern the service cannot compile: its ValidationError is a 400 naming pattern', async () => {
      const res = await ctx.http().get('/find?pattern=(');
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, 'pattern');
    });

    it('an unexpected service error: 500 UnknownError with the request id, nothing of the error', async () => {
      const res = await ctx.http().get('/find?pattern=boom');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
    });
  });

  describe('GET /find/file (find.files)', () => {
    it.each([
      ['query only: files and directories, 10 of them', 'query=a', ['a', { kind: 'all', limit: 10 }]],
      ['dirs=false: files only', 'query=a&dirs=false', ['a', { kind: 'file', limit: 10 }]],
      ['dirs=true: files and directories', 'query=a&dirs=true', ['a', { kind: 'all', limit: 10 }]],
      ['type=directory wins over dirs', 'query=a&dirs=false&type=directory', ['a', { kind: 'directory', limit: 10 }]],
      ['type=file', 'query=a&type=file', ['a', { kind: 'file', limit: 10 }]],
      ['limit=1 (the minimum)', 'query=&limit=1', ['', { kind: 'all', limit: 1 }]],
      ['limit=200 (the maximum)', 'query=a&limit=200', ['a', { kind: 'all', limit: 200 }]],
    ])('%s: 200, the service receives the checked values', async (_case, query, args) => {
      const res = await ctx.http().get(`/find/file?${query}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(['a.txt']);
      expect(calls).toEqual([['files', ...args]]);
    });

    it.each([
      ['without query', '/find/file', 'query'],
      ['with dirs neither true nor false', '/find/file?query=a&dirs=yes', 'dirs'],
      ['with an unknown type', '/find/file?query=a&type=symlink', 'type'],
      ['with limit 0', '/find/file?query=a&limit=0', 'limit'],
      ['with limit 201', '/find/file?query=a&limit=201', 'limit'],
      ['with a fractional limit', '/find/file?query=a&limit=1.5', 'limit'],
      ['with a limit that is no number', '/find/file?query=a&limit=ten', 'limit'],
      ['with directory given twice', '/find/file?query=a&directory=/a&directory=/b', 'directory'],
    ])('%s: 400 naming the field', (_case, path, field) => expectRefused(path, field));
  });

  describe('GET /api/fs/find (v2.fs.find)', () => {
    it('200 with the entries located in the instance; limit defaults to 50', async () => {
      const res = await ctx.http().get('/api/fs/find?query=a');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        location: { directory: '/work/project', project: { id: 'prj_1', directory: '/work/project' } },
        data: [{ path: 'a.txt', type: 'file' }],
      });
      expect(calls).toEqual([['entries', 'a', { type: undefined, limit: 50 }]]);
    });

    it('type, limit (a string in the reference) and location[directory] are accepted; the service receives type and limit', async () => {
      const res = await ctx.http().get('/api/fs/find?query=src&type=directory&limit=20&location[directory]=/work/project');
      expect(res.status).toBe(200);
      expect(calls).toEqual([['entries', 'src', { type: 'directory', limit: '20' }]]);
    });

    it.each([
      ['without query', '/api/fs/find', 'query'],
      ['with an unknown type', '/api/fs/find?query=a&type=socket', 'type'],
      ['with a location member the reference does not declare', '/api/fs/find?query=a&location[branch]=main', 'location'],
    ])('%s: 400 naming the field', (_case, path, field) => expectRefused(path, field));
  });

  describe('GET /find/symbol (find.symbols)', () => {
    it('200 with nothing (no language servers); query is still required', async () => {
      const ok = await ctx.http().get('/find/symbol?query=main');
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual([]);
      await expectRefused('/find/symbol', 'query');
    });
  });

  describe('GET /file (file.list), /file/content (file.read), /file/status (file.status)', () => {
    it('GET /file: 200; the service receives path', async () => {
      const res = await ctx.http().get('/file?path=src');
      expect(res.status).toBe(200);
      expect(calls).toEqual([['list', 'src']]);
    });

    it('GET /file/content: 200 with the content; the service receives path', async () => {
      const res = await ctx.http().get('/file/content?path=a.txt');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ type: 'text', content: 'alpha' });
      expect(calls).toEqual([['read', 'a.txt']]);
    });

    it.each([
      ['GET /file without path', '/file', 'path'],
      ['GET /file/content without path', '/file/content', 'path'],
      ['GET /file/content with path given twice', '/file/content?path=a&path=b', 'path'],
      ['GET /file/content with a NUL in path', '/file/content?path=a%00.txt', 'path'],
      ['GET /file/status with directory given twice', '/file/status?directory=/a&directory=/b', 'directory'],
    ])('%s: 400 naming the field', (_case, path, field) => expectRefused(path, field));

    it('GET /file/content of a file too large: 413 PayloadTooLargeError', async () => {
      const res = await ctx.http().get('/file/content?path=big.bin');
      expect(res.status).toBe(413);
      expect(expectSessionError(res.body, 'PayloadTooLargeError').data.message).toBe('big.bin is too large');
    });

    it('GET /file/content the service does not find: 404 NotFoundError', async () => {
      const res = await ctx.http().get('/file/content?path=gone');
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('File not found: gone');
    });

    it('GET /file/status: 200; the service receives the instance', async () => {
      const res = await ctx.http().get('/file/status');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(calls).toEqual([['status']]);
    });
  });

  describe('POST /log (app.log) and the tooling status routes', () => {
    it('POST /log: 200 (not 201) `true`; the service receives the entry', async () => {
      const entry = { service: 'tui', level: 'warn', message: 'hello', extra: { a: 1 } };
      const res = await ctx.http().post('/log').send(entry);
      expect(res.status).toBe(200);
      expect(res.body).toBe(true);
      expect(calls).toEqual([['write', entry]]);
    });

    it.each([
      ['without service', { level: 'info', message: 'm' }, 'service'],
      ['without level', { service: 's', message: 'm' }, 'level'],
      ['without message', { service: 's', level: 'info' }, 'message'],
      ['with an unknown level', { service: 's', level: 'fatal', message: 'm' }, 'level'],
      ['with a message that is not a string', { service: 's', level: 'info', message: 5 }, 'message'],
      ['with extra that is not an object', { service: 's', level: 'info', message: 'm', extra: 'x' }, 'extra'],
    ])('POST /log %s: 400 naming the field, nothing logged', async (_case, body, field) => {
      const res = await ctx.http().post('/log').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it.each([
      ['/lsp', []],
      ['/formatter', []],
      ['/mcp', {}],
    ])('GET %s: 200 with nothing running', async (path, body) => {
      const res = await ctx.http().get(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(body);
    });
  });
});
