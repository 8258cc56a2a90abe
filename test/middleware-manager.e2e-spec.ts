import { DataSource } from 'typeorm';
import { SseClient } from './support/sse';
import { startKeel, TestKeel } from './support/keel';
import { expectRoutingError, routingApi } from './support/fake-routing-upstreams';
import {
  V3_TEMPLATES_YAML,
  V3_UI_MIDDLEWARE_TEMPLATES,
  V3_UI_SERVICE_TEMPLATES,
} from './support/middleware-manager-v3-templates';

const DEFAULT_MIDDLEWARES = [
  {
    id: 'authelia',
    name: 'Authelia',
    type: 'forwardAuth',
    config: {
      address: 'http://authelia:9091/api/authz/forward-auth',
      trustForwardHeader: true,
      authResponseHeaders: ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email'],
    },
  },
  {
    id: 'authentik',
    name: 'Authentik',
    type: 'forwardAuth',
    config: {
      address: 'http://authentik:9000/outpost.goauthentik.io/auth/traefik',
      trustForwardHeader: true,
      authResponseHeaders: [
        'X-authentik-username',
        'X-authentik-groups',
        'X-authentik-email',
        'X-authentik-name',
        'X-authentik-uid',
      ],
    },
  },
  {
    id: 'basic-auth',
    name: 'Basic Auth',
    type: 'basicAuth',
    config: { users: ['admin:$apr1$H6uskkkW$IgXLP6ewTrSuBkTrqE8wj/'] },
  },
];
const DEFAULT_SERVICES = [
  {
    id: 'simple-lb',
    name: 'Simple LoadBalancer',
    type: 'loadBalancer',
    config: { servers: [{ url: 'http://localhost:8080' }] },
  },
  {
    id: 'weighted-demo',
    name: 'Weighted Service Demo',
    type: 'weighted',
    config: {
      services: [
        { name: 'service1', weight: 3 },
        { name: 'service2', weight: 1 },
      ],
    },
  },
  {
    id: 'failover-demo',
    name: 'Failover Demo',
    type: 'failover',
    config: { service: 'main', fallback: 'backup' },
  },
];

/** Inserts a resource the way the data-source watcher does (resources have no create endpoint). */
async function insertResource(
  db: DataSource,
  id: string,
  host: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await db
    .createQueryBuilder()
    .insert()
    .into('resources')
    .values({
      id,
      host,
      service_id: `${id.replace(/-router$/, '')}-service`,
      org_id: 'unknown',
      site_id: 'unknown',
      ...extra,
    })
    .execute();
}

