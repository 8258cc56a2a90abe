import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { ResourceWatcher } from '../src/routing/resources/resource-watcher.service';
import { SseClient } from './support/sse';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startKeel, TestKeel } from './support/keel';
import { expectRoutingError, FakeRoutingUpstream, routingApi } from './support/fake-routing-upstreams';

const MASK = '••••••••';

describe('routing manager: data sources and sync against fake Pangolin and Traefik APIs', () => {
  let keel: TestKeel;
  let api: ReturnType<typeof routingApi>;
  let watcher: ResourceWatcher;
  let pangolin: FakeRoutingUpstream;
  let traefik: FakeRoutingUpstream;

  const statuses = async () =>
    Object.fromEntries(
      ((await api('GET', '/api/resources')).body as { id: string; status: string }[]).map((r) => [
        r.id,
        r.status,
      ]),
    );

  beforeAll(async () => {
    pangolin = await new FakeRoutingUpstream().start();
    traefik = await new FakeRoutingUpstream().start();
    process.env.KEEL_MM_DEFAULT_MIDDLEWARES = 'authelia:300,ghost';
    keel = await startKeel();
    delete process.env.KEEL_MM_DEFAULT_MIDDLEWARES;
    api = routingApi(keel.url);
    watcher = keel.keel.app.get(ResourceWatcher);
  });

  afterAll(async () => {
    await keel.close();
    await pangolin.stop();
    await traefik.stop();
  });

  it('manages data sources with passwords masked everywhere', async () => {
    const initial = await api('GET', '/api/datasource');
    expect(initial.body).toEqual({
      active_source: 'pangolin',
      sources: {
        pangolin: {
          type: 'pangolin',
          url: 'http://pangolin:3001/api/v1',
          basic_auth: { username: '', password: '' },
        },
        traefik: { type: 'traefik', url: 'http://traefik:8080', basic_auth: { username: '', password: '' } },
      },
    });
    pangolin.credentials = { username: 'mm', password: 's3cret' };
    const saved = await api('PUT', '/api/datasource/pangolin', {
      type: 'pangolin',
      url: `${pangolin.url}/`,
      basic_auth: { username: 'mm', password: 's3cret' },
    });
    expect(saved).toEqual({
      status: 200,
      body: {
        message: 'Data source updated successfully',
        name: 'pangolin',
        config: { type: 'pangolin', url: pangolin.url, basic_auth: { username: 'mm', password: MASK } },
      },
    });
    expect((await api('GET', '/api/datasource')).body.sources.pangolin.basic_auth).toEqual({
      username: 'mm',
      password: MASK,
    });
    expect(await api('GET', '/api/datasource/active')).toEqual({
      status: 200,
      body: {
        name: 'pangolin',
        config: { type: 'pangolin', url: pangolin.url, basic_auth: { username: 'mm', password: MASK } },
        last_sync: null,
      },
    });
    // A UI echoing the mask back keeps the stored password.
    await api('PUT', '/api/datasource/pangolin', {
      type: 'pangolin',
      url: pangolin.url,
      basic_auth: { username: 'mm', password: MASK },
    });
    expect(await api('POST', '/api/datasource/pangolin/test', {})).toEqual({
      status: 200,
      body: { message: 'Connection test successful', name: 'pangolin' },
    });
    expect(pangolin.requests.at(-1)).toEqual({
      path: '/traefik-config',
      authorization: `Basic ${Buffer.from('mm:s3cret').toString('base64')}`,
    });
    expectRoutingError(
      await api('POST', '/api/datasource/pangolin/test', {
        type: 'pangolin',
        url: pangolin.url,
        basic_auth: { username: 'mm', password: 'wrong' },
      }),
      400,
      'Connection test failed',
    );
    expectRoutingError(
      await api('POST', '/api/datasource/nowhere/test'),
      404,
      'data source not found: nowhere',
    );
    const closed = await new FakeRoutingUpstream().start();
    await closed.stop();
    // A closed port and a port that never answers read the same: the test button is no port scanner.
    const refused = await api('POST', '/api/datasource/traefik/test', { type: 'traefik', url: closed.url });
    expectRoutingError(refused, 400, /^Connection test failed: could not connect/);
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const hanging = await api('POST', '/api/datasource/traefik/test', { type: 'traefik', url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
      expect(hanging).toEqual(refused);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
    for (const url of [`${pangolin.url}/internal-admin?`, `${pangolin.url}/x?a=1`, `${pangolin.url}/#x`, 'http://user:pw@127.0.0.1:1']) {
      expectRoutingError(await api('PUT', '/api/datasource/x', { type: 'pangolin', url }), 400, /^url: /);
      expectRoutingError(await api('POST', '/api/datasource/x/test', { type: 'pangolin', url }), 400, /^url: /);
    }
    expectRoutingError(
      await api('PUT', '/api/datasource/x', { type: 'consul', url: 'http://127.0.0.1:1' }),
      400,
      'type',
    );
    expectRoutingError(
      await api('PUT', '/api/datasource/x', { type: 'traefik', url: 'not a url' }),
      400,
      'url',
    );
    expectRoutingError(
      await api('PUT', '/api/datasource/active', { name: 'nowhere' }),
      400,
      'data source not found: nowhere',
    );
    expectRoutingError(await api('PUT', '/api/datasource/active', {}), 400, 'name');
  });

  it('builds the upstream URL from the base URL\'s parts: its path is kept, the reader\'s path appended', async () => {
    const before = pangolin.requests.length;
    expect((await api('POST', '/api/datasource/pangolin/test', { type: 'pangolin', url: `${pangolin.url}/api/v1/`, basic_auth: pangolin.credentials })).status).toBe(200);
    expect(pangolin.requests.slice(before).map((r) => r.path)).toEqual(['/api/v1/traefik-config']);
  });

  it('takes the credentials the UI sends as basicAuth, stores them once and uses them upstream', async () => {
    pangolin.credentials = { username: 'ui-user', password: 'typed in the UI' };
    const saved = await api('PUT', '/api/datasource/pangolin', {
      type: 'pangolin',
      url: pangolin.url,
      basicAuth: { username: 'ui-user', password: 'typed in the UI' },
    });
    expect(saved).toEqual({
      status: 200,
      body: {
        message: 'Data source updated successfully',
        name: 'pangolin',
        config: { type: 'pangolin', url: pangolin.url, basic_auth: { username: 'ui-user', password: MASK } },
      },
    });
    const listed = await api('GET', '/api/datasource');
    expect(listed.body.sources.pangolin.basic_auth).toEqual({ username: 'ui-user', password: MASK });
    expect(JSON.stringify(listed.body)).not.toContain('typed in the UI');
    // Stored under v3's one spelling, so config.json stays interchangeable with v3's.
    const file = JSON.parse(readFileSync(join(keel.dataDir, 'middleware-manager', 'config.json'), 'utf8'));
    expect(file.data_sources.pangolin).toEqual({
      type: 'pangolin',
      url: pangolin.url,
      basic_auth: { username: 'ui-user', password: 'typed in the UI' },
    });
    const expected = `Basic ${Buffer.from('ui-user:typed in the UI').toString('base64')}`;
    expect(await api('POST', '/api/datasource/pangolin/test')).toEqual({
      status: 200,
      body: { message: 'Connection test successful', name: 'pangolin' },
    });
    expect(pangolin.requests.at(-1)).toEqual({ path: '/traefik-config', authorization: expected });
    expect(await watcher.syncOnce()).not.toBeNull();
    expect(pangolin.requests.at(-1)).toEqual({ path: '/traefik-config', authorization: expected });
    // Testing unsaved settings takes the same spelling.
    expectRoutingError(
      await api('POST', '/api/datasource/pangolin/test', {
        type: 'pangolin',
        url: pangolin.url,
        basicAuth: { username: 'ui-user', password: 'wrong' },
      }),
      400,
      'Connection test failed',
    );
    expectRoutingError(
      await api('PUT', '/api/datasource/pangolin', {
        type: 'pangolin',
        url: pangolin.url,
        basic_auth: { username: 'a', password: 'b' },
        basicAuth: { username: 'c', password: 'd' },
      }),
      400,
      'basicAuth',
    );
    expectRoutingError(
      await api('PUT', '/api/datasource/pangolin', { type: 'pangolin', url: pangolin.url, basicAuth: 'x' }),
      400,
      'basicAuth',
    );

    await api('PUT', '/api/datasource/pangolin', {
      type: 'pangolin',
      url: pangolin.url,
      basic_auth: { username: 'mm', password: 's3cret' },
    });
    pangolin.credentials = { username: 'mm', password: 's3cret' };
  });

  it('imports Pangolin routers, disables vanished ones, re-activates returning ones', async () => {
    pangolin.routers = {
      '1-nextcloud-router': {
        rule: 'Host(`cloud.example.com`)',
        service: '1-nextcloud-service',
        entryPoints: ['websecure'],
        tls: { certResolver: 'letsencrypt' },
      },
      '1-nextcloud-router-redirect': {
        rule: 'Host(`cloud.example.com`)',
        service: '1-nextcloud-service',
        entryPoints: ['web'],
      },
      '2-photos-router': {
        rule: 'Host(`photos.example.com`) && PathPrefix(`/`)',
        service: '2-photos-service',
        entryPoints: ['websecure'],
        tls: { certResolver: 'letsencrypt' },
      },
      'next-router': {
        rule: 'Host(`pangolin.example.com`)',
        service: 'next-service',
        tls: { certResolver: 'letsencrypt' },
      },
    };
    const events = await SseClient.open(`${keel.url}/global/event`);
    expect(await watcher.syncOnce()).toEqual({
      source: 'pangolin',
      added: ['1-nextcloud-router', '2-photos-router'],
      updated: [],
      reactivated: [],
      disabled: [],
    });
    const frame: any = await events.next((f: any) => f.payload?.type === 'routing.resources.synced');
    expect(frame.payload.properties.added).toEqual(['1-nextcloud-router', '2-photos-router']);
    events.close();
    const cloud = (await api('GET', '/api/resources/1-nextcloud-router')).body;
    expect(cloud).toMatchObject({
      host: 'cloud.example.com',
      service_id: '1-nextcloud-service',
      status: 'active',
      source_type: 'pangolin',
      entrypoints: 'websecure',
      router_priority: 200,
      org_id: 'unknown',
      // Default middlewares (issue #56); an unknown one is skipped.
      middlewares: 'authelia:Authelia:300',
    });
    expect((await api('GET', '/api/resources/2-photos-router')).body.host).toBe('photos.example.com');

    // Nothing changed: a second sync is a no-op.
    expect(await watcher.syncOnce()).toEqual({
      source: 'pangolin',
      added: [],
      updated: [],
      reactivated: [],
      disabled: [],
    });
    // The latest poll's outcome, for the console's dashboard.
    expect((await api('GET', '/api/datasource/active')).body.last_sync).toEqual({
      source: 'pangolin',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      ok: true,
      routers: 2,
      added: 0,
      updated: 0,
      reactivated: 0,
      disabled: 0,
    });

    // Vanish: disabled, assignments kept.
    await api('POST', '/api/resources/2-photos-router/middlewares', {
      middleware_id: 'basic-auth',
      priority: 150,
    });
    await api('PUT', '/api/resources/2-photos-router/config/priority', { router_priority: 321 });
    const photos = pangolin.routers['2-photos-router'];
    delete pangolin.routers['2-photos-router'];
    expect((await watcher.syncOnce())?.disabled).toEqual(['2-photos-router']);
    expect(await statuses()).toEqual({ '1-nextcloud-router': 'active', '2-photos-router': 'disabled' });
    expect((await api('GET', '/api/resources/2-photos-router')).body.middlewares).toBe(
      'authelia:Authelia:300,basic-auth:Basic Auth:150',
    );

    // Return: re-activated with the user's settings and assignments.
    pangolin.routers['2-photos-router'] = photos;
    expect((await watcher.syncOnce())?.reactivated).toEqual(['2-photos-router']);
    expect((await api('GET', '/api/resources/2-photos-router')).body).toMatchObject({
      status: 'active',
      router_priority: 321,
      middlewares: 'authelia:Authelia:300,basic-auth:Basic Auth:150',
    });
  });

  it('follows renames exactly: a new host updates the row, a new router id is a new resource', async () => {
    pangolin.routers['1-nextcloud-router'].rule = 'Host(`files.example.com`)';
    expect((await watcher.syncOnce())?.updated).toEqual(['1-nextcloud-router']);
    expect((await api('GET', '/api/resources/1-nextcloud-router')).body).toMatchObject({
      host: 'files.example.com',
      middlewares: 'authelia:Authelia:300',
    });

    // `2-photos-router-v2` must not be bound to `2-photos-router` by prefix (v3 did).
    pangolin.routers['2-photos-router-v2'] = pangolin.routers['2-photos-router'];
    delete pangolin.routers['2-photos-router'];
    expect(await watcher.syncOnce()).toMatchObject({
      added: ['2-photos-router-v2'],
      disabled: ['2-photos-router'],
    });
    expect(await statuses()).toEqual({
      '1-nextcloud-router': 'active',
      '2-photos-router': 'disabled',
      '2-photos-router-v2': 'active',
    });
  });

  it('changes nothing when the fetch fails', async () => {
    const before = (await api('GET', '/api/resources')).body;
    pangolin.failing = true;
    expect(await watcher.syncOnce()).toBeNull();
    expect((await api('GET', '/api/datasource/active')).body.last_sync).toEqual({
      source: 'pangolin',
      at: expect.any(String),
      ok: false,
      error: expect.stringContaining('500'),
    });
    pangolin.failing = false;
    pangolin.credentials = { username: 'mm', password: 'rotated' };
    expect(await watcher.syncOnce()).toBeNull();
    pangolin.credentials = undefined;
    expect((await api('GET', '/api/resources')).body).toEqual(before);
  });

  it('reads the Traefik API: skips internal routers and the routers Keel generated, keeps TLS domains', async () => {
    traefik.routers = {
      'whoami@docker': {
        rule: 'Host(`whoami.example.com`)',
        service: 'whoami',
        entryPoints: ['websecure'],
        priority: 250,
        tls: { domains: [{ main: 'whoami.example.com', sans: ['www.whoami.example.com'] }] },
      },
      'api@internal': { rule: 'PathPrefix(`/api`)', service: 'api@internal', provider: 'internal' },
      'dashboard@internal': {
        rule: 'Host(`traefik.example.com`)',
        service: 'dashboard@internal',
        provider: 'internal',
      },
      'static@file': { rule: 'Host(`static.example.com`)', service: 'static-svc', provider: 'file' },
      'whoami-auth@file': { rule: 'Host(`whoami.example.com`)', service: 'whoami@docker', provider: 'file' },
      '1-nextcloud-router-auth@file': {
        rule: 'Host(`files.example.com`)',
        service: 'x@http',
        provider: 'file',
      },
    };
    await api('PUT', '/api/datasource/traefik', { type: 'traefik', url: traefik.url });
    expect(await api('PUT', '/api/datasource/active', { name: 'traefik' })).toEqual({
      status: 200,
      body: { message: 'Data source updated successfully', name: 'traefik' },
    });
    const result = await watcher.syncOnce();
    expect(result).toEqual({
      source: 'traefik',
      added: ['static', 'whoami'],
      updated: [],
      reactivated: [],
      disabled: ['1-nextcloud-router', '2-photos-router-v2'],
    });
    expect((await api('GET', '/api/resources/whoami')).body).toMatchObject({
      host: 'whoami.example.com',
      service_id: 'whoami@docker',
      source_type: 'traefik',
      tls_domains: 'whoami.example.com,www.whoami.example.com',
      router_priority: 251,
      status: 'active',
    });
    expect(traefik.requests.at(-1)?.path).toBe('/api/http/routers');
    expect((await api('GET', '/api/resources/static')).body.service_id).toBe('static-svc@file');
    const { body } = await api('GET', '/api/v1/traefik-config');
    expect(body.http.routers['static-auth'].service).toBe('static-svc@file');
    expect(body.http.routers['whoami-auth']).toMatchObject({
      service: 'whoami@docker',
      middlewares: ['authelia@http'],
      priority: 251,
    });
  });
});

describe('routing manager: the watcher runs on its interval and stops with the application', () => {
  it('polls the configured source on its own and stops on close', async () => {
    const upstream = await new FakeRoutingUpstream().start();
    upstream.routers = {
      'a-router': { rule: 'Host(`a.example.com`)', service: 'a-service', tls: { certResolver: 'le' } },
    };
    process.env.KEEL_MM_CHECK_INTERVAL_SECONDS = '0.1';
    process.env.KEEL_MM_PANGOLIN_URL = upstream.url;
    const keel = await startKeel();
    delete process.env.KEEL_MM_CHECK_INTERVAL_SECONDS;
    delete process.env.KEEL_MM_PANGOLIN_URL;
    const api = routingApi(keel.url);
    try {
      let ids: string[] = [];
      for (let i = 0; i < 50 && ids.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        ids = ((await api('GET', '/api/resources')).body as { id: string }[]).map((r) => r.id);
      }
      expect(ids).toEqual(['a-router']);
    } finally {
      await keel.close();
    }
    const count = upstream.requests.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(upstream.requests.length).toBe(count);
    await upstream.stop();
  });
});

describe('routing manager: a fresh install does not poll the seeded placeholder source', () => {
  it('lists the placeholder, logs once that it is not configured, and polls it once saved', async () => {
    const upstream = await new FakeRoutingUpstream().start();
    upstream.routers = {
      'b-router': { rule: 'Host(`b.example.com`)', service: 'b-service', tls: { certResolver: 'le' } },
    };
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const log = jest.spyOn(Logger.prototype, 'log');
    const messages = (spy: jest.SpyInstance) =>
      spy.mock.calls.map(([entry]) => entry as { msg?: string; source?: string });
    // Routing settings come from the process environment (as the existing watcher test sets them).
    process.env.KEEL_MM_CHECK_INTERVAL_SECONDS = '0.05';
    process.env.KEEL_MM_FETCH_TIMEOUT_SECONDS = '0.5';
    const keel = await startKeel();
    delete process.env.KEEL_MM_CHECK_INTERVAL_SECONDS;
    delete process.env.KEEL_MM_FETCH_TIMEOUT_SECONDS;
    const api = routingApi(keel.url);
    try {
      expect((await api('GET', '/api/datasource/active')).body).toEqual({
        name: 'pangolin',
        config: {
          type: 'pangolin',
          url: 'http://pangolin:3001/api/v1',
          basic_auth: { username: '', password: '' },
        },
        last_sync: null,
      });
      // Twenty ticks: a poll of the placeholder would have failed (and warned) by now.
      await new Promise((r) => setTimeout(r, 1000));
      expect(messages(warn).filter((m) => m?.msg?.startsWith('data source fetch failed'))).toEqual([]);
      expect(messages(log).filter((m) => m?.msg?.startsWith('active data source not configured'))).toEqual([
        expect.objectContaining({ source: 'pangolin' }),
      ]);

      // Saved by a user: configured from now on, polled at once and on every tick.
      await api('PUT', '/api/datasource/pangolin', { type: 'pangolin', url: upstream.url });
      let ids: string[] = [];
      for (let i = 0; i < 50 && ids.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        ids = ((await api('GET', '/api/resources')).body as { id: string }[]).map((r) => r.id);
      }
      expect(ids).toEqual(['b-router']);
      // Only what someone configured is written back: the traefik placeholder stays out of config.json.
      const file = JSON.parse(readFileSync(join(keel.dataDir, 'middleware-manager', 'config.json'), 'utf8'));
      expect(Object.keys(file.data_sources)).toEqual(['pangolin']);
    } finally {
      await keel.close();
      warn.mockRestore();
      log.mockRestore();
      await upstream.stop();
    }
  });

  it('polls a placeholder source a user activated', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    process.env.KEEL_MM_CHECK_INTERVAL_SECONDS = '0.05';
    process.env.KEEL_MM_FETCH_TIMEOUT_SECONDS = '0.5';
    const keel = await startKeel();
    delete process.env.KEEL_MM_CHECK_INTERVAL_SECONDS;
    delete process.env.KEEL_MM_FETCH_TIMEOUT_SECONDS;
    try {
      // The user's explicit choice: Keel tries it (and says why it fails) rather than second-guess it.
      await routingApi(keel.url)('PUT', '/api/datasource/active', { name: 'traefik' });
      let failures: { msg?: string; source?: string }[] = [];
      for (let i = 0; i < 60 && failures.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        failures = warn.mock.calls
          .map(([entry]) => entry as { msg?: string; source?: string })
          .filter((m) => m?.msg?.startsWith('data source fetch failed'));
      }
      expect(failures[0]).toEqual(expect.objectContaining({ source: 'traefik' }));
      const file = JSON.parse(readFileSync(join(keel.dataDir, 'middleware-manager', 'config.json'), 'utf8'));
      expect(file).toEqual({
        active_data_source: 'traefik',
        data_sources: {
          traefik: {
            type: 'traefik',
            url: 'http://traefik:8080',
            basic_auth: { username: '', password: '' },
          },
        },
      });
    } finally {
      await keel.close();
      warn.mockRestore();
    }
  });
});
