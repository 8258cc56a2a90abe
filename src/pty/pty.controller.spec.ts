import { issue, NotFoundError, ValidationError } from '../common/errors';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import { PtyController } from './pty.controller';
import { PtyService } from './pty.service';
import type { CreatePtyInput, UpdatePtyInput } from './pty.service';
import type { PtyInfo } from './terminal';

const instance = { directory: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;
const info = (id: string, over: Partial<PtyInfo> = {}): PtyInfo => ({ id, title: 'Terminal', command: 'sh', args: [], cwd: '/work/project', status: 'running', pid: 42, ...over });

/** The PTY service as the controller sees it, recording its calls: `pty_missing` is no terminal of the directory. */
const calls: unknown[][] = [];
const known = (id: string) => {
  if (id === 'pty_missing') throw new NotFoundError(`PTY session not found: ${id}`, { ptyID: id });
};
const ptys = {
  list: (directory: string) => (calls.push(['list', directory]), [info('pty_1')]),
  create: (inst: Instance, input: CreatePtyInput) => (calls.push(['create', inst.directory, input]), Promise.resolve(info('pty_new', { command: input.command ?? 'sh' }))),
  get: (directory: string, id: string) => (calls.push(['get', directory, id]), known(id), info(id)),
  update: (directory: string, id: string, input: UpdatePtyInput) => {
    calls.push(['update', directory, id, input]);
    known(id);
    // The service's own rule (the reference only says `number`): its error must come out as the session's 400.
    if (input.size && input.size.rows < 1) throw new ValidationError([issue(['size', 'rows'], 'must be an integer between 1 and 1000')], input);
    return info(id, { title: input.title ?? 'Terminal' });
  },
  remove: (directory: string, id: string) => void (calls.push(['remove', directory, id]), known(id)),
  terminal: (directory: string, id: string) => (calls.push(['terminal', directory, id]), known(id), {}),
};

describe('PtyController at the boundary (pty.list/create/get/update/remove/connect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([PtyController], [{ provide: PtyService, useValue: ptys }], { instance });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it("GET /pty: 200 with the directory's terminals", async () => {
    const res = await ctx.http().get('/pty');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([info('pty_1')]);
    expect(calls).toEqual([['list', '/work/project']]);
  });

  describe('POST /pty (pty.create)', () => {
    it('200 (not 201) with the terminal; the service receives the instance and the checked body', async () => {
      const body = { command: 'bash', args: ['-i'], cwd: 'src', title: 'build', env: { TERM: 'dumb' } };
      const res = await ctx.http().post('/pty').send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(info('pty_new', { command: 'bash' }));
      expect(calls).toEqual([['create', '/work/project', body]]);
    });

    it('no body: the service receives an empty input (the user shell)', async () => {
      expect((await ctx.http().post('/pty')).status).toBe(200);
      expect(calls).toEqual([['create', '/work/project', {}]]);
    });

    it.each([
      ['a command that is not a string', { command: ['sh'] }, ['command']],
      ['args that are not a list', { args: '-i' }, ['args']],
      ['an arg that is not a string', { args: ['-c', 3] }, ['args', 1]],
      ['a cwd that is not a string', { cwd: 5 }, ['cwd']],
      ['an env value that is not a string', { env: { DEBUG: 1 } }, ['env', 'DEBUG']],
    ])('%s: 400 naming the field, no terminal started', async (_case, body, field) => {
      const res = await ctx.http().post('/pty').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it('a NUL in an env value: 400 naming it, no terminal started', async () => {
      const res = await ctx
        .http()
        .post('/pty')
        .send({ env: { A: 'x\u0000y' } });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, ['env', 'A']);
      expect(calls).toEqual([]);
    });
  });

  describe('GET /pty/:ptyID (pty.get)', () => {
    it('200 with the terminal', async () => {
      const res = await ctx.http().get('/pty/pty_1');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(info('pty_1'));
      expect(calls).toEqual([['get', '/work/project', 'pty_1']]);
    });

    it('an unknown terminal: 404 NotFoundError', async () => {
      const res = await ctx.http().get('/pty/pty_missing');
      expect(res.status).toBe(404);
      expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('PTY session not found: pty_missing');
    });
  });

  describe('PUT /pty/:ptyID (pty.update)', () => {
    it('200 with the terminal; the service receives the checked body', async () => {
      const body = { title: 'renamed', size: { rows: 30, cols: 100 } };
      const res = await ctx.http().put('/pty/pty_1').send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(info('pty_1', { title: 'renamed' }));
      expect(calls).toEqual([['update', '/work/project', 'pty_1', body]]);
    });

    it.each([
      ['a size without cols', { size: { rows: 30 } }, ['size', 'cols']],
      ['rows that are not a number', { size: { rows: 'tall', cols: 80 } }, ['size', 'rows']],
      ['a title that is not a string', { title: 1 }, ['title']],
    ])('%s: 400 naming the field, nothing resized', async (_case, body, field) => {
      const res = await ctx.http().put('/pty/pty_1').send(body);
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, field);
      expect(calls).toEqual([]);
    });

    it("the service's size rule: 400 BadRequestError naming size.rows", async () => {
      const res = await ctx
        .http()
        .put('/pty/pty_1')
        .send({ size: { rows: 0, cols: 80 } });
      expect(res.status).toBe(400);
      expectSessionBadRequest(res.body, ['size', 'rows']);
    });

    it('an unknown terminal: 404 NotFoundError', async () => {
      const res = await ctx.http().put('/pty/pty_missing').send({ title: 'x' });
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });
  });

  describe('DELETE /pty/:ptyID (pty.remove)', () => {
    it('200 `true`; the service removes that terminal of the directory', async () => {
      const res = await ctx.http().delete('/pty/pty_1');
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(calls).toEqual([['remove', '/work/project', 'pty_1']]);
    });

    it('an unknown terminal: 404 NotFoundError', async () => {
      const res = await ctx.http().delete('/pty/pty_missing');
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });
  });

  describe('GET /pty/:ptyID/connect without an upgrade (pty.connect)', () => {
    it('200 `true` for a running terminal', async () => {
      const res = await ctx.http().get('/pty/pty_1/connect');
      expect(res.status).toBe(200);
      expect(res.text).toBe('true');
      expect(calls).toEqual([['terminal', '/work/project', 'pty_1']]);
    });

    it('an unknown terminal: 404 NotFoundError', async () => {
      const res = await ctx.http().get('/pty/pty_missing/connect');
      expect(res.status).toBe(404);
      expectSessionError(res.body, 'NotFoundError');
    });
  });
});
