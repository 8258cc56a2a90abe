import { Logger } from '@nestjs/common';
import Ajv from 'ajv';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { parse } from 'yaml';
import { buildTraefikConfig, RoutingSnapshot } from '../src/routing/traefik-output/traefik-config.builder';
import { TraefikConfigService } from '../src/routing/traefik-output/traefik-config.service';
import { toYaml } from '../src/routing/traefik-output/traefik-yaml';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { routingApi } from './support/fake-routing-upstreams';

const schema = JSON.parse(
  readFileSync(
    join(__dirname, '..', 'src', 'routing', 'traefik-v3-file-provider.schema.json'),
    'utf8',
  ),
);
const validateTraefik = new Ajv({ strict: false, allErrors: true }).compile(schema);

function expectValidTraefik(document: unknown): void {
  const valid = validateTraefik(document);
  expect(valid ? [] : validateTraefik.errors).toEqual([]);
}

/** The six seeded rows (v3.0.3 migrations.sql), emitted whether a router uses them or not. */
const SEEDED_MIDDLEWARES = {
  authelia: {
    forwardAuth: {
      address: 'http://authelia:9091/api/authz/forward-auth',
      authResponseHeaders: ['Remote-User', 'Remote-Groups', 'Remote-Name', 'Remote-Email'],
      trustForwardHeader: true,
    },
  },
  authentik: {
    forwardAuth: {
      address: 'http://authentik:9000/outpost.goauthentik.io/auth/traefik',
      authResponseHeaders: [
        'X-authentik-username',
        'X-authentik-groups',
        'X-authentik-email',
        'X-authentik-name',
        'X-authentik-uid',
      ],
      trustForwardHeader: true,
    },
  },
  'basic-auth': { basicAuth: { users: ['admin:$apr1$H6uskkkW$IgXLP6ewTrSuBkTrqE8wj/'] } },
};
const SEEDED_SERVICES = {
  'failover-demo': { failover: { fallback: 'backup', service: 'main' } },
  'simple-lb': { loadBalancer: { servers: [{ url: 'http://localhost:8080' }] } },
  'weighted-demo': {
    weighted: {
      services: [
        { name: 'service1', weight: 3 },
        { name: 'service2', weight: 1 },
      ],
    },
  },
};

/** The reference's worked example (§3), as Keel emits it for a provider suffix. */
function workedExample(own: 'file' | 'http') {
  return {
    http: {
      middlewares: {
        ...SEEDED_MIDDLEWARES,
        '1-nextcloud-router-customheaders': {
          headers: { customRequestHeaders: { 'X-Forwarded-Proto': 'https' } },
        },
      },
      routers: {
        '1-nextcloud-router-auth': {
          entryPoints: ['websecure'],
          middlewares: [
            `1-nextcloud-router-customheaders@${own}`,
            `authelia@${own}`,
            `basic-auth@${own}`,
            'badger@http',
          ],
          priority: 200,
          rule: 'Host(`cloud.example.com`)',
          service: '1-nextcloud-service@http',
          tls: {
            certResolver: 'letsencrypt',
            domains: [{ main: 'cloud.example.com', sans: ['www.cloud.example.com'] }],
          },
        },
        '2-photos-router-auth': {
          entryPoints: ['websecure'],
          middlewares: ['badger@http'],
          priority: 250,
          rule: 'Host(`photos.example.com`)',
          service: `simple-lb@${own}`,
          tls: { certResolver: 'letsencrypt' },
        },
      },
      services: SEEDED_SERVICES,
    },
    tcp: {
      routers: {
        '1-nextcloud-router-tcp': {
          entryPoints: ['tcp'],
          priority: 200,
          rule: 'HostSNI(`cloud.example.com`)',
          service: '1-nextcloud-service@http',
          tls: {},
        },
      },
    },
  };
}

