import { BadRequestError, NotFoundError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectRoutingError } from '../../../test/support/error-bodies';
import { AssignMiddlewareDto, AssignMiddlewaresDto, AssignServiceDto } from './dto/assign-middleware.dto';
import { ListResourcesQueryDto } from './dto/list-resources.dto';
import { MAX_PRIORITY, UpdateHeadersConfigDto, UpdateHttpConfigDto, UpdatePriorityConfigDto, UpdateTcpConfigDto, UpdateTlsConfigDto } from './dto/update-router.dto';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

const ID = '1-nextcloud-router';

/**
 * What the service was asked: (method, …arguments). `ghost` is an unknown resource, `disabled` one
 * every mutation of which is refused, `broken` fails as a database would.
 */
const calls: unknown[][] = [];
function answer(name: string, id: string, refusal: string, value: unknown): Promise<unknown> {
  if (id === 'ghost') return Promise.reject(new NotFoundError(`Resource not found: ${id}`));
  if (id === 'disabled') return Promise.reject(new BadRequestError(refusal));
  if (id === 'broken') return Promise.reject(new Error(`SQLITE_CORRUPT at /data/keel.db (${name})`));
  return Promise.resolve(value);
}
const op =
  (name: string, refusal = '', value: unknown = { id: ID }) =>
  (id: string, ...rest: unknown[]) => {
    calls.push([name, id, ...rest]);
    return answer(name, id, refusal, value);
  };
const resources = {
  list: (query: ListResourcesQueryDto) => (calls.push(['list', query]), Promise.resolve([])),
  get: op('get'),
  remove: op('remove', 'Only disabled resources can be deleted', { message: 'Resource deleted successfully' }),
  assignMiddleware: op('assignMiddleware', 'Cannot assign middleware to a disabled resource'),
  assignMiddlewares: op('assignMiddlewares', 'Cannot assign middleware to a disabled resource'),
  removeMiddleware: (id: string, middlewareId: string) => {
    calls.push(['removeMiddleware', id, middlewareId]);
    if (middlewareId === 'unlinked') return Promise.reject(new NotFoundError('Resource middleware relationship not found'));
    return answer('removeMiddleware', id, '', { message: 'Middleware removed from resource successfully' });
  },
  getService: op('getService'),
  assignService: op('assignService', 'Cannot assign service to a disabled resource'),
  removeService: op('removeService', '', { message: 'Service removed from resource successfully' }),
  updateHttp: op('updateHttp', 'Cannot update a disabled resource'),
  updateTls: op('updateTls'),
  updateTcp: op('updateTcp'),
  updateHeaders: op('updateHeaders'),
  updatePriority: op('updatePriority'),
};

/** A body as the handler received it: its class and its own fields. */
const typed = (value: unknown) => [(value as object).constructor.name, { ...(value as object) }];