describe('routing manager: seed rows, middlewares, services, resources', () => {
  let keel: TestKeel;
  let api: ReturnType<typeof routingApi>;
  let db: DataSource;

  beforeAll(async () => {
    keel = await startKeel();
    api = routingApi(keel.url);
    db = keel.keel.app.get(DataSource);
  });

  afterAll(async () => {
    await keel.close();
  });

  it('answers /health and lists the six default rows exactly', async () => {
    expect(await api('GET', '/health')).toEqual({ status: 200, body: { status: 'ok' } });
    const middlewares = await api('GET', '/api/middlewares');
    expect(middlewares.status).toBe(200);
    expect(middlewares.body).toEqual(expect.arrayContaining(DEFAULT_MIDDLEWARES));
    expect(middlewares.body).toHaveLength(3);
    const services = await api('GET', '/api/services');
    expect(services.body).toEqual(expect.arrayContaining(DEFAULT_SERVICES));
    expect(services.body).toHaveLength(3);
    // Stored text is the reference's exact JSON (key order included).
    const [row] = await db.query(`SELECT config FROM "middlewares" WHERE id = 'authelia'`);
    expect(row.config).toBe(
      '{"address":"http://authelia:9091/api/authz/forward-auth","trustForwardHeader":true,"authResponseHeaders":["Remote-User","Remote-Groups","Remote-Name","Remote-Email"]}',
    );
    expect(await api('GET', '/api/resources')).toEqual({ status: 200, body: [] });
  });

  it('documents the routing routes in /doc and answers unknown routes under its prefixes with {code, message}', async () => {
    const doc = (await api('GET', '/doc')).body;
    expect(doc.paths['/api/middlewares'].post.operationId).toBe('middlewares.create');
    expect(doc.paths['/api/resources/{id}/config/priority'].put.operationId).toBe(
      'resources.updatePriorityConfig',
    );
    expect(doc.paths['/api/v1/traefik-config'].get.operationId).toBe('traefik.config');
    expectRoutingError(await api('GET', '/api/middlewares/a/b/c'), 404, 'Route not found');
    expectRoutingError(await api('GET', '/api/datasource/a/b/c'), 404, 'Route not found');
    // Other /api/* paths are opencode's (its newer clients call /api/agent, ...): the session dialect.
    expect((await api('GET', '/api/nothing-here')).body).toMatchObject({ name: 'NotFoundError', data: { message: expect.any(String) } });
  });

  it('creates, reads, replaces and deletes middlewares with 16-hex ids, publishing events', async () => {
    const events = await SseClient.open(`${keel.url}/global/event`);
    const created = await api('POST', '/api/middlewares', {
      name: 'Strip',
      type: 'stripPrefix',
      config: { prefixes: ['/app'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      name: 'Strip',
      type: 'stripPrefix',
      config: { prefixes: ['/app'] },
    });
    const id = created.body.id;
    const frame: any = await events.next((f: any) => f.payload?.type === 'routing.middleware.created');
    expect(frame.payload.properties.middleware).toEqual(created.body);
    expect(await api('GET', `/api/middlewares/${id}`)).toEqual({ status: 200, body: created.body });

    const replaced = await api('PUT', `/api/middlewares/${id}`, {
      name: 'Prefix',
      type: 'addPrefix',
      config: { prefix: '/v2' },
    });
    expect(replaced).toEqual({
      status: 200,
      body: { id, name: 'Prefix', type: 'addPrefix', config: { prefix: '/v2' } },
    });
    await events.next((f: any) => f.payload?.type === 'routing.middleware.updated');

    expect(await api('DELETE', `/api/middlewares/${id}`)).toEqual({
      status: 200,
      body: { message: 'Middleware deleted successfully' },
    });
    await events.next(
      (f: any) => f.payload?.type === 'routing.middleware.deleted' && f.payload.properties.id === id,
    );
    expectRoutingError(await api('GET', `/api/middlewares/${id}`), 404, 'Middleware not found');
    expectRoutingError(
      await api('PUT', `/api/middlewares/${id}`, { name: 'x', type: 'compress', config: {} }),
      404,
      'Middleware not found',
    );
    expectRoutingError(await api('DELETE', `/api/middlewares/${id}`), 404, 'Middleware not found');
    events.close();
  });

  it('refuses bad middleware bodies with 400 naming the field', async () => {
    expectRoutingError(await api('POST', '/api/middlewares', { type: 'compress', config: {} }), 400, 'name');
    expectRoutingError(await api('POST', '/api/middlewares', { name: 'x', type: 'compress' }), 400, 'config');
    expectRoutingError(
      await api('POST', '/api/middlewares', { name: 'x', type: 'compress', config: null }),
      400,
      'config',
    );
    expectRoutingError(
      await api('POST', '/api/middlewares', { name: 'x', type: 'compress', config: [1] }),
      400,
      'config',
    );
    expectRoutingError(
      await api('POST', '/api/middlewares', { name: 'x', type: 'nope', config: {} }),
      400,
      'Invalid middleware type: nope',
    );
    // Required by Traefik although its schema leaves it optional.
    expectRoutingError(
      await api('POST', '/api/middlewares', {
        name: 'x',
        type: 'forwardAuth',
        config: { trustForwardHeader: true },
      }),
      400,
      'config.address',
    );
    expectRoutingError(
      await api('POST', '/api/middlewares', { name: 'x', type: 'basicAuth', config: {} }),
      400,
      'config.users',
    );
    // A field Traefik does not know would break its whole file (reference issue #70).
    expectRoutingError(
      await api('POST', '/api/middlewares', {
        name: 'x',
        type: 'redirectScheme',
        config: { scheme: 'https', browserXssFilter: true },
      }),
      400,
      'config.browserXssFilter',
    );
    expectRoutingError(
      await api('POST', '/api/middlewares', { name: 'x', type: 'retry', config: { attempts: 'three' } }),
      400,
      'config.attempts',
    );
    expectRoutingError(
      await api('POST', '/api/middlewares', { name: 'x', type: 'plugin', config: {} }),
      400,
      'config',
    );
    expectRoutingError(await api('POST', '/api/middlewares', [1, 2]), 400, 'must be a JSON object');
    const malformed = await fetch(`${keel.url}/api/middlewares`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":',
    });
    expectRoutingError({ status: malformed.status, body: await malformed.json() }, 400, /.+/);
    expect((await api('GET', '/api/middlewares')).body).toHaveLength(3);
  });

  it('validates services per type and protocol', async () => {
    const tcp = await api('POST', '/api/services', {
      name: 'db',
      type: 'loadBalancer',
      config: { servers: [{ address: '10.0.0.5:5432' }] },
    });
    expect(tcp.status).toBe(201);
    expectRoutingError(
      await api('POST', '/api/services', { name: 'x', type: 'roundRobin', config: {} }),
      400,
      'Invalid service type: roundRobin',
    );
    expectRoutingError(
      await api('POST', '/api/services', { name: 'x', type: 'loadBalancer', config: {} }),
      400,
      'config.servers',
    );
    expectRoutingError(
      await api('POST', '/api/services', {
        name: 'x',
        type: 'loadBalancer',
        config: { servers: [{ uri: 'http://a' }] },
      }),
      400,
      'config.servers.0',
    );
    expectRoutingError(
      await api('POST', '/api/services', { name: 'x', type: 'failover', config: { service: 'main' } }),
      400,
      'config.fallback',
    );
    expectRoutingError(
      await api('POST', '/api/services', {
        name: 'x',
        type: 'weighted',
        config: { services: [{ name: 'a', weight: 'heavy' }] },
      }),
      400,
      'config.services.0.weight',
    );
    expect(await api('DELETE', `/api/services/${tcp.body.id}`)).toEqual({
      status: 200,
      body: { message: 'Service deleted successfully' },
    });
    expectRoutingError(await api('GET', '/api/services/nope'), 404, 'Service not found');
  });

  it('refuses a config with a million bad items with 400 naming the first ones, not a 500', async () => {
    for (const [path, type, config] of [
      ['/api/services', 'loadBalancer', { servers: new Array(1_000_000).fill(0) }],
      ['/api/middlewares', 'chain', { middlewares: new Array(1_000_000).fill(0) }],
    ] as const) {
      const answer = await api('POST', path, { name: 'huge', type, config });
      expectRoutingError(answer, 400, `config.${Object.keys(config)[0]}.0`);
      expect((answer.body as { message: string }).message.split('; ').length).toBeLessThanOrEqual(20);
    }
  });

  it('assigns middlewares and services to resources, keeping the v3 fields', async () => {
    await insertResource(db, '1-nextcloud-router', 'cloud.example.com');
    const events = await SseClient.open(`${keel.url}/global/event`);
    expect(
      await api('POST', '/api/resources/1-nextcloud-router/middlewares', {
        middleware_id: 'basic-auth',
        priority: 100,
      }),
    ).toEqual({
      status: 200,
      body: { resource_id: '1-nextcloud-router', middleware_id: 'basic-auth', priority: 100 },
    });
    await events.next(
      (f: any) =>
        f.payload?.type === 'routing.resource.updated' && f.payload.properties.id === '1-nextcloud-router',
    );
    expect(
      (
        await api('POST', '/api/resources/1-nextcloud-router/middlewares', {
          middleware_id: 'authelia',
          priority: 0,
        })
      ).body.priority,
    ).toBe(200);
    const bulk = await api('POST', '/api/resources/1-nextcloud-router/middlewares/bulk', {
      middlewares: [
        { middleware_id: 'authelia', priority: 300 },
        { middleware_id: 'ghost' },
        { middleware_id: 'authentik' },
      ],
    });
    expect(bulk).toEqual({
      status: 200,
      body: {
        resource_id: '1-nextcloud-router',
        middlewares: [
          { middleware_id: 'authelia', priority: 300 },
          { middleware_id: 'authentik', priority: 200 },
        ],
        skipped: ['ghost'],
      },
    });
    expect(
      await api('POST', '/api/resources/1-nextcloud-router/service', { service_id: 'simple-lb' }),
    ).toEqual({
      status: 200,
      body: { resource_id: '1-nextcloud-router', service_id: 'simple-lb' },
    });
    expect(
      (await api('POST', '/api/resources/1-nextcloud-router/service', { service_id: 'failover-demo' }))
        .status,
    ).toBe(200);
    expect(await api('GET', '/api/resources/1-nextcloud-router/service')).toEqual({
      status: 200,
      body: { resource_id: '1-nextcloud-router', service: DEFAULT_SERVICES[2] },
    });

    const resource = await api('GET', '/api/resources/1-nextcloud-router');
    expect(resource).toEqual({
      status: 200,
      body: {
        id: '1-nextcloud-router',
        host: 'cloud.example.com',
        service_id: '1-nextcloud-service',
        org_id: 'unknown',
        site_id: 'unknown',
        status: 'active',
        entrypoints: 'websecure',
        tls_domains: '',
        tcp_enabled: false,
        tcp_entrypoints: 'tcp',
        tcp_sni_rule: '',
        custom_headers: '',
        router_priority: 200,
        source_type: '',
        middlewares: 'authelia:Authelia:300,authentik:Authentik:200,basic-auth:Basic Auth:100',
        assigned_middlewares: [
          { id: 'authelia', name: 'Authelia', priority: 300 },
          { id: 'authentik', name: 'Authentik', priority: 200 },
          { id: 'basic-auth', name: 'Basic Auth', priority: 100 },
        ],
        custom_headers_map: {},
        assigned_service: { id: 'failover-demo', name: 'Failover Demo', type: 'failover' },
      },
    });
    expect((await api('GET', '/api/resources')).body).toEqual([resource.body]);

    expect(await api('DELETE', '/api/resources/1-nextcloud-router/middlewares/authentik')).toEqual({
      status: 200,
      body: { message: 'Middleware removed from resource successfully' },
    });
    expectRoutingError(
      await api('DELETE', '/api/resources/1-nextcloud-router/middlewares/authentik'),
      404,
      'Resource middleware relationship not found',
    );
    expectRoutingError(
      await api('DELETE', '/api/middlewares/authelia'),
      409,
      'Cannot delete middleware because it is used by 1 resource',
    );
    expectRoutingError(
      await api('DELETE', '/api/services/failover-demo'),
      409,
      'Cannot delete service because it is used by 1 resource',
    );
    expect(await api('DELETE', '/api/resources/1-nextcloud-router/service')).toEqual({
      status: 200,
      body: { message: 'Service removed from resource successfully' },
    });
    expectRoutingError(
      await api('DELETE', '/api/resources/1-nextcloud-router/service'),
      404,
      'Resource service relationship not found',
    );
    expectRoutingError(
      await api('GET', '/api/resources/1-nextcloud-router/service'),
      404,
      'No service assigned to this resource',
    );
    events.close();
  });

  it('updates router settings with validation', async () => {
    const id = '1-nextcloud-router';
    expect(await api('PUT', `/api/resources/${id}/config/http`, { entrypoints: 'web, websecure' })).toEqual({
      status: 200,
      body: { id, entrypoints: 'web,websecure' },
    });
    expect((await api('PUT', `/api/resources/${id}/config/http`, { entrypoints: '' })).body.entrypoints).toBe(
      'websecure',
    );
    expectRoutingError(
      await api('PUT', `/api/resources/${id}/config/http`, { entrypoints: 'web secure!' }),
      400,
      'entrypoints',
    );
    expect(
      await api('PUT', `/api/resources/${id}/config/tls`, { tls_domains: 'www.cloud.example.com' }),
    ).toEqual({
      status: 200,
      body: { id, tls_domains: 'www.cloud.example.com' },
    });
    expectRoutingError(
      await api('PUT', `/api/resources/${id}/config/tls`, { tls_domains: 'bad domain' }),
      400,
      'tls_domains',
    );
    expect(
      await api('PUT', `/api/resources/${id}/config/tcp`, {
        tcp_enabled: true,
        tcp_entrypoints: '',
        tcp_sni_rule: '',
      }),
    ).toEqual({
      status: 200,
      body: { id, tcp_enabled: true, tcp_entrypoints: 'tcp', tcp_sni_rule: '' },
    });
    expectRoutingError(
      await api('PUT', `/api/resources/${id}/config/tcp`, { tcp_enabled: 'yes' }),
      400,
      'tcp_enabled',
    );
    expectRoutingError(
      await api('PUT', `/api/resources/${id}/config/tcp`, { tcp_enabled: true, tcp_sni_rule: 'Host(`x`)' }),
      400,
      'tcp_sni_rule',
    );
    expect(
      await api('PUT', `/api/resources/${id}/config/headers`, {
        custom_headers: { 'X-Forwarded-Proto': 'https' },
      }),
    ).toEqual({
      status: 200,
      body: { id, custom_headers: { 'X-Forwarded-Proto': 'https' } },
    });
    expectRoutingError(
      await api('PUT', `/api/resources/${id}/config/headers`, { custom_headers: { 'X-Num': 5 } }),
      400,
      'custom_headers.X-Num',
    );
    expectRoutingError(await api('PUT', `/api/resources/${id}/config/headers`, {}), 400, 'custom_headers');
    expect(await api('PUT', `/api/resources/${id}/config/priority`, { router_priority: 250 })).toEqual({
      status: 200,
      body: { id, router_priority: 250 },
    });
    expectRoutingError(
      await api('PUT', `/api/resources/${id}/config/priority`, { router_priority: 0 }),
      400,
      'router_priority',
    );
    expectRoutingError(await api('PUT', `/api/resources/${id}/config/priority`, {}), 400, 'router_priority');
    expectRoutingError(
      await api('PUT', `/api/resources/${id}/config/priority`, { router_priority: 1.5 }),
      400,
      'router_priority',
    );
    const resource = (await api('GET', `/api/resources/${id}`)).body;
    expect(resource).toMatchObject({
      entrypoints: 'websecure',
      tls_domains: 'www.cloud.example.com',
      tcp_enabled: true,
      custom_headers: '{"X-Forwarded-Proto":"https"}',
      custom_headers_map: { 'X-Forwarded-Proto': 'https' },
      router_priority: 250,
    });
    expectRoutingError(
      await api('PUT', '/api/resources/ghost/config/http', { entrypoints: 'web' }),
      404,
      'Resource not found: ghost',
    );
  });

  it('refuses every mutation of a disabled resource, deletes it only when disabled, and cascades', async () => {
    const id = '2-photos-router';
    await insertResource(db, id, 'photos.example.com');
    expectRoutingError(
      await api('DELETE', `/api/resources/${id}`),
      400,
      'Only disabled resources can be deleted',
    );
    await api('POST', `/api/resources/${id}/middlewares`, { middleware_id: 'basic-auth' });
    await api('POST', `/api/resources/${id}/service`, { service_id: 'simple-lb' });
    await db.query(`UPDATE "resources" SET status = 'disabled' WHERE id = '${id}'`);
    expectRoutingError(
      await api('POST', `/api/resources/${id}/middlewares`, { middleware_id: 'authelia' }),
      400,
      'Cannot assign middleware to a disabled resource',
    );
    expectRoutingError(
      await api('POST', `/api/resources/${id}/middlewares/bulk`, { middlewares: [] }),
      400,
      'disabled resource',
    );
    expectRoutingError(
      await api('DELETE', `/api/resources/${id}/middlewares/basic-auth`),
      400,
      'disabled resource',
    );
    expectRoutingError(
      await api('POST', `/api/resources/${id}/service`, { service_id: 'simple-lb' }),
      400,
      'Cannot assign service to a disabled resource',
    );
    expectRoutingError(await api('DELETE', `/api/resources/${id}/service`), 400, 'disabled resource');
    for (const [path, body] of [
      ['http', { entrypoints: 'web' }],
      ['tls', { tls_domains: '' }],
      ['tcp', { tcp_enabled: false }],
      ['headers', { custom_headers: {} }],
      ['priority', { router_priority: 5 }],
    ] as const) {
      expectRoutingError(
        await api('PUT', `/api/resources/${id}/config/${path}`, body),
        400,
        'Cannot update a disabled resource',
      );
    }
    expect((await api('GET', '/api/resources?status=disabled')).body.map((r: any) => r.id)).toEqual([id]);
    expect((await api('GET', '/api/resources?status=active')).body.map((r: any) => r.id)).toEqual([
      '1-nextcloud-router',
    ]);
    expectRoutingError(await api('GET', '/api/resources?status=gone'), 400, 'status');
    expect(await api('DELETE', `/api/resources/${id}`)).toEqual({
      status: 200,
      body: { message: 'Resource deleted successfully' },
    });
    expectRoutingError(await api('GET', `/api/resources/${id}`), 404, `Resource not found: ${id}`);
    expect(await db.query(`SELECT * FROM "resource_middlewares" WHERE resource_id = '${id}'`)).toEqual([]);
    expect(await db.query(`SELECT * FROM "resource_services" WHERE resource_id = '${id}'`)).toEqual([]);
  });

  it('cascades a deleted middleware or service row to its links (foreign keys)', async () => {
    await insertResource(db, '3-cascade-router', 'cascade.example.com');
    const mw = await api('POST', '/api/middlewares', { name: 'gz', type: 'compress', config: {} });
    await api('POST', '/api/resources/3-cascade-router/middlewares', { middleware_id: mw.body.id });
    await db.query(`DELETE FROM "middlewares" WHERE id = '${mw.body.id}'`);
    expect(
      await db.query(`SELECT * FROM "resource_middlewares" WHERE middleware_id = '${mw.body.id}'`),
    ).toEqual([]);
    await db.query(`DELETE FROM "resources" WHERE id = '3-cascade-router'`);
    expect(
      await db.query(`SELECT * FROM "resource_middlewares" WHERE resource_id = '3-cascade-router'`),
    ).toEqual([]);
  });
});

describe('routing manager: middleware-manager v3 templates', () => {
  let keel: TestKeel;
  let api: ReturnType<typeof routingApi>;

  beforeAll(async () => {
    keel = await startKeel();
    api = routingApi(keel.url);
  });

  afterAll(async () => {
    await keel.close();
  });

  it.each([
    ...Object.entries(V3_UI_MIDDLEWARE_TEMPLATES).map(
      ([type, template]) => [`UI ${type}`, template] as const,
    ),
    ...Object.entries(V3_TEMPLATES_YAML).map(([id, template]) => [`templates.yaml ${id}`, template] as const),
  ])('accepts the middleware template "%s" as it is', async (name, { type, config }) => {
    const created = await api('POST', '/api/middlewares', { name, type, config });
    expect({ status: created.status, body: created.body }).toEqual({
      status: 201,
      body: { id: expect.stringMatching(/^[0-9a-f]{16}$/), name, type, config },
    });
  });

  it.each(
    Object.entries(V3_UI_SERVICE_TEMPLATES).map(([kind, template]) => [`UI ${kind}`, template] as const),
  )('accepts the service template "%s" as it is', async (name, { type, config }) => {
    const created = await api('POST', '/api/services', { name, type, config });
    expect({ status: created.status, body: created.body }).toEqual({
      status: 201,
      body: { id: expect.stringMatching(/^[0-9a-f]{16}$/), name, type, config },
    });
  });

  it('accepts the fields Traefik v3 documents beyond the old schema', async () => {
    const documented: [string, string, Record<string, unknown>][] = [
      [
        'middlewares',
        'rateLimit',
        { average: 10, redis: { endpoints: ['redis:6379'], db: 2, dialTimeout: '5s' } },
      ],
      ['middlewares', 'ipAllowList', { sourceRange: ['::/0'], ipStrategy: { ipv6Subnet: 64 } }],
      [
        'middlewares',
        'retry',
        {
          attempts: 4,
          timeout: '60s',
          maxRequestBodyBytes: 1024,
          status: ['500-599'],
          disableRetryOnNetworkError: true,
          retryNonIdempotentMethod: true,
        },
      ],
      [
        'middlewares',
        'errors',
        { status: ['404'], service: 'pages@file', query: '/{status}.html', statusRewrites: { '418': 404 } },
      ],
      [
        'services',
        'loadBalancer',
        {
          strategy: 'p2c',
          servers: [{ url: 'http://a', weight: 2, preservePath: true }],
          passiveHealthCheck: { failureWindow: '3s', maxFailedAttempts: 3 },
          healthCheck: { path: '/health', mode: 'http', status: 204, unhealthyInterval: '5s' },
          sticky: { cookie: { name: 's', maxAge: 300, path: '/', domain: 'example.com' } },
        },
      ],
      [
        'services',
        'failover',
        {
          service: 'a@file',
          fallback: 'b@file',
          errors: { status: ['500-504'], maxRequestBodyBytes: 1048576 },
        },
      ],
    ];
    for (const [collection, type, config] of documented) {
      const created = await api('POST', `/api/${collection}`, { name: `documented ${type}`, type, config });
      expect({ type, status: created.status, config: created.body.config }).toEqual({
        type,
        status: 201,
        config,
      });
    }
  });

  it('emits every template row in the Traefik document', async () => {
    const { body } = await api('GET', '/api/v1/traefik-config');
    const middlewares = (await api('GET', '/api/middlewares')).body as { id: string }[];
    const services = (await api('GET', '/api/services')).body as { id: string }[];
    expect(Object.keys(body.http.middlewares).sort()).toEqual(middlewares.map((m) => m.id).sort());
    expect([...Object.keys(body.http.services), ...Object.keys(body.tcp.services)].sort()).toEqual(
      services.map((s) => s.id).sort(),
    );
  });
});
