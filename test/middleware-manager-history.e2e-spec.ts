import { FakeRoutingUpstream, routingApi } from './support/fake-routing-upstreams';
import { ResourceWatcher } from '../src/routing/resources/resource-watcher.service';
import { TraefikConfigHistory } from '../src/routing/traefik-output/traefik-config-history.service';
import { startKeel, TestKeel } from './support/keel';
import { SseClient } from './support/sse';

/** Resolves once `read()` satisfies `ok`, or fails with the last value after 5 s. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  let last = await read();
  while (!ok(last) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
  expect(ok(last) ? 'ok' : last).toBe('ok');
  return last;
}

// The server keeps the generations of the Traefik configuration, and reads Traefik's own status.
describe('Traefik configuration history and live Traefik status', () => {
  let keel: TestKeel;
  let pangolin: FakeRoutingUpstream;
  let traefik: FakeRoutingUpstream;
  let api: ReturnType<typeof routingApi>;
  const history = async () => (await api('GET', '/api/traefik-config/history')).body.generations;

  beforeAll(async () => {
    pangolin = await new FakeRoutingUpstream().start();
    traefik = await new FakeRoutingUpstream().start();
    pangolin.routers['1-app-router'] = {
      rule: 'Host(`app1.example.com`)',
      service: '1-app-service',
      entryPoints: ['websecure'],
      tls: { certResolver: 'letsencrypt' },
    };
    pangolin.routers['2-app-router'] = {
      rule: 'Host(`app2.example.com`)',
      service: '2-app-service',
      entryPoints: ['websecure'],
      tls: { certResolver: 'letsencrypt' },
    };
    keel = await startKeel({ env: { KEEL_MM_HISTORY_MAX: '4' } });
    api = routingApi(keel.url);
    const put = await api('PUT', '/api/datasource/pangolin', { type: 'pangolin', url: `${pangolin.url}/` });
    expect(put.status).toBe(200);
    expect(await keel.keel.app.get(ResourceWatcher).syncOnce()).toMatchObject({ added: expect.any(Array) });
    expect((await api('GET', '/api/resources')).body).toHaveLength(2);
  });
  afterAll(async () => {
    await keel?.close();
    await pangolin?.stop();
    await traefik?.stop();
  });

  it('records each generation that changed something, with its trigger and unified diff', async () => {
    // The synced routers arrive in the generation of the sync's burst. Events of one burst share a
    // generation, so the data source saved just before may be in it too; and when the data source's
    // burst was built after the sync had committed (a slow database), the routers arrive in that
    // generation instead, and the sync's own changes nothing, so records nothing.
    const latestDocument = async () => {
      const [newest] = await history();
      return newest ? ((await api('GET', `/api/traefik-config/history/${newest.id}`)).body.document as string) : '';
    };
    await until(latestDocument, (document) => document.includes('app1.example.com') && document.includes('app2.example.com'));
    const first = await history();
    expect(first[0].trigger).toMatch(/(^|; )(resources\.synced 2 added|datasource\.updated pangolin)$/);
    expect(first[0].added).toBeGreaterThan(0);

    const events = await SseClient.open(`${keel.url}/global/event`);
    const attach = await api('POST', '/api/resources/1-app-router/middlewares', {
      middleware_id: 'authelia',
      priority: 200,
    });
    expect(attach.status).toBe(200);
    const after = await until(history, (g) => g[0].trigger.startsWith('resource.updated'));
    expect(after[0].trigger).toBe('resource.updated 1-app-router');
    // Announced once stored (after the routing event that caused it), so a page showing the history refreshes.
    const recorded = await events.next((f) => f.payload?.type === 'traefik.generation.recorded' && f.payload.properties.id === after[0].id);
    expect(recorded).toMatchObject({ payload: { properties: { id: after[0].id, trigger: 'resource.updated 1-app-router' } } });
    const types = events.frames.map((f) => (f as { payload?: { type?: string } }).payload?.type);
    expect(types.indexOf('routing.resource.updated')).toBeLessThan(events.frames.indexOf(recorded));
    events.close();
    const detail = (await api('GET', `/api/traefik-config/history/${after[0].id}`)).body;
    expect(detail.previous_id).toBe(after[1].id);
    expect(detail.diff).toMatch(/^--- traefik-config@.*\n\+\+\+ traefik-config@.*\n@@ /);
    expect(detail.diff).toContain('+        - "authelia@http"\n');
    expect(detail.document).toContain('authelia@http');
    expect({ added: detail.added, removed: detail.removed }).toEqual({ added: 1, removed: 0 });

    // A change that leaves the document as it was (a priority equal to the old one) records nothing.
    const count = (await history()).length;
    await api('POST', '/api/resources/1-app-router/middlewares', {
      middleware_id: 'authelia',
      priority: 200,
    });
    await keel.keel.app.get(TraefikConfigHistory).settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await keel.keel.app.get(TraefikConfigHistory).settled();
    expect((await history()).length).toBe(count);
  });

  it('keeps at most KEEL_MM_HISTORY_MAX generations, the newest', async () => {
    for (const priority of [101, 102, 103, 104, 105]) {
      await api('PUT', '/api/resources/2-app-router/config/priority', { router_priority: priority });
      await until(history, (g) => g[0].trigger === 'resource.updated 2-app-router' && g.length > 0);
      await until(
        async () =>
          (await api('GET', `/api/traefik-config/history/${(await history())[0].id}`)).body.document,
        (document: string) => document.includes(`priority: ${priority}`),
      );
    }
    const kept = await history();
    expect(kept).toHaveLength(4);
    expect(kept.map((g: { id: number }) => g.id)).toEqual(
      [...kept.map((g: { id: number }) => g.id)].sort((a, b) => b - a),
    );
    const body = (await api('GET', '/api/traefik-config/history?limit=2')).body;
    expect(body.generations).toHaveLength(2);
    expect(body.retention).toEqual({ max: 4, days: 30 });
    const next = (await api('GET', `/api/traefik-config/history?limit=2&before=${body.generations[1].id}`))
      .body;
    expect(next.generations.map((g: { id: number }) => g.id)).toEqual(
      kept.slice(2).map((g: { id: number }) => g.id),
    );
  });

  it('answers bad queries with a 400 naming the field and unknown ids with a 404', async () => {
    const bad = await api('GET', '/api/traefik-config/history?limit=0');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('limit');
    const badBefore = await api('GET', '/api/traefik-config/history?before=x');
    expect(badBefore.status).toBe(400);
    expect(JSON.stringify(badBefore.body)).toContain('before');
    const badId = await api('GET', '/api/traefik-config/history/abc');
    expect(badId.status).toBe(400);
    expect((await api('GET', '/api/traefik-config/history/999999')).status).toBe(404);
  });

  it("reports Traefik's routers, services and middlewares and whether Keel's routers are loaded and healthy", async () => {
    expect((await api('GET', '/api/traefik/status')).body).toMatchObject({ configured: false, routers: [] });

    traefik.credentials = { username: 'ops', password: 'secret' };
    traefik.routers['1-app-router-auth@http'] = {
      rule: 'Host(`app1.example.com`)',
      service: '1-app-service@http',
      provider: 'http',
      middlewares: ['authelia@http'],
    };
    traefik.routers['api@internal'] = {
      rule: 'PathPrefix(`/api`)',
      service: 'api@internal',
      provider: 'internal',
    };
    traefik.services = [
      { name: '1-app-service@http', provider: 'http', status: 'enabled', type: 'loadbalancer' },
    ];
    traefik.middlewares = [
      {
        name: 'authelia@http',
        provider: 'http',
        status: 'warning',
        type: 'forwardauth',
        error: ['no address'],
      },
    ];
    const saved = await api('PUT', '/api/datasource/traefik', {
      type: 'traefik',
      url: traefik.url,
      basic_auth: { username: 'ops', password: 'secret' },
    });
    expect(saved.status).toBe(200);

    const status = (await api('GET', '/api/traefik/status')).body;
    expect(status).toMatchObject({ configured: true, source: 'traefik', error: null });
    expect(status.routers.map((r: { name: string }) => r.name)).toEqual([
      '1-app-router-auth@http',
      'api@internal',
    ]);
    expect(status.routers[0]).toMatchObject({
      status: 'enabled',
      middlewares: ['authelia@http'],
      errors: [],
    });
    expect(status.services).toEqual([
      { name: '1-app-service@http', provider: 'http', status: 'enabled', type: 'loadbalancer', errors: [] },
    ]);
    expect(status.middlewares[0]).toMatchObject({ status: 'warning', errors: ['no address'] });
    expect(status.keel_routers).toEqual([
      expect.objectContaining({
        resource_id: '1-app-router',
        router: '1-app-router-auth',
        loaded: true,
        healthy: true,
      }),
      expect.objectContaining({
        resource_id: '2-app-router',
        router: '2-app-router-auth',
        loaded: false,
        healthy: false,
        status: null,
      }),
    ]);
    expect(
      traefik.requests.some(
        (r) => r.path === '/api/http/middlewares' && r.authorization?.startsWith('Basic '),
      ),
    ).toBe(true);

    traefik.routers['1-app-router-auth@http'].status = 'disabled';
    traefik.routers['1-app-router-auth@http'].error = ['the service "x" does not exist'];
    const broken = (await api('GET', '/api/traefik/status')).body.keel_routers[0];
    expect(broken).toMatchObject({
      loaded: true,
      healthy: false,
      status: 'disabled',
      errors: ['the service "x" does not exist'],
    });

    traefik.failing = true;
    const down = (await api('GET', '/api/traefik/status')).body;
    expect(down).toMatchObject({ configured: true, routers: [] });
    expect(down.error).toMatch(/^Traefik could not be read: .*HTTP 500/);
    traefik.failing = false;
  });
});