describe('ResourcesController at the boundary (/api/resources, routing error dialect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([ResourcesController], [{ provide: ResourcesService, useValue: resources }]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  describe('GET /api/resources', () => {
    it('200; the typed query reaches the service, unknown parameters dropped', async () => {
      const res = await ctx.http().get('/api/resources').query({ status: 'disabled', sort: 'recent', page: '2' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect((await ctx.http().get('/api/resources')).status).toBe(200);
      expect(calls.map(([, query]) => typed(query))).toEqual([
        ['ListResourcesQueryDto', { status: 'disabled', sort: 'recent' }],
        ['ListResourcesQueryDto', {}],
      ]);
    });

    it('status and sort must be one of their values, once: 400 {code, message} naming the parameter', async () => {
      for (const [query, message] of [
        ['status=gone', 'status: must be one of active, disabled, all'],
        ['status=', 'status: must be one of active, disabled, all'],
        ['status=active&status=all', 'status: must be one of active, disabled, all'],
        ['sort=name', 'sort: must be one of id, recent'],
        ['status=ACTIVE&sort=Recent', 'status: must be one of active, disabled, all; sort: must be one of id, recent'],
      ]) {
        const res = await ctx.http().get(`/api/resources?${query}`);
        expect([query, res.status]).toEqual([query, 400]);
        expectRoutingError(res.body, 400, message);
      }
      expect(calls).toEqual([]);
    });
  });

  it('get 200, delete 200 {message}; the id from the path reaches the service', async () => {
    const got = await ctx.http().get(`/api/resources/${ID}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ id: ID });
    const removed = await ctx.http().delete(`/api/resources/${ID}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: 'Resource deleted successfully' });
    expect(calls).toEqual([
      ['get', ID],
      ['remove', ID],
    ]);
  });

  it('an unknown resource: 404 {code, message} on every route', async () => {
    for (const [method, path, body] of [
      ['get', '/api/resources/ghost', undefined],
      ['delete', '/api/resources/ghost', undefined],
      ['post', '/api/resources/ghost/middlewares', { middleware_id: 'auth' }],
      ['post', '/api/resources/ghost/middlewares/bulk', { middlewares: [] }],
      ['delete', '/api/resources/ghost/middlewares/auth', undefined],
      ['get', '/api/resources/ghost/service', undefined],
      ['post', '/api/resources/ghost/service', { service_id: 'lb' }],
      ['delete', '/api/resources/ghost/service', undefined],
      ['put', '/api/resources/ghost/config/http', { entrypoints: 'web' }],
      ['put', '/api/resources/ghost/config/tls', { tls_domains: 'a.example.com' }],
      ['put', '/api/resources/ghost/config/tcp', { tcp_enabled: false }],
      ['put', '/api/resources/ghost/config/headers', { custom_headers: {} }],
      ['put', '/api/resources/ghost/config/priority', { router_priority: 1 }],
    ] as const) {
      const res = await ctx.http()[method](path).send(body);
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expectRoutingError(res.body, 404, 'Resource not found: ghost');
    }
    const unlinked = await ctx.http().delete(`/api/resources/${ID}/middlewares/unlinked`);
    expect(unlinked.status).toBe(404);
    expectRoutingError(unlinked.body, 404, 'Resource middleware relationship not found');
  });

  it('a refused mutation (a disabled resource, or deleting an active one): 400 {code, message}', async () => {
    const removed = await ctx.http().delete('/api/resources/disabled');
    expect(removed.status).toBe(400);
    expectRoutingError(removed.body, 400, 'Only disabled resources can be deleted');
    const assigned = await ctx.http().post('/api/resources/disabled/middlewares').send({ middleware_id: 'auth' });
    expect(assigned.status).toBe(400);
    expectRoutingError(assigned.body, 400, 'Cannot assign middleware to a disabled resource');
  });

  describe('POST /api/resources/:id/middlewares', () => {
    it('200 (not 201); the typed body reaches the service with the id, undeclared fields dropped', async () => {
      const res = await ctx.http().post(`/api/resources/${ID}/middlewares`).send({ middleware_id: 'auth', priority: 300, note: 'x' });
      expect(res.status).toBe(200);
      const noPriority = await ctx.http().post(`/api/resources/${ID}/middlewares`).send({ middleware_id: 'auth', priority: null });
      expect(noPriority.status).toBe(200);
      // ≤ 0 is v3's "the default priority" (the service reads it so): not refused here.
      expect((await ctx.http().post(`/api/resources/${ID}/middlewares`).send({ middleware_id: 'auth', priority: -5 })).status).toBe(200);
      expect((await ctx.http().post(`/api/resources/${ID}/middlewares`).send({ middleware_id: 'auth', priority: MAX_PRIORITY })).status).toBe(200);
      expect(calls.map(([name, id, body]) => [name, id, ...typed(body)])).toEqual([
        ['assignMiddleware', ID, 'AssignMiddlewareDto', { middleware_id: 'auth', priority: 300 }],
        ['assignMiddleware', ID, 'AssignMiddlewareDto', { middleware_id: 'auth', priority: null }],
        ['assignMiddleware', ID, 'AssignMiddlewareDto', { middleware_id: 'auth', priority: -5 }],
        ['assignMiddleware', ID, 'AssignMiddlewareDto', { middleware_id: 'auth', priority: MAX_PRIORITY }],
      ]);
      expect(calls[0][2]).toBeInstanceOf(AssignMiddlewareDto);
    });

    it('middleware_id a non-empty string; priority an integer up to 2147483647: 400 naming the field', async () => {
      for (const [body, message] of [
        [{}, 'middleware_id: is required and must be a non-empty string'],
        [{ middleware_id: '  ' }, 'middleware_id: is required and must be a non-empty string'],
        [{ middleware_id: 5 }, 'middleware_id: is required and must be a non-empty string'],
        [{ middleware_id: 'auth', priority: 1.5 }, 'priority: must be an integer'],
        [{ middleware_id: 'auth', priority: '300' }, 'priority: must be an integer'],
        [{ middleware_id: 'auth', priority: MAX_PRIORITY + 1 }, 'priority: must be at most 2147483647'],
        [{ middleware_id: null, priority: true }, 'middleware_id: is required and must be a non-empty string; priority: must be an integer'],
      ] as const) {
        const res = await ctx.http().post(`/api/resources/${ID}/middlewares`).send(body);
        expect(res.status).toBe(400);
        expectRoutingError(res.body, 400, message);
      }
      const array = await ctx.http().post(`/api/resources/${ID}/middlewares`).send([{ middleware_id: 'auth' }]);
      expect(array.status).toBe(400);
      expectRoutingError(array.body, 400, '(root): must be a JSON object; middleware_id: is required and must be a non-empty string');
      expect(calls).toEqual([]);
    });
  });

  describe('POST /api/resources/:id/middlewares/bulk', () => {
    it('200; the list reaches the service with each item as sent', async () => {
      const middlewares = [{ middleware_id: 'auth', priority: 10 }, { middleware_id: 'compress' }];
      const res = await ctx.http().post(`/api/resources/${ID}/middlewares/bulk`).send({ middlewares, extra: true });
      expect(res.status).toBe(200);
      expect(calls).toEqual([['assignMiddlewares', ID, expect.any(AssignMiddlewaresDto)]]);
      expect({ ...(calls[0][2] as object) }).toEqual({ middlewares });
    });

    it('middlewares a required array whose items are checked under their index; at most 50 issues', async () => {
      const notList = await ctx.http().post(`/api/resources/${ID}/middlewares/bulk`).send({ middlewares: { middleware_id: 'auth' } });
      expect(notList.status).toBe(400);
      expectRoutingError(notList.body, 400, 'middlewares: is required and must be an array');
      const items = await ctx
        .http()
        .post(`/api/resources/${ID}/middlewares/bulk`)
        .send({ middlewares: [{ middleware_id: 'ok' }, 'auth', { middleware_id: 'x', priority: 2.5 }] });
      expect(items.status).toBe(400);
      expectRoutingError(
        items.body,
        400,
        'middlewares.1: must be a JSON object; middlewares.1.middleware_id: is required and must be a non-empty string; middlewares.2.priority: must be an integer',
      );
      const many = await ctx
        .http()
        .post(`/api/resources/${ID}/middlewares/bulk`)
        .send({ middlewares: Array.from({ length: 200 }, () => ({})) });
      expect(many.status).toBe(400);
      const message = expectRoutingError(many.body, 400).message;
      // The list stops at 50 issues; the message is then clipped to 2000 characters, saying how long it was.
      const fifty = Array.from({ length: 50 }, (_, i) => `middlewares.${i}.middleware_id: is required and must be a non-empty string`).join('; ');
      expect(message).toBe(`${fifty.slice(0, 2000)}… (${fifty.length} characters)`);
      expect(calls).toEqual([]);
    });
  });

  describe('the service of a resource', () => {
    it('get 200, assign 200 (the typed body), remove 200 {message}; an unassigned one 404 from the service', async () => {
      expect((await ctx.http().get(`/api/resources/${ID}/service`)).status).toBe(200);
      const assigned = await ctx.http().post(`/api/resources/${ID}/service`).send({ service_id: 'lb', priority: 3 });
      expect(assigned.status).toBe(200);
      const removed = await ctx.http().delete(`/api/resources/${ID}/service`);
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ message: 'Service removed from resource successfully' });
      expect(calls.map((c) => c.slice(0, 2))).toEqual([
        ['getService', ID],
        ['assignService', ID],
        ['removeService', ID],
      ]);
      expect(calls[1][2]).toBeInstanceOf(AssignServiceDto);
      expect({ ...(calls[1][2] as object) }).toEqual({ service_id: 'lb' });
    });

    it('service_id is a required non-empty string: 400 naming it', async () => {
      for (const body of [{}, { service_id: '' }, { service_id: ['lb'] }]) {
        const res = await ctx.http().post(`/api/resources/${ID}/service`).send(body);
        expect(res.status).toBe(400);
        expectRoutingError(res.body, 400, 'service_id: is required and must be a non-empty string');
      }
      expect(calls).toEqual([]);
    });
  });

  describe('PUT /api/resources/:id/config/*', () => {
    it('200 for each; the typed body reaches the service (no field is required but tcp_enabled, custom_headers and router_priority)', async () => {
      const put = (part: string, body: object) => ctx.http().put(`/api/resources/${ID}/config/${part}`).send(body);
      expect((await put('http', { entrypoints: 'web, websecure', x: 1 })).status).toBe(200);
      expect((await put('http', {})).status).toBe(200);
      expect((await put('tls', { tls_domains: '*.example.com,www.example.com' })).status).toBe(200);
      expect((await put('tcp', { tcp_enabled: true, tcp_entrypoints: 'tcp', tcp_sni_rule: 'HostSNI(`a.example.com`)' })).status).toBe(200);
      expect((await put('tcp', { tcp_enabled: false, tcp_sni_rule: '  ' })).status).toBe(200);
      expect((await put('headers', { custom_headers: { 'X-Forwarded-Proto': 'https' } })).status).toBe(200);
      expect((await put('headers', { custom_headers: {} })).status).toBe(200);
      expect((await put('priority', { router_priority: MAX_PRIORITY })).status).toBe(200);
      expect(calls.map(([name, id, body]) => [name, id, ...typed(body)])).toEqual([
        ['updateHttp', ID, UpdateHttpConfigDto.name, { entrypoints: 'web, websecure' }],
        ['updateHttp', ID, UpdateHttpConfigDto.name, {}],
        ['updateTls', ID, UpdateTlsConfigDto.name, { tls_domains: '*.example.com,www.example.com' }],
        ['updateTcp', ID, UpdateTcpConfigDto.name, { tcp_enabled: true, tcp_entrypoints: 'tcp', tcp_sni_rule: 'HostSNI(`a.example.com`)' }],
        ['updateTcp', ID, UpdateTcpConfigDto.name, { tcp_enabled: false, tcp_sni_rule: '  ' }],
        ['updateHeaders', ID, UpdateHeadersConfigDto.name, { custom_headers: { 'X-Forwarded-Proto': 'https' } }],
        ['updateHeaders', ID, UpdateHeadersConfigDto.name, { custom_headers: {} }],
        ['updatePriority', ID, UpdatePriorityConfigDto.name, { router_priority: MAX_PRIORITY }],
      ]);
    });

    it('each field has its rule: 400 {code, message} naming the field', async () => {
      for (const [part, body, message] of [
        ['http', { entrypoints: 'web secure!' }, 'entrypoints: "web secure!" is not a valid entry point name'],
        ['http', { entrypoints: 'web,-web' }, 'entrypoints: "-web" is not a valid entry point name'],
        ['http', { entrypoints: ['web'] }, 'entrypoints: must be a string'],
        ['tls', { tls_domains: 'bad domain' }, 'tls_domains: "bad domain" is not a valid domain name'],
        ['tls', { tls_domains: 'a.example.com,-a.example.com' }, 'tls_domains: "-a.example.com" is not a valid domain name'],
        ['tls', { tls_domains: 7 }, 'tls_domains: must be a string'],
        ['tcp', {}, 'tcp_enabled: is required and must be a boolean'],
        ['tcp', { tcp_enabled: 'yes' }, 'tcp_enabled: is required and must be a boolean'],
        ['tcp', { tcp_enabled: true, tcp_entrypoints: 'tcp;x' }, 'tcp_entrypoints: "tcp;x" is not a valid entry point name'],
        ['tcp', { tcp_enabled: true, tcp_sni_rule: 'Host(`x`)' }, 'tcp_sni_rule: must start with HostSNI(…) or HostSNIRegexp(…)'],
        ['tcp', { tcp_enabled: true, tcp_sni_rule: 5 }, 'tcp_sni_rule: must be a string'],
        ['headers', {}, 'custom_headers: is required and must be a JSON object'],
        ['headers', { custom_headers: [['X-A', 'b']] }, 'custom_headers: is required and must be a JSON object'],
        ['headers', { custom_headers: { 'X-Num': 5 } }, 'custom_headers.X-Num: must be a string'],
        ['headers', { custom_headers: { 'Bad Header': 'x', 'X-Ok': 'y' } }, 'custom_headers.Bad Header: is not a valid header name'],
        ['priority', {}, 'router_priority: is required'],
        ['priority', { router_priority: 0 }, 'router_priority: must be between 1 and 2147483647'],
        ['priority', { router_priority: MAX_PRIORITY + 1 }, 'router_priority: must be between 1 and 2147483647'],
        ['priority', { router_priority: 1.5 }, 'router_priority: must be an integer'],
        ['priority', { router_priority: '250' }, 'router_priority: must be an integer'],
      ] as const) {
        const res = await ctx.http().put(`/api/resources/${ID}/config/${part}`).send(body);
        expect([part, body, res.status]).toEqual([part, body, 400]);
        expectRoutingError(res.body, 400, message);
      }
      expect(calls).toEqual([]);
    });

    it('a number JSON reads as Infinity: 400 naming the field', async () => {
      const res = await ctx.http().put(`/api/resources/${ID}/config/priority`).set('content-type', 'application/json').send('{"router_priority":1e309}');
      expect(res.status).toBe(400);
      expectRoutingError(res.body, 400, 'router_priority: must be an integer');
      expect(calls).toEqual([]);
    });
  });

  it('a form body: 415; a NUL in an id or a body string: 400, before the service', async () => {
    const form = await ctx.http().post(`/api/resources/${ID}/middlewares`).type('form').send('middleware_id=auth');
    expect(form.status).toBe(415);
    expectRoutingError(form.body, 415, /must be application\/json/);
    const nulId = await ctx.http().get('/api/resources/a%00b');
    expect(nulId.status).toBe(400);
    expectRoutingError(nulId.body, 400, /^id: must not contain NUL/);
    const nulBody = await ctx.http().post(`/api/resources/${ID}/service`).send({ service_id: 'lb\u0000' });
    expect(nulBody.status).toBe(400);
    expectRoutingError(nulBody.body, 400, /^service_id: must not contain NUL/);
    expect(calls).toEqual([]);
  });

  it('an unexpected error: 500 with the request id only; an unknown route: JSON 404', async () => {
    const res = await ctx.http().get('/api/resources/broken');
    expect(res.status).toBe(500);
    expectRoutingError(res.body, 500, `Internal server error (ref ${TEST_REQUEST_ID})`);
    const unknown = await ctx.http().get(`/api/resources/${ID}/config/http`);
    expect(unknown.status).toBe(404);
    expectRoutingError(unknown.body, 404, /^Route not found/);
  });
});
