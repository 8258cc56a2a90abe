import { NotFoundError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectRoutingError } from '../../../test/support/error-bodies';
import { GenerationListQueryDto } from './dto/traefik-history.dto';
import { TraefikConfigController } from './traefik-config.controller';
import { TraefikConfigHistory } from './traefik-config-history.service';
import { TraefikConfigService } from './traefik-config.service';
import { TraefikStatusService } from './traefik-status.service';

const DOCUMENT = { http: { routers: { 'r1@http': { rule: 'Host(`a.example.com`)', service: 's1' } } } };
const STATUS = { configured: false, source: null, url: null, error: null, routers: [], services: [], middlewares: [], keel_routers: [] };
const RETENTION = { max: 100, days: 30 };

/** What the services were asked: (method, …arguments). */
const calls: unknown[][] = [];
let configFails = false;
const config = {
  forHttpProvider: () => {
    calls.push(['forHttpProvider']);
    return configFails ? Promise.reject(new Error('SQLITE_BUSY at /data/keel.db')) : Promise.resolve(DOCUMENT);
  },
};
const history = {
  list: (query: GenerationListQueryDto) => (calls.push(['list', query]), Promise.resolve({ generations: [], retention: RETENTION })),
  get: (id: number) => {
    calls.push(['get', id]);
    if (id === 404) return Promise.reject(new NotFoundError(`Generation not found: ${id}`));
    return Promise.resolve({ id, created_at: '2026-01-01T00:00:00.000Z', trigger: 'start', added: 1, removed: 0, document: 'http: {}\n', diff: '', previous_id: null });
  },
};
const status = { status: () => (calls.push(['status']), Promise.resolve(STATUS)) };

/** A query as the handler received it: its class and its own fields. */
const typed = (value: unknown) => [(value as object).constructor.name, { ...(value as object) }];

describe('TraefikConfigController at the boundary (/api/traefik*, /health, routing error dialect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [TraefikConfigController],
      [
        { provide: TraefikConfigService, useValue: config },
        { provide: TraefikConfigHistory, useValue: history },
        { provide: TraefikStatusService, useValue: status },
      ],
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => {
    calls.length = 0;
    configFails = false;
  });

  it('the dynamic configuration: 200 on both paths (v1 and v3), with the document', async () => {
    for (const path of ['/api/v1/traefik-config', '/api/traefik-config']) {
      const res = await ctx.http().get(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(DOCUMENT);
    }
    expect(calls).toEqual([['forHttpProvider'], ['forHttpProvider']]);
  });

  it('Traefik status 200; /health 200 {status: "ok"} without a service', async () => {
    const res = await ctx.http().get('/api/traefik/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(STATUS);
    const health = await ctx.http().get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect(calls).toEqual([['status']]);
  });

  describe('GET /api/traefik-config/history', () => {
    it('200; the query reaches the service typed, whole numbers kept as sent, other parameters dropped', async () => {
      const res = await ctx.http().get('/api/traefik-config/history?limit=500&before=42&page=3');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ generations: [], retention: RETENTION });
      expect((await ctx.http().get('/api/traefik-config/history?limit=1')).status).toBe(200);
      expect((await ctx.http().get(`/api/traefik-config/history?before=${Number.MAX_SAFE_INTEGER}`)).status).toBe(200);
      expect((await ctx.http().get('/api/traefik-config/history')).status).toBe(200);
      expect(calls.map(([name, query]) => [name, ...typed(query)])).toEqual([
        ['list', 'GenerationListQueryDto', { limit: '500', before: '42' }],
        ['list', 'GenerationListQueryDto', { limit: '1' }],
        ['list', 'GenerationListQueryDto', { before: String(Number.MAX_SAFE_INTEGER) }],
        ['list', 'GenerationListQueryDto', {}],
      ]);
    });

    it('limit a whole number from 1 to 500, before from 1 to 2^53 - 1, each once: 400 {code, message} naming the parameter', async () => {
      const LIMIT = 'limit: must be a whole number from 1 to 500';
      const BEFORE = `before: must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`;
      for (const [query, message] of [
        ['limit=0', LIMIT],
        ['limit=501', LIMIT],
        ['limit=-1', LIMIT],
        ['limit=2.5', LIMIT],
        ['limit=', LIMIT],
        ['limit=ten', LIMIT],
        ['limit=1&limit=2', LIMIT],
        ['before=x', BEFORE],
        ['before=0', BEFORE],
        [`before=${Number.MAX_SAFE_INTEGER + 2}`, BEFORE],
        ['limit=0&before=x', `${LIMIT}; ${BEFORE}`],
      ]) {
        const res = await ctx.http().get(`/api/traefik-config/history?${query}`);
        expect([query, res.status]).toEqual([query, 400]);
        expectRoutingError(res.body, 400, message);
      }
      expect(calls).toEqual([]);
    });
  });

  describe('GET /api/traefik-config/history/:id', () => {
    it('200 with the generation; the id from the path reaches the service as a number', async () => {
      const res = await ctx.http().get('/api/traefik-config/history/7');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 7, previous_id: null });
      expect(calls).toEqual([['get', 7]]);
    });

    it('an id that is no whole number: 400 naming id, the service not asked; an unknown one: 404; a NUL: 400', async () => {
      for (const id of ['abc', '-1', '1.5', `${Number.MAX_SAFE_INTEGER + 2}`]) {
        const bad = await ctx.http().get(`/api/traefik-config/history/${id}`);
        expect([id, bad.status]).toEqual([id, 400]);
        expectRoutingError(bad.body, 400, 'id: must be a generation id (a whole number)');
      }
      expect(calls).toEqual([]);
      const missing = await ctx.http().get('/api/traefik-config/history/404');
      expect(missing.status).toBe(404);
      expectRoutingError(missing.body, 404, 'Generation not found: 404');
      calls.length = 0;
      const nul = await ctx.http().get('/api/traefik-config/history/1%00');
      expect(nul.status).toBe(400);
      expectRoutingError(nul.body, 400, /^id: must not contain NUL/);
      expect(calls).toEqual([]);
    });
  });

  it('an unexpected error: 500 with the request id only; an unknown route under the prefix: JSON 404', async () => {
    configFails = true;
    const res = await ctx.http().get('/api/traefik-config');
    expect(res.status).toBe(500);
    expectRoutingError(res.body, 500, `Internal server error (ref ${TEST_REQUEST_ID})`);
    const unknown = await ctx.http().get('/api/traefik-config/history/1/diff');
    expect(unknown.status).toBe(404);
    expectRoutingError(unknown.body, 404, /^Route not found/);
  });
});
