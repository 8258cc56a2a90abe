import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  chmodSync,
  rmSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { expectRoutingError, routingApi } from './support/fake-routing-upstreams';

const BUNDLED = JSON.parse(
  readFileSync(join(__dirname, '..', 'src', 'routing', 'plugin-catalogue.json'), 'utf8'),
) as { import: string; version: string }[];

const REMOTE = [
  {
    displayName: 'CrowdSec Bouncer',
    type: 'middleware',
    iconPath: '.assets/crowdsec/icon.png',
    import: 'github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin',
    summary: 'Blocks malicious IPs.',
    author: 'Maxime Lerebourg',
    version: 'v1.4.2',
    tested_with: 'Traefik v2.x, v3.x',
    stars: 300,
    homepage: 'https://github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin',
    docs: 'https://plugins.traefik.io/',
  },
  {
    displayName: 'Only in the remote catalogue',
    type: 'middleware',
    iconPath: '',
    import: 'github.com/example/remote-only',
    summary: 'x',
    version: 'v0.0.1',
  },
  { displayName: 'No module name', summary: 'dropped' },
  'not an object',
];

/** A loopback catalogue server answering what `answer` says. */
async function catalogueServer(
  answer: () => { status: number; body: string },
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((request, response) => {
    hits++;
    const { status, body } = answer();
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/plugins.json`,
    hits: () => hits,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Routing settings come from the process environment (as the other routing suites set them): set only while Keel starts. */
async function startWithRoutingEnv(
  routing: Record<string, string>,
  env: Record<string, string>,
): Promise<TestKeel> {
  Object.assign(process.env, routing);
  try {
    return await startKeel({ env });
  } finally {
    for (const name of Object.keys(routing)) delete process.env[name];
  }
}

async function listPlugins(
  keel: TestKeel,
): Promise<{ status: number; source: string | null; problem: string | null; body: any[] }> {
  const response = await fetch(`${keel.url}/api/plugins`);
  return {
    status: response.status,
    source: response.headers.get('x-plugin-catalogue-source'),
    problem: response.headers.get('x-plugin-catalogue-problem'),
    body: (await response.json()) as any[],
  };
}

const STATIC_CONFIG = `# Traefik static configuration (kept by hand)
global:
  checkNewVersion: false # no phoning home

entryPoints:
  web:
    address: ":80"
  websecure:
    address: ":443"

providers:
  http:
    endpoint: "http://keel:4096/api/v1/traefik-config"
    pollInterval: "5s"
`;

describe('Plugin Hub: catalogue', () => {
  it('falls back to the catalogue kept in the repository when no URL is configured (offline)', async () => {
    const keel = await startKeel();
    try {
      const answer = await listPlugins(keel);
      expect(answer.status).toBe(200);
      expect(answer.source).toBe('bundled');
      expect(answer.problem).toBeNull();
      expect(answer.body.map((p) => p.import)).toEqual(BUNDLED.map((p) => p.import));
      // The fields v3's UI reads (PluginCard: displayName, import, summary, version, isInstalled, installedVersion…).
      for (const plugin of answer.body) {
        expect(plugin).toEqual(
          expect.objectContaining({
            displayName: expect.any(String),
            type: 'middleware',
            iconPath: expect.any(String),
            import: expect.stringMatching(/^github\.com\//),
            summary: expect.any(String),
            version: expect.stringMatching(/^v\d+\.\d+\.\d+$/),
            isInstalled: false,
            key: expect.stringMatching(/^[a-z0-9.-]+$/),
            inCatalogue: true,
          }),
        );
        expect(plugin).not.toHaveProperty('installedVersion');
      }
      expect(
        answer.body.find((p) => p.import === 'github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin').key,
      ).toBe('crowdsec-bouncer-traefik');
    } finally {
      await keel.close();
    }
  });

  it('serves the configured catalogue URL (loopback allowed by KEEL_ALLOW_PRIVATE_FETCH), dropping entries without a module name, and caches it', async () => {
    const remote = await catalogueServer(() => ({ status: 200, body: JSON.stringify(REMOTE) }));
    const keel = await startWithRoutingEnv(
      { KEEL_PLUGIN_CATALOGUE_URL: remote.url },
      { KEEL_ALLOW_PRIVATE_FETCH: 'true' },
    );
    try {
      const answer = await listPlugins(keel);
      expect(answer.status).toBe(200);
      expect(answer.source).toBe('remote');
      expect(answer.body).toEqual([
        { ...(REMOTE[0] as object), isInstalled: false, key: 'crowdsec-bouncer-traefik', inCatalogue: true },
        { ...(REMOTE[1] as object), isInstalled: false, key: 'remote-only', inCatalogue: true },
      ]);
      await listPlugins(keel);
      expect(remote.hits()).toBe(1);
    } finally {
      await keel.close();
      await remote.close();
    }
  });

  it("also reads v3's PLUGINS_JSON_URL, and refuses a private address unless allowed: the bundled catalogue is served with the reason", async () => {
    const remote = await catalogueServer(() => ({ status: 200, body: JSON.stringify(REMOTE) }));
    const keel = await startWithRoutingEnv(
      { PLUGINS_JSON_URL: remote.url },
      { KEEL_ALLOW_PRIVATE_FETCH: 'false' },
    );
    try {
      const answer = await listPlugins(keel);
      expect(answer.status).toBe(200);
      expect(answer.source).toBe('bundled');
      expect(answer.problem).toMatch(/private address/);
      expect(answer.body).toHaveLength(BUNDLED.length);
      expect(remote.hits()).toBe(0);
    } finally {
      await keel.close();
      await remote.close();
    }
  });

  it.each([
    ['an HTTP error', { status: 500, body: '{"message":"down"}' }, /HTTP 500/],
    ['a body that is not JSON', { status: 200, body: '<html>' }, /not JSON/],
    ['JSON that is not a list', { status: 200, body: '{"plugins":[]}' }, /not a JSON array/],
  ])('serves the bundled catalogue when the URL answers %s', async (_name, reply, problem) => {
    const remote = await catalogueServer(() => reply);
    const keel = await startWithRoutingEnv(
      { KEEL_PLUGIN_CATALOGUE_URL: remote.url },
      { KEEL_ALLOW_PRIVATE_FETCH: 'true' },
    );
    try {
      const answer = await listPlugins(keel);
      expect({ status: answer.status, source: answer.source }).toEqual({ status: 200, source: 'bundled' });
      expect(answer.problem).toMatch(problem);
      expect(answer.body).toHaveLength(BUNDLED.length);
    } finally {
      await keel.close();
      await remote.close();
    }
  });

  it('serves the bundled catalogue when the URL does not answer at all', async () => {
    const remote = await catalogueServer(() => ({ status: 200, body: '[]' }));
    await remote.close();
    const keel = await startWithRoutingEnv(
      { KEEL_PLUGIN_CATALOGUE_URL: remote.url },
      { KEEL_ALLOW_PRIVATE_FETCH: 'true' },
    );
    try {
      const answer = await listPlugins(keel);
      expect({ status: answer.status, source: answer.source }).toEqual({ status: 200, source: 'bundled' });
      expect(answer.problem).toMatch(/failed/);
    } finally {
      await keel.close();
    }
  });
});

describe('Plugin Hub: configuration path, install and remove', () => {
  let keel: TestKeel;
  let api: ReturnType<typeof routingApi>;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    keel = await startKeel();
    api = routingApi(keel.url);
    dir = tempDir('keel-traefik-');
    file = join(dir, 'traefik.yml');
  });

  afterAll(async () => {
    await keel.close();
  });

  it('answers an empty path until one is set, and refuses install/remove then with a 400 naming path', async () => {
    const answer = await api('GET', '/api/plugins/configpath');
    expect(answer).toEqual({
      status: 200,
      body: { path: '', message: expect.stringContaining('configpath') },
    });
    expectRoutingError(
      await api('POST', '/api/plugins/install', {
        moduleName: 'github.com/PascalMinder/geoblock',
        version: 'v0.3.2',
      }),
      400,
      'path: no Traefik static configuration file is set',
    );
    expectRoutingError(
      await api('DELETE', '/api/plugins/remove', { moduleName: 'github.com/PascalMinder/geoblock' }),
      400,
      'path:',
    );
    expect((await listPlugins(keel)).body.every((p) => !p.isInstalled)).toBe(true);
  });

  it('refuses bad configuration paths with a 400 naming path, and saves nothing', async () => {
    mkdirSync(join(dir, 'a-directory.yml'));
    const outside = join(dir, 'link-to-etc');
    symlinkSync('/etc', outside);
    const cases: [unknown, string][] = [
      [{}, 'path: is required'],
      [{ path: '' }, 'path: is required'],
      [{ path: 42 }, 'path: is required'],
      [['/tmp/x.yml'], '(root): must be a JSON object'],
      [{ path: 'relative/traefik.yml' }, 'path: path must be an absolute path'],
      [{ path: `${dir}/` }, 'path: path must name a file'],
      [{ path: '/' }, 'path: path must name a file'],
      [{ path: join(dir, 'traefik.toml') }, 'path: path must name a YAML file'],
      [{ path: '/etc/traefik/traefik.yml' }, 'path: path is outside the directories this server may use'],
      [
        { path: join(outside, 'traefik.yml') },
        'path: path leads outside the directories this server may use through a symbolic link',
      ],
      [{ path: join(dir, 'missing-dir', 'traefik.yml') }, 'path: path does not exist or is not a directory'],
      [{ path: join(dir, 'a-directory.yml') }, 'path: path exists and is not a regular file'],
      [{ path: `${dir}/x\u0000.yml` }, 'path: must not contain NUL'],
      [{ path: join(dir, `${'x'.repeat(300)}.yml`) }, 'path: path is too long'],
    ];
    for (const [body, message] of cases)
      expectRoutingError(await api('PUT', '/api/plugins/configpath', body), 400, message);
    expect((await api('GET', '/api/plugins/configpath')).body.path).toBe('');
  });

  it('sets the path (kept in the routing settings) and answers it as v3 does', async () => {
    writeFileSync(file, STATIC_CONFIG);
    chmodSync(file, 0o640);
    const set = await api('PUT', '/api/plugins/configpath', { path: `${dir}//./traefik.yml` });
    expect(set).toEqual({ status: 200, body: { path: file, message: expect.any(String) } });
    expect(await api('GET', '/api/plugins/configpath')).toEqual({ status: 200, body: { path: file } });
    const saved = JSON.parse(
      readFileSync(join(keel.dataDir, 'middleware-manager', 'plugin-hub.json'), 'utf8'),
    );
    expect(saved).toEqual({ traefik_static_config_path: file });
  });

  it('refuses bad install and remove bodies with a 400 naming the field, leaving the file alone', async () => {
    const cases: [string, unknown, string][] = [
      ['POST', {}, 'moduleName: is required'],
      ['POST', { moduleName: 7 }, 'moduleName: is required'],
      [
        'POST',
        { moduleName: 'geoblock; rm -rf /', version: 'v1.0.0' },
        'moduleName: must be a Go module path',
      ],
      [
        'POST',
        { moduleName: 'https://github.com/PascalMinder/geoblock' },
        'moduleName: must be a Go module path',
      ],
      [
        'POST',
        { moduleName: 'github.com/PascalMinder/geoblock', version: 'latest' },
        'version: must be a module version',
      ],
      ['POST', { moduleName: 'github.com/PascalMinder/geoblock', version: 3 }, 'version: must be a string'],
      ['POST', { moduleName: 'github.com/example/not-in-catalogue' }, 'version: is required'],
      ['POST', [1], '(root): must be a JSON object'],
      ['DELETE', {}, 'moduleName: is required'],
      ['DELETE', { moduleName: 'not a module' }, 'moduleName: must be a Go module path'],
    ];
    for (const [method, body, message] of cases) {
      const path = method === 'POST' ? '/api/plugins/install' : '/api/plugins/remove';
      expectRoutingError(await api(method, path, body), 400, message);
    }
    expect(readFileSync(file, 'utf8')).toBe(STATIC_CONFIG);
  });

  it('installs: declares experimental.plugins.<key> {moduleName, version}, atomically, keeping comments, other content and the file mode', async () => {
    const installed = await api('POST', '/api/plugins/install', {
      moduleName: 'github.com/PascalMinder/geoblock',
      version: 'v0.3.2',
    });
    expect(installed).toEqual({
      status: 200,
      body: {
        message:
          'Plugin github.com/PascalMinder/geoblock configured in traefik.yml. A Traefik restart is required to load the plugin.',
        key: 'geoblock',
        moduleName: 'github.com/PascalMinder/geoblock',
        version: 'v0.3.2',
        path: file,
      },
    });
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith(STATIC_CONFIG.trimEnd())).toBe(true);
    expect(text).toContain('# no phoning home');
    expect(parse(text)).toEqual({
      ...parse(STATIC_CONFIG),
      experimental: {
        plugins: { geoblock: { moduleName: 'github.com/PascalMinder/geoblock', version: 'v0.3.2' } },
      },
    });
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['a-directory.yml', 'link-to-etc', 'traefik.yml']);

    const list = (await listPlugins(keel)).body;
    expect(list.find((p) => p.import === 'github.com/PascalMinder/geoblock')).toMatchObject({
      isInstalled: true,
      installedVersion: 'v0.3.2',
      key: 'geoblock',
    });
    expect(list.filter((p) => p.isInstalled)).toHaveLength(1);
  });

  it("installs with the catalogue's version when none is given (v3's UI sends none for 'latest'), and changes an installed plugin's version", async () => {
    const crowdsec = BUNDLED.find(
      (p) => p.import === 'github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin',
    )!;
    const installed = await api('POST', '/api/plugins/install', { moduleName: crowdsec.import });
    expect(installed.body).toMatchObject({ key: 'crowdsec-bouncer-traefik', version: crowdsec.version });
    expect(
      await api('POST', '/api/plugins/install', {
        moduleName: 'github.com/PascalMinder/geoblock',
        version: 'v0.3.3',
      }),
    ).toMatchObject({ status: 200 });
    expect(parse(readFileSync(file, 'utf8')).experimental.plugins).toEqual({
      geoblock: { moduleName: 'github.com/PascalMinder/geoblock', version: 'v0.3.3' },
      'crowdsec-bouncer-traefik': { moduleName: crowdsec.import, version: crowdsec.version },
    });
  });

  it('serialises concurrent installs: every one ends up in the file', async () => {
    const modules = [
      'github.com/traefik/plugin-blockpath',
      'github.com/traefik/plugindemo',
      'github.com/tomMoulard/fail2ban',
      'github.com/soulbalz/traefik-real-ip',
    ];
    const answers = await Promise.all(
      modules.map((moduleName) => api('POST', '/api/plugins/install', { moduleName })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const declared = parse(readFileSync(file, 'utf8')).experimental.plugins;
    expect(Object.keys(declared).sort()).toEqual([
      'crowdsec-bouncer-traefik',
      'fail2ban',
      'geoblock',
      'plugin-blockpath',
      'plugindemo',
      'traefik-real-ip',
    ]);
    for (const moduleName of modules) await api('DELETE', '/api/plugins/remove', { moduleName });
  });

  it('removes: the key goes, then the emptied sections, the rest of the file stays; a plugin not declared is a 404', async () => {
    const removed = await api('DELETE', '/api/plugins/remove', {
      moduleName: 'github.com/PascalMinder/geoblock',
    });
    expect(removed).toEqual({
      status: 200,
      body: {
        message:
          'Plugin github.com/PascalMinder/geoblock removed from configuration in traefik.yml. A Traefik restart is required for changes to take effect.',
        key: 'geoblock',
        moduleName: 'github.com/PascalMinder/geoblock',
        path: file,
      },
    });
    expect(Object.keys(parse(readFileSync(file, 'utf8')).experimental.plugins)).toEqual([
      'crowdsec-bouncer-traefik',
    ]);
    expectRoutingError(
      await api('DELETE', '/api/plugins/remove', { moduleName: 'github.com/PascalMinder/geoblock' }),
      404,
      "Plugin 'github.com/PascalMinder/geoblock' not found in configuration.",
    );
    await api('DELETE', '/api/plugins/remove', {
      moduleName: 'github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin',
    });
    const text = readFileSync(file, 'utf8');
    expect(parse(text)).toEqual(parse(STATIC_CONFIG));
    expect(text).toContain('# no phoning home');
    expect((await listPlugins(keel)).body.every((p) => !p.isInstalled)).toBe(true);
  });

  it('lists plugins declared by hand but absent from the catalogue, matches entries by module name, and removes by key', async () => {
    writeFileSync(
      file,
      `${STATIC_CONFIG}experimental:\n  plugins:\n    handmade:\n      moduleName: github.com/example/handmade\n      version: v1.0.0\n    bouncer: # another key than v3 would derive\n      moduleName: github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin\n      version: v1.3.0\n    bare: {}\n`,
    );
    const list = (await listPlugins(keel)).body;
    expect(
      list.find((p) => p.import === 'github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin'),
    ).toMatchObject({ isInstalled: true, installedVersion: 'v1.3.0', key: 'bouncer', inCatalogue: true });
    expect(list.slice(-2)).toEqual([
      expect.objectContaining({
        import: 'github.com/example/handmade',
        key: 'handmade',
        isInstalled: true,
        installedVersion: 'v1.0.0',
        inCatalogue: false,
      }),
      expect.objectContaining({ import: 'bare', key: 'bare', isInstalled: true, inCatalogue: false }),
    ]);
    // Reinstalling the module keeps its key: no second declaration.
    await api('POST', '/api/plugins/install', {
      moduleName: 'github.com/maxlerebourg/crowdsec-bouncer-traefik-plugin',
      version: 'v1.4.2',
    });
    const declared = parse(readFileSync(file, 'utf8')).experimental.plugins;
    expect(Object.keys(declared)).toEqual(['handmade', 'bouncer', 'bare']);
    expect(readFileSync(file, 'utf8')).toContain('# another key than v3 would derive');
    expect((await api('DELETE', '/api/plugins/remove', { moduleName: 'bare' })).status).toBe(200);
    expect(
      (await api('DELETE', '/api/plugins/remove', { moduleName: 'github.com/example/handmade' })).status,
    ).toBe(200);
    expect(Object.keys(parse(readFileSync(file, 'utf8')).experimental.plugins)).toEqual(['bouncer']);
  });

  it('leaves a file that is not valid YAML untouched (409) and still lists the catalogue', async () => {
    const broken = 'entryPoints:\n  web: [":80"\nexperimental: 1\n';
    writeFileSync(file, broken);
    expectRoutingError(
      await api('POST', '/api/plugins/install', {
        moduleName: 'github.com/PascalMinder/geoblock',
        version: 'v0.3.2',
      }),
      409,
      'is not valid YAML',
    );
    expectRoutingError(
      await api('DELETE', '/api/plugins/remove', { moduleName: 'github.com/PascalMinder/geoblock' }),
      409,
      'is not valid YAML',
    );
    expect(readFileSync(file, 'utf8')).toBe(broken);
    writeFileSync(file, 'experimental: true\n');
    expectRoutingError(
      await api('POST', '/api/plugins/install', {
        moduleName: 'github.com/PascalMinder/geoblock',
        version: 'v0.3.2',
      }),
      409,
      'experimental in traefik.yml is not a mapping',
    );
    const list = await listPlugins(keel);
    expect(list.status).toBe(200);
    expect(list.body.every((p) => !p.isInstalled)).toBe(true);
  });

  it('creates the file when it does not exist yet; removing from a missing file is a 404', async () => {
    const fresh = join(dir, 'new', 'traefik.yaml');
    mkdirSync(join(dir, 'new'));
    expect((await api('PUT', '/api/plugins/configpath', { path: fresh })).status).toBe(200);
    expectRoutingError(
      await api('DELETE', '/api/plugins/remove', { moduleName: 'github.com/PascalMinder/geoblock' }),
      404,
      'Traefik static configuration file not found',
    );
    expect(
      (
        await api('POST', '/api/plugins/install', {
          moduleName: 'github.com/PascalMinder/geoblock',
          version: 'v0.3.2',
        })
      ).status,
    ).toBe(200);
    expect(parse(readFileSync(fresh, 'utf8'))).toEqual({
      experimental: {
        plugins: { geoblock: { moduleName: 'github.com/PascalMinder/geoblock', version: 'v0.3.2' } },
      },
    });
    expect(existsSync(fresh)).toBe(true);
  });

  it('answers 409, not 500, when the file cannot be written (its directory was removed since)', async () => {
    const gone = join(dir, 'gone');
    mkdirSync(gone);
    expect((await api('PUT', '/api/plugins/configpath', { path: join(gone, 'traefik.yml') })).status).toBe(
      200,
    );
    rmSync(gone, { recursive: true });
    expectRoutingError(
      await api('POST', '/api/plugins/install', {
        moduleName: 'github.com/PascalMinder/geoblock',
        version: 'v0.3.2',
      }),
      409,
      'its directory no longer exists',
    );
    expect(
      (await api('PUT', '/api/plugins/configpath', { path: join(dir, 'new', 'traefik.yaml') })).status,
    ).toBe(200);
  });

  it('keeps the path across a restart, and documents every route in /doc', async () => {
    const restarted = await startKeel({ reuse: keel });
    try {
      expect((await routingApi(restarted.url)('GET', '/api/plugins/configpath')).body).toEqual({
        path: join(dir, 'new', 'traefik.yaml'),
      });
    } finally {
      await restarted.close();
    }
    const doc = (await api('GET', '/doc')).body;
    expect(doc.paths['/api/plugins'].get.operationId).toBe('plugins.list');
    expect(doc.paths['/api/plugins/configpath'].get.operationId).toBe('plugins.configPath');
    expect(doc.paths['/api/plugins/configpath'].put.operationId).toBe('plugins.setConfigPath');
    expect(doc.paths['/api/plugins/install'].post.operationId).toBe('plugins.install');
    expect(doc.paths['/api/plugins/remove'].delete.operationId).toBe('plugins.remove');
  });
});
