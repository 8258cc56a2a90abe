import { BadRequestError, NotFoundError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectRoutingError } from '../../../test/support/error-bodies';
import { DataSourcesController } from './data-sources.controller';
import { DataSourcesService } from './data-sources.service';
import { DataSourceDto, SetActiveDataSourceDto } from './dto/data-source.dto';

const MASKED = { type: 'pangolin', url: 'http://pangolin:3001/api/v1', basic_auth: { username: 'admin', password: '••••••••' } };

/** What the service was asked: (method, …arguments). `unknown` names no stored source; `unreachable` fails its test. */
const calls: unknown[][] = [];
const dataSources = {
  list: () => (calls.push(['list']), { active_source: 'pangolin', sources: { pangolin: MASKED } }),
  active: () => (calls.push(['active']), { name: 'pangolin', config: MASKED, last_sync: null }),
  setActive: (body: SetActiveDataSourceDto) => {
    calls.push(['setActive', body]);
    if (body.name === 'unknown') throw new BadRequestError(`data source not found: ${body.name}`);
    return { message: 'Data source updated successfully', name: body.name };
  },
  update: (name: string, body: DataSourceDto) => {
    calls.push(['update', name, body]);
    if (name === 'broken') throw new Error('EACCES: permission denied, open /data/config.json');
    return { message: 'Data source updated successfully', name, config: MASKED };
  },
  test: (name: string, body?: DataSourceDto) => {
    calls.push(['test', name, body]);
    if (!body && name === 'unknown') return Promise.reject(new NotFoundError(`data source not found: ${name}`));
    if (name === 'unreachable') return Promise.reject(new BadRequestError('Connection test failed: connection refused'));
    return Promise.resolve({ message: 'Connection test successful', name });
  },
};

/** A body as the handler received it: its class and its own fields. */
const typed = (value: unknown) => [(value as object).constructor.name, { ...(value as object) }];

const SOURCE = { type: 'pangolin', url: 'http://pangolin:3001/api/v1/' };

