import { NotFoundError } from '../common/errors';
import { KEEL_SETTINGS } from '../common/settings';
import type { Instance } from '../projects/instance.service';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { expectSessionBadRequest, expectSessionError } from '../../test/support/error-bodies';
import type { Session } from './session.entity';
import { SessionService } from './session.service';
import { SessionStatusService } from './session-status.service';
import { TodoService } from './todo.service';
import { SessionsController } from './sessions.controller';

const instance = { directory: '/work/project', project: { id: 'prj_1' } } as unknown as Instance;

function session(id: string, title = 'a session'): Session {
  return {
    id,
    slug: 'brave-otter',
    projectID: 'prj_1',
    directory: '/work/project',
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    title,
    version: '1.0.0',
    time: { created: 1, updated: 1 },
  };
}

/** The session service as the controller sees it: what it was asked, and a missing id for `ses_missing`. */
const calls: unknown[][] = [];
const sessions = {
  list: (projectID: string) => (calls.push(['list', projectID]), Promise.resolve([session('ses_1')])),
  create: (_instance: Instance, input: { title?: string; parentID?: string }) => (calls.push(['create', input]), Promise.resolve(session('ses_new', input.title))),
  get: (id: string) => {
    calls.push(['get', id]);
    if (id === 'ses_missing') return Promise.reject(new NotFoundError(`Session not found: ${id}`));
    if (id === 'ses_broken') return Promise.reject(new Error('disk on fire at /secret/path'));
    return Promise.resolve(session(id));
  },
  update: (id: string, patch: { title?: string; archived?: number }) => (calls.push(['update', id, patch]), Promise.resolve(session(id, patch.title))),
  delete: (id: string) => (calls.push(['delete', id]), Promise.resolve()),
};

describe('SessionsController at the boundary (reference validator, guards, session error dialect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [SessionsController],
      [
        { provide: SessionService, useValue: sessions },
        { provide: SessionStatusService, useValue: { nonIdle: () => ({ ses_1: { type: 'busy' } }) } },
        { provide: TodoService, useValue: { get: () => Promise.resolve([]) } },
        { provide: KEEL_SETTINGS, useValue: { publicUrl: 'https://keel.example.test' } },
      ],
      { instance },
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('POST /session: a valid body reaches the service and the session is answered 200', async () => {
    const res = await ctx.http().post('/session').send({ title: 'hello', parentID: 'ses_parent' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'ses_new', title: 'hello' });
    expect(calls).toEqual([['create', { title: 'hello', parentID: 'ses_parent' }]]);
  });

  it('POST /session without a body creates with no input', async () => {
    const res = await ctx.http().post('/session');
    expect(res.status).toBe(200);
    expect(calls).toEqual([['create', {}]]);
  });

  it.each([
    ['a title that is not a string', { title: 5 }, ['title']],
    ['a parentID without the ses prefix', { parentID: 'msg_1' }, ['parentID']],
  ])('POST /session with %s: 400 BadRequestError naming the field, service untouched', async (_case, body, path) => {
    const res = await ctx.http().post('/session').send(body);
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, path);
    expect(calls).toEqual([]);
  });

  it('POST /session with malformed JSON: 400 in the session dialect', async () => {
    const res = await ctx.http().post('/session').set('content-type', 'application/json').send('{"title":');
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body);
    expect(calls).toEqual([]);
  });

  it('POST /session with JSON nested deeper than 64 levels: 400 at parse time', async () => {
    const res = await ctx.http().post('/session').set('content-type', 'application/json').send(`{"title":${'['.repeat(100)}${']'.repeat(100)}}`);
    expect(res.status).toBe(400);
    expect(expectSessionBadRequest(res.body).error[0].message).toMatch(/deeper than 64/);
  });

  it('POST /session with a text/plain body: 415, never read', async () => {
    const res = await ctx.http().post('/session').set('content-type', 'text/plain').send('{"title":"x"}');
    expect(res.status).toBe(415);
    expect(expectSessionError(res.body, 'UnsupportedMediaTypeError').data.message).toMatch(/application\/json/);
    expect(calls).toEqual([]);
  });

  it('GET /session/:id: 200; an id without the ses prefix is a 400 naming sessionID', async () => {
    expect((await ctx.http().get('/session/ses_1')).status).toBe(200);
    const res = await ctx.http().get('/session/msg_1');
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'sessionID');
    expect(calls).toEqual([['get', 'ses_1']]);
  });

  it('GET /session/:id with a NUL in the id: 400, before the service', async () => {
    const res = await ctx.http().get('/session/ses_a%00b');
    expect(res.status).toBe(400);
    expectSessionBadRequest(res.body, 'sessionID');
    expect(calls).toEqual([]);
  });

  it('GET /session/:id the service does not know: 404 NotFoundError', async () => {
    const res = await ctx.http().get('/session/ses_missing');
    expect(res.status).toBe(404);
    expect(expectSessionError(res.body, 'NotFoundError').data.message).toBe('Session not found: ses_missing');
  });

  it('an unexpected error: 500 UnknownError with the request id, no message or stack of its own', async () => {
    const res = await ctx.http().get('/session/ses_broken');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
  });

  it('PATCH /session/:id: title and time.archived reach the service; a non-numeric archived is a 400 at time.archived', async () => {
    const ok = await ctx.http().patch('/session/ses_1').send({ title: 'renamed', time: { archived: 5 } });
    expect(ok.status).toBe(200);
    expect(calls).toEqual([['update', 'ses_1', { title: 'renamed', archived: 5 }]]);
    const bad = await ctx.http().patch('/session/ses_1').send({ time: { archived: 'yesterday' } });
    expect(bad.status).toBe(400);
    expectSessionBadRequest(bad.body, ['time', 'archived']);
  });

  it('DELETE /session/:id answers the JSON `true` of the reference', async () => {
    const res = await ctx.http().delete('/session/ses_1');
    expect(res.status).toBe(200);
    expect(res.text).toBe('true');
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('GET /session/status is not taken for a session id', async () => {
    const res = await ctx.http().get('/session/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ses_1: { type: 'busy' } });
    expect(calls).toEqual([]);
  });

  it('an unknown route: JSON 404 NotFoundError', async () => {
    const res = await ctx.http().get('/session/ses_1/nothing-here');
    expect(res.status).toBe(404);
    expectSessionError(res.body, 'NotFoundError');
  });
});
