import { ConflictError, issue, NotFoundError, ValidationError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectRoutingError } from '../../../test/support/error-bodies';
import { MiddlewaresController, ServicesController } from './definitions.controller';
import type { DefinitionKind } from './definition.repository';
import { DefinitionsService } from './definitions.service';

/**
 * Status codes and the `{code, message}` body of the routing manager's definitions, on the wire
 * only: where a body is checked (the service today, a DTO pipe tomorrow) is free to change, what
 * a client receives is not.
 */
const calls: unknown[][] = [];
const stored = { id: '3f2a9c0d1e4b5a67', name: 'Authelia', type: 'forwardAuth', config: { address: 'http://auth:9091' } };

function parsed(body: unknown): typeof stored {
  const b = body as Partial<typeof stored> | undefined;
  if (typeof b?.name !== 'string' || !b.name) throw new ValidationError([issue(['name'], 'is required and must be a non-empty string', 'invalid_type')], body);
  return { ...stored, ...b };
}

const definitions = {
  list: (kind: DefinitionKind) => (calls.push(['list', kind.subject]), Promise.resolve([stored])),
  get: (kind: DefinitionKind, id: string) => {
    calls.push(['get', kind.subject, id]);
    if (id === 'broken') return Promise.reject(new Error('SQLITE_CORRUPT at /data/keel.db'));
    return id === stored.id ? Promise.resolve(stored) : Promise.reject(new NotFoundError(`${kind.label} not found`));
  },
  create: (kind: DefinitionKind, body: unknown) => Promise.resolve().then(() => (calls.push(['create', kind.subject]), parsed(body))),
  update: (kind: DefinitionKind, id: string, body: unknown) =>
    Promise.resolve().then(() => {
      const values = parsed(body);
      calls.push(['update', kind.subject, id]);
      if (id !== stored.id) throw new NotFoundError(`${kind.label} not found`);
      return { ...values, id };
    }),
  remove: (kind: DefinitionKind, id: string) => {
    calls.push(['remove', kind.subject, id]);
    if (id === 'in-use') return Promise.reject(new ConflictError(`Cannot delete ${kind.subject} because it is used by 2 resources`));
    return Promise.resolve({ message: `${kind.label} deleted successfully` });
  },
};

describe('routing definitions (/api/middlewares, /api/services) at the boundary', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([MiddlewaresController, ServicesController], [{ provide: DefinitionsService, useValue: definitions }]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  const body = { name: 'Authelia', type: 'forwardAuth', config: { address: 'http://auth:9091' } };
  // A body valid for the collection: the type's rules run at the boundary (a middleware type is no service).
  const serviceBody = { name: 'auth', type: 'loadBalancer', config: { servers: [{ url: 'http://auth:9091' }] } };
  const bodyFor = (collection: string) => (collection === 'services' ? serviceBody : body);

  it.each(['middlewares', 'services'])('/api/%s: list 200, create 201, get 200, update 200, delete 200 {message}', async (collection) => {
    const list = await ctx.http().get(`/api/${collection}`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([stored]);
    const created = await ctx.http().post(`/api/${collection}`).send(bodyFor(collection));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...stored, ...bodyFor(collection) });
    expect((await ctx.http().get(`/api/${collection}/${stored.id}`)).status).toBe(200);
    expect((await ctx.http().put(`/api/${collection}/${stored.id}`).send(bodyFor(collection))).status).toBe(200);
    const removed = await ctx.http().delete(`/api/${collection}/${stored.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: expect.stringMatching(/deleted successfully$/) });
    const subject = collection === 'middlewares' ? 'middleware' : 'service';
    expect(calls.map((c) => c.slice(0, 2))).toEqual(['list', 'create', 'get', 'update', 'remove'].map((op) => [op, subject]));
  });

  it('a body without a name: 400 {code: 400, message} naming the field', async () => {
    for (const [method, path] of [['post', '/api/middlewares'], ['put', `/api/services/${stored.id}`]] as const) {
      const res = await ctx.http()[method](path).send({ type: 'forwardAuth', config: {} });
      expect(res.status).toBe(400);
      expectRoutingError(res.body, 400, /name/);
    }
  });

  it('an unknown id: 404 {code: 404, message}', async () => {
    const got = await ctx.http().get('/api/middlewares/0000000000000000');
    expect(got.status).toBe(404);
    expectRoutingError(got.body, 404, 'Middleware not found');
    const put = await ctx.http().put('/api/services/0000000000000000').send(serviceBody);
    expect(put.status).toBe(404);
    expectRoutingError(put.body, 404, 'Service not found');
  });

  it('deleting a definition a resource uses: 409 {code: 409, message}', async () => {
    const res = await ctx.http().delete('/api/middlewares/in-use');
    expect(res.status).toBe(409);
    expectRoutingError(res.body, 409, /used by 2 resources/);
  });

  it('malformed or too-deep JSON: 400 {code, message}, before the service', async () => {
    const malformed = await ctx.http().post('/api/middlewares').set('content-type', 'application/json').send('{"name":');
    expect(malformed.status).toBe(400);
    expectRoutingError(malformed.body, 400);
    const deep = await ctx.http().post('/api/middlewares').set('content-type', 'application/json').send(`{"name":"a","config":{"a":${'['.repeat(100)}${']'.repeat(100)}}}`);
    expect(deep.status).toBe(400);
    expectRoutingError(deep.body, 400, /deeper than 64/);
    expect(calls).toEqual([]);
  });

  it('a form body: 415 {code: 415, message}; a NUL in a name or an id: 400, before the service', async () => {
    const form = await ctx.http().post('/api/middlewares').type('form').send('name=Authelia');
    expect(form.status).toBe(415);
    expectRoutingError(form.body, 415, /must be application\/json/);
    const nul = await ctx.http().post('/api/middlewares').send({ ...body, name: 'a\u0000' });
    expect(nul.status).toBe(400);
    expectRoutingError(nul.body, 400, /^name: must not contain NUL/);
    const nulId = await ctx.http().get('/api/services/a%00');
    expect(nulId.status).toBe(400);
    expectRoutingError(nulId.body, 400, /^id: must not contain NUL/);
    expect(calls).toEqual([]);
  });

  it('an unexpected error: 500 {code: 500, message} with the request id, nothing of the error itself', async () => {
    const res = await ctx.http().get('/api/middlewares/broken');
    expect(res.status).toBe(500);
    expectRoutingError(res.body, 500, `Internal server error (ref ${TEST_REQUEST_ID})`);
  });

  it('an unknown routing route: JSON 404 {code, message}', async () => {
    const res = await ctx.http().get('/api/middlewares/a/b');
    expect(res.status).toBe(404);
    expectRoutingError(res.body, 404, /^Route not found/);
  });
});