describe('routing manager: Traefik configuration', () => {
  let keel: TestKeel;
  let api: ReturnType<typeof routingApi>;
  let db: DataSource;
  let confDir: string;
  let config: TraefikConfigService;
  const file = () => join(confDir, 'resource-overrides.yml');

  beforeAll(async () => {
    confDir = join(tempDir('keel-traefik-'), 'rules');
    process.env.KEEL_MM_TRAEFIK_CONF_DIR = confDir;
    process.env.KEEL_MM_GENERATE_INTERVAL_SECONDS = '0';
    keel = await startKeel();
    delete process.env.KEEL_MM_TRAEFIK_CONF_DIR;
    delete process.env.KEEL_MM_GENERATE_INTERVAL_SECONDS;
    api = routingApi(keel.url);
    db = keel.keel.app.get(DataSource);
    config = keel.keel.app.get(TraefikConfigService);
  });

  afterAll(async () => {
    await keel.close();
    rmSync(join(confDir, '..'), { recursive: true, force: true });
  });

  it('writes every middleware and service row before any resource exists', async () => {
    for (let i = 0; i < 40 && !existsSync(file()); i++) await new Promise((r) => setTimeout(r, 25));
    const expected = { http: { middlewares: SEEDED_MIDDLEWARES, services: SEEDED_SERVICES } };
    expect(parse(readFileSync(file(), 'utf8'))).toEqual(expected);
  });

  it('reproduces the reference worked example in the file and over HTTP, valid for Traefik', async () => {
    const resources = db.createQueryBuilder().insert().into('resources');
    await resources
      .values([
        {
          id: '1-nextcloud-router',
          host: 'cloud.example.com',
          service_id: '1-nextcloud-service',
          org_id: 'unknown',
          site_id: 'unknown',
          tls_domains: 'www.cloud.example.com',
          custom_headers: '{"X-Forwarded-Proto":"https"}',
          tcp_enabled: 1,
          source_type: 'pangolin',
        },
        {
          id: '2-photos-router',
          host: 'photos.example.com',
          service_id: '2-photos-service',
          org_id: 'unknown',
          site_id: 'unknown',
          router_priority: 250,
        },
        {
          id: '3-old-router',
          host: 'old.example.com',
          service_id: '3-old-service',
          org_id: 'unknown',
          site_id: 'unknown',
          status: 'disabled',
        },
      ])
      .execute();
    await db.query(
      `INSERT INTO "resource_middlewares" (resource_id, middleware_id, priority) VALUES ('1-nextcloud-router', 'basic-auth', 100), ('1-nextcloud-router', 'authelia', 300), ('3-old-router', 'authentik', 200)`,
    );
    await db.query(
      `INSERT INTO "resource_services" (resource_id, service_id) VALUES ('2-photos-router', 'simple-lb')`,
    );

    expect(await config.writeFile()).toBe(true);
    const written = readFileSync(file(), 'utf8');
    expect(parse(written)).toEqual(workedExample('file'));
    expectValidTraefik(parse(written));
    expect(readdirSync(confDir)).toEqual(['resource-overrides.yml']);
    // Same rows, same bytes: nothing to rewrite.
    expect(await config.writeFile()).toBe(false);

    const served = await api('GET', '/api/v1/traefik-config');
    expect(served).toEqual({ status: 200, body: workedExample('http') });
    expect((await api('GET', '/api/traefik-config')).body).toEqual(served.body);
    expectValidTraefik(served.body);
  });

  it('rewrites the file promptly after an API change', async () => {
    const before = readFileSync(file(), 'utf8');
    await api('POST', '/api/resources/2-photos-router/middlewares', {
      middleware_id: 'authentik',
      priority: 10,
    });
    let after = before;
    for (let i = 0; i < 80 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 25));
      after = readFileSync(file(), 'utf8');
    }
    const document = parse(after);
    expect(document.http.routers['2-photos-router-auth'].middlewares).toEqual([
      'authentik@file',
      'badger@http',
    ]);
    expect(Object.keys(document.http.middlewares)).toContain('authentik');
    expectValidTraefik(document);
  });

  it('uses @docker and no badger with the Traefik data source, and skips invalid adopted rows', async () => {
    await api('PUT', '/api/datasource/active', { name: 'traefik' });
    // A v3 row Traefik would reject (reference issue #70) must not break the whole document.
    await db.query(
      `INSERT INTO "middlewares" (id, name, type, config) VALUES ('legacy-headers', 'Legacy', 'headers', '{"browserXssFilter":true,"unknownField":1}')`,
    );
    await db.query(
      `INSERT INTO "resource_middlewares" (resource_id, middleware_id, priority) VALUES ('2-photos-router', 'legacy-headers', 500)`,
    );
    const { body } = await api('GET', '/api/v1/traefik-config');
    expect(body.http.routers['1-nextcloud-router-auth'].service).toBe('1-nextcloud-service@docker');
    expect(body.http.routers['1-nextcloud-router-auth'].middlewares).not.toContain('badger@http');
    expect(body.http.routers['2-photos-router-auth'].middlewares).toEqual(['authentik@http']);
    expect(body.http.middlewares['legacy-headers']).toBeUndefined();
    // Only the invalid row is left out: every other row stays.
    expect(Object.keys(body.http.middlewares).sort()).toEqual([
      '1-nextcloud-router-customheaders',
      'authelia',
      'authentik',
      'basic-auth',
    ]);
    // TCP keeps @http unless the resource itself came from Traefik.
    expect(body.tcp.routers['1-nextcloud-router-tcp'].service).toBe('1-nextcloud-service@http');
    expectValidTraefik(body);
    await api('PUT', '/api/datasource/active', { name: 'pangolin' });
  });

  it('keeps every valid row when all resources are disabled, logging each invalid row once', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const unusedMiddleware = await api('POST', '/api/middlewares', {
        name: 'Strip API',
        type: 'stripPrefix',
        config: { prefixes: ['/api'] },
      });
      const unusedService = await api('POST', '/api/services', {
        name: 'Mirror',
        type: 'mirroring',
        config: {
          service: 'simple-lb@file',
          mirrors: [{ name: 'weighted-demo@file', percent: 10 }],
          mirrorBody: false,
        },
      });
      expect([unusedMiddleware.status, unusedService.status]).toEqual([201, 201]);
      // A v3 service row Traefik would refuse (unknown field), as an adopted database may hold.
      await db.query(
        `INSERT INTO "services" (id, name, type, config) VALUES ('legacy-lb', 'Legacy', 'loadBalancer', '{"servers":[{"url":"http://10.0.0.9"}],"stickySessions":true}')`,
      );
      // The source no longer lists any router: all resources are disabled, as a sync would do.
      await db.query(`UPDATE "resources" SET status = 'disabled'`);

      const expectedMiddlewares = {
        ...SEEDED_MIDDLEWARES,
        [unusedMiddleware.body.id]: { stripPrefix: { prefixes: ['/api'] } },
      };
      const expectedServices = {
        ...SEEDED_SERVICES,
        [unusedService.body.id]: {
          mirroring: {
            mirrorBody: false,
            mirrors: [{ name: 'weighted-demo@file', percent: 10 }],
            service: 'simple-lb@file',
          },
        },
      };
      const served = await api('GET', '/api/v1/traefik-config');
      expect(served).toEqual({
        status: 200,
        body: { http: { middlewares: expectedMiddlewares, services: expectedServices } },
      });
      expectValidTraefik(served.body);

      await config.writeFile();
      const written = parse(readFileSync(file(), 'utf8'));
      expect(written).toEqual({ http: { middlewares: expectedMiddlewares, services: expectedServices } });
      expectValidTraefik(written);

      const leftOut = warn.mock.calls
        .map(([entry]) => entry as { msg?: string; kind?: string; id?: string; reason?: string })
        .filter((entry) => entry?.msg?.endsWith('left out of the Traefik configuration'));
      // Both builds left `legacy-lb` out; the reason is logged once (`legacy-headers` was logged earlier).
      expect(leftOut).toEqual([
        expect.objectContaining({
          kind: 'service',
          id: 'legacy-lb',
          reason: 'config.stickySessions: is not a field Traefik knows',
        }),
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});

/** Small deterministic PRNG so a failure can be replayed. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const MIDDLEWARE_POOL: [string, unknown][] = [
  [
    'forwardAuth',
    { address: 'http://auth:9091/verify', trustForwardHeader: true, authResponseHeaders: ['Remote-User'] },
  ],
  ['basicAuth', { users: ['u:$apr1$H6uskkkW$IgXLP6ewTrSuBkTrqE8wj/'] }],
  ['ipAllowList', { sourceRange: ['10.0.0.0/8'], ipStrategy: { depth: 1 } }],
  ['rateLimit', { average: 100, burst: 50 }],
  ['headers', { customResponseHeaders: { 'X-Frame-Options': 'DENY' }, stsSeconds: 31536000 }],
  ['redirectScheme', { scheme: 'https', permanent: true }],
  ['stripPrefix', { prefixes: ['/api'] }],
  ['compress', {}],
  ['retry', { attempts: 3, initialInterval: '100ms' }],
  ['chain', { middlewares: ['m0', 'm1'] }],
  ['headers', { browserXssFilter: 'yes' }], // invalid on purpose: must be skipped
];
const SERVICE_POOL: [string, unknown][] = [
  ['loadBalancer', { servers: [{ url: 'http://10.0.0.1:80' }], passHostHeader: true }],
  ['loadBalancer', { servers: [{ address: '10.0.0.2:5432' }] }],
  [
    'weighted',
    {
      services: [
        { name: 's0', weight: 2 },
        { name: 's1', weight: 1 },
      ],
    },
  ],
  ['failover', { service: 's0', fallback: 's1' }],
  ['mirroring', { service: 's0', mirrors: [{ name: 's1', percent: 10 }] }],
];

function randomSnapshot(random: () => number): RoutingSnapshot {
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const middlewares = Array.from({ length: 12 }, (_, i) => {
    const [type, config] = pick(MIDDLEWARE_POOL);
    return { id: `m${i}`, type, config: JSON.stringify(config) };
  });
  const services = Array.from({ length: 6 }, (_, i) => {
    const [type, config] = pick(SERVICE_POOL);
    return { id: `s${i}`, type, config: JSON.stringify(config) };
  });
  const resources = Array.from({ length: 25 }, (_, i) => ({
    id: `${i}-app-router`,
    host: `app${i}.example.com`,
    service_id: random() < 0.1 ? `svc${i}@docker` : `${i}-app-service`,
    status: random() < 0.8 ? 'active' : 'disabled',
    entrypoints: pick(['websecure', 'web,websecure', '', null]),
    tls_domains: pick(['', `www.app${i}.example.com`, `a.example.com, b.example.com`, null]),
    tcp_enabled: random() < 0.3 ? 1 : 0,
    tcp_entrypoints: pick(['tcp', '', null]),
    tcp_sni_rule: pick(['', `HostSNI(\`db${i}.example.com\`)`, null]),
    custom_headers: pick(['', '{"X-Env":"prod"}', 'not json', '{"X-Num":5}', null]),
    router_priority: pick([200, 250, null]),
    source_type: pick(['pangolin', 'traefik', '', null]),
  }));
  const middlewareLinks = resources.flatMap((r) =>
    Array.from({ length: Math.floor(random() * 4) }, (_, k) => ({
      resource_id: r.id,
      middleware_id: `m${(k * 5 + r.id.length + Math.floor(random() * 12)) % 12}`,
      priority: pick([100, 200, 300]),
    })),
  );
  const unique = new Map(middlewareLinks.map((l) => [`${l.resource_id}/${l.middleware_id}`, l]));
  const serviceLinks = resources
    .filter(() => random() < 0.4)
    .map((r) => ({ resource_id: r.id, service_id: pick(services).id }));
  return { resources, middlewares, services, middlewareLinks: [...unique.values()], serviceLinks };
}

function shuffled<T>(list: T[], random: () => number): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

describe('routing manager: generated configurations for randomized rows', () => {
  it('are always valid for Traefik and byte-identical for the same rows', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const random = prng(seed);
      const snapshot = randomSnapshot(random);
      for (const activeSource of ['pangolin', 'traefik']) {
        for (const ownProvider of ['file', 'http'] as const) {
          const options = { activeSource, certResolver: 'le', ownProvider };
          const document = buildTraefikConfig(snapshot, options);
          expectValidTraefik(document);
          expect(parse(toYaml(document as Record<string, unknown>))).toEqual(document);
          const reordered: RoutingSnapshot = {
            resources: shuffled(snapshot.resources, random),
            middlewares: shuffled(snapshot.middlewares, random),
            services: shuffled(snapshot.services, random),
            middlewareLinks: shuffled(snapshot.middlewareLinks, random),
            serviceLinks: shuffled(snapshot.serviceLinks, random),
          };
          expect(JSON.stringify(buildTraefikConfig(reordered, options))).toBe(JSON.stringify(document));
          // Every router reference to Keel's own objects resolves inside the document.
          const http = (document.http ?? {}) as Record<string, Record<string, any>>;
          for (const router of Object.values(http.routers ?? {})) {
            for (const name of router.middlewares ?? []) {
              if (name.endsWith(`@${ownProvider}`) && name !== 'badger@http')
                expect(http.middlewares).toHaveProperty([name.split('@')[0]]);
            }
          }
        }
      }
    }
  });
});

describe('routing manager: YAML emitter', () => {
  it('round-trips awkward keys and strings through a YAML parser', () => {
    const document = {
      http: {
        middlewares: {
          true: {
            headers: {
              customRequestHeaders: {
                'X-A': 'a: b # c',
                'X-B': 'it\'s "quoted"',
                'X-C': 'line\nbreak\ttab',
                'X-D': '€ ✓ \u2028',
              },
            },
          },
          '123': { compress: {} },
          'a b': {
            stripPrefix: {
              prefixes: ['/x', '- y', '[z]', '{w}', '*', '&anchor', '!tag', '@at', '%p', '`tick`'],
            },
          },
        },
        routers: {
          r: {
            entryPoints: [],
            rule: 'Host(`a.example.com`) || Host(`b.example.com`)',
            service: 's@http',
            priority: 0,
            tls: {},
          },
        },
      },
      tcp: {
        routers: {
          t: {
            rule: 'HostSNI(`*`)',
            service: 'x',
            tls: { passthrough: false, domains: [{ main: 'a', sans: [] }] },
          },
        },
      },
      extra: [[1, 2], [], [{}], null, true, -1.5],
    };
    expect(parse(toYaml(document))).toEqual(document);
    expect(toYaml({})).toBe('{}\n');
  });
});