describe('DataSourcesController at the boundary (/api/datasource, routing error dialect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([DataSourcesController], [{ provide: DataSourcesService, useValue: dataSources }]);
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('list and active: 200 with the service answers ("active" is not taken for a name)', async () => {
    const list = await ctx.http().get('/api/datasource');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ active_source: 'pangolin', sources: { pangolin: MASKED } });
    const active = await ctx.http().get('/api/datasource/active');
    expect(active.status).toBe(200);
    expect(active.body).toEqual({ name: 'pangolin', config: MASKED, last_sync: null });
    expect(calls).toEqual([['list'], ['active']]);
  });

  describe('PUT /api/datasource/active', () => {
    it('200; the typed body reaches the service, undeclared fields dropped', async () => {
      const res = await ctx.http().put('/api/datasource/active').send({ name: 'traefik', type: 'traefik' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Data source updated successfully', name: 'traefik' });
      expect(calls.map(([name, body]) => [name, ...typed(body)])).toEqual([['setActive', 'SetActiveDataSourceDto', { name: 'traefik' }]]);
    });

    it('name is a required non-empty string: 400 naming it; an unknown name: 400 from the service (v3)', async () => {
      for (const body of [{}, { name: '' }, { name: ' ' }, { name: 1 }, { name: null }]) {
        const res = await ctx.http().put('/api/datasource/active').send(body);
        expect(res.status).toBe(400);
        expectRoutingError(res.body, 400, 'name: is required and must be a non-empty string');
      }
      expect(calls).toEqual([]);
      const unknown = await ctx.http().put('/api/datasource/active').send({ name: 'unknown' });
      expect(unknown.status).toBe(400);
      expectRoutingError(unknown.body, 400, 'data source not found: unknown');
    });
  });

  describe('PUT /api/datasource/:name', () => {
    it('200; the name from the path and the typed body reach the service (either spelling of the credentials)', async () => {
      const res = await ctx.http().put('/api/datasource/pangolin').send({ ...SOURCE, basic_auth: { username: 'admin', password: 'pw' }, extra: 1 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Data source updated successfully', name: 'pangolin', config: MASKED });
      const ui = await ctx.http().put('/api/datasource/traefik').send({ type: 'traefik', url: 'https://traefik.example.com:8080', basicAuth: { username: 'u', password: 'p' } });
      expect(ui.status).toBe(200);
      const plain = await ctx.http().put('/api/datasource/traefik').send({ type: 'traefik', url: 'http://traefik:8080', basic_auth: null, basicAuth: {} });
      expect(plain.status).toBe(200);
      expect(calls.map(([name, source, body]) => [name, source, ...typed(body)])).toEqual([
        ['update', 'pangolin', 'DataSourceDto', { ...SOURCE, basic_auth: { username: 'admin', password: 'pw' } }],
        ['update', 'traefik', 'DataSourceDto', { type: 'traefik', url: 'https://traefik.example.com:8080', basicAuth: { username: 'u', password: 'p' } }],
        ['update', 'traefik', 'DataSourceDto', { type: 'traefik', url: 'http://traefik:8080', basic_auth: null, basicAuth: {} }],
      ]);
    });

    it('type: pangolin or traefik; url: an http(s) base URL without query, fragment or credentials (400 naming the field)', async () => {
      for (const [body, message] of [
        [{ url: SOURCE.url }, 'type: is required and must be a non-empty string'],
        [{ type: 'kubernetes', url: SOURCE.url }, 'type: unsupported data source type: kubernetes (pangolin or traefik)'],
        [{ type: 'pangolin' }, 'url: is required and must be a non-empty string'],
        [{ type: 'pangolin', url: '   ' }, 'url: is required and must be a non-empty string'],
        [{ type: 'pangolin', url: 'pangolin:3001' }, 'url: must be an http(s) URL'],
        [{ type: 'pangolin', url: 'not a url' }, 'url: must be an http(s) URL'],
        // Trailing slashes are dropped before the check: a URL of slashes only would be stored empty.
        [{ type: 'pangolin', url: '/' }, 'url: must be an http(s) URL'],
        [{ type: 'pangolin', url: ' /// ' }, 'url: must be an http(s) URL'],
        [{ type: 'pangolin', url: 'ftp://pangolin/api' }, 'url: must be an http(s) URL'],
        [{ type: 'pangolin', url: 'http://pangolin/api?x=1' }, 'url: must be a base URL without a query or fragment (paths such as /traefik-config are appended to it)'],
        [{ type: 'pangolin', url: 'http://pangolin/api#top' }, 'url: must be a base URL without a query or fragment (paths such as /traefik-config are appended to it)'],
        [{ type: 'pangolin', url: 'http://admin:pw@pangolin/api' }, 'url: must not hold credentials: send them as basic_auth'],
        [{ type: 5, url: 5 }, 'type: is required and must be a non-empty string; url: is required and must be a non-empty string'],
      ] as const) {
        const res = await ctx.http().put('/api/datasource/pangolin').send(body);
        expect([body, res.status]).toEqual([body, 400]);
        expectRoutingError(res.body, 400, message);
      }
      expect(calls).toEqual([]);
    });

    it('credentials: an object of string username and password, sent once as basic_auth or basicAuth', async () => {
      for (const [auth, message] of [
        [{ basic_auth: 'admin:pw' }, 'basic_auth: is required and must be a JSON object'],
        [{ basicAuth: ['admin', 'pw'] }, 'basicAuth: is required and must be a JSON object'],
        [{ basic_auth: { username: 1, password: true } }, 'basic_auth.username: must be a string; basic_auth.password: must be a string'],
        [{ basicAuth: { username: 'a', password: {} } }, 'basicAuth.password: must be a string'],
        [{ basic_auth: { username: 'a' }, basicAuth: { username: 'b' } }, 'basicAuth: send the credentials once, as basic_auth or basicAuth'],
      ] as const) {
        const res = await ctx.http().put('/api/datasource/pangolin').send({ ...SOURCE, ...auth });
        expect([auth, res.status]).toEqual([auth, 400]);
        expectRoutingError(res.body, 400, message);
      }
      expect(calls).toEqual([]);
    });


    it('a body that is not a JSON object: 400 naming the root, then each required field', async () => {
      const res = await ctx.http().put('/api/datasource/pangolin').send([SOURCE]);
      expect(res.status).toBe(400);
      expectRoutingError(res.body, 400, '(root): must be a JSON object; type: is required and must be a non-empty string; url: is required and must be a non-empty string');
      expect(calls).toEqual([]);
    });
  });

  describe('POST /api/datasource/:name/test', () => {
    it('200 (not 201); no body or {} tests the stored settings (the service receives undefined), a body is checked and typed', async () => {
      expect((await ctx.http().post('/api/datasource/pangolin/test')).status).toBe(200);
      expect((await ctx.http().post('/api/datasource/pangolin/test').send({})).status).toBe(200);
      const res = await ctx.http().post('/api/datasource/traefik/test').send({ type: 'traefik', url: 'http://traefik:8080' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Connection test successful', name: 'traefik' });
      expect(calls.slice(0, 2)).toEqual([
        ['test', 'pangolin', undefined],
        ['test', 'pangolin', undefined],
      ]);
      expect(calls[2].slice(0, 2)).toEqual(['test', 'traefik']);
      expect(typed(calls[2][2])).toEqual(['DataSourceDto', { type: 'traefik', url: 'http://traefik:8080' }]);
    });

    it('a body with a bad field: 400 naming it, before the service', async () => {
      const res = await ctx.http().post('/api/datasource/traefik/test').send({ type: 'traefik', url: 'http://traefik:8080?x' });
      expect(res.status).toBe(400);
      expectRoutingError(res.body, 400, /^url: must be a base URL without a query or fragment/);
      const partial = await ctx.http().post('/api/datasource/traefik/test').send({ url: 'http://traefik:8080' });
      expect(partial.status).toBe(400);
      expectRoutingError(partial.body, 400, 'type: is required and must be a non-empty string');
      expect(calls).toEqual([]);
    });

    it('no stored source of that name: 404; a failed connection: 400, both from the service', async () => {
      const unknown = await ctx.http().post('/api/datasource/unknown/test');
      expect(unknown.status).toBe(404);
      expectRoutingError(unknown.body, 404, 'data source not found: unknown');
      const unreachable = await ctx.http().post('/api/datasource/unreachable/test').send(SOURCE);
      expect(unreachable.status).toBe(400);
      expectRoutingError(unreachable.body, 400, 'Connection test failed: connection refused');
    });
  });

  it('a form body: 415; a NUL in the name: 400, before the service; an unexpected error: 500 with the request id only', async () => {
    const form = await ctx.http().put('/api/datasource/active').type('form').send('name=traefik');
    expect(form.status).toBe(415);
    expectRoutingError(form.body, 415, /must be application\/json/);
    const nul = await ctx.http().put('/api/datasource/a%00b').send(SOURCE);
    expect(nul.status).toBe(400);
    expectRoutingError(nul.body, 400, /^name: must not contain NUL/);
    expect(calls).toEqual([]);
    const broken = await ctx.http().put('/api/datasource/broken').send(SOURCE);
    expect(broken.status).toBe(500);
    expectRoutingError(broken.body, 500, `Internal server error (ref ${TEST_REQUEST_ID})`);
  });
});
