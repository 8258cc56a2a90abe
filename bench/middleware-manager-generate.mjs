#!/usr/bin/env node
// Routing manager bench: Traefik config generation and API list latency with N resources
// (default 5,000), each with 3 middlewares. Starts the built server ($KEEL_DIST/main.js or
// dist/main.js) on loopback with a temp data dir, imports the resources from a fake Pangolin
// on loopback, then measures over real HTTP and, in-process, the generator itself.
//   node bench/middleware-manager-generate.mjs [resources=5000] [rounds=20]
// With DATABASE_URL=postgres://… it runs on a scratch PostgreSQL database on that server.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, percentile } from './lib/figures.mjs';
import { freshDatabase, keelDist as dist, startKeel } from './lib/keel-server.mjs';

const require = createRequire(import.meta.url);
const RESOURCES = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 20);

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return `median ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, min ${sorted[0].toFixed(1)} ms (n=${sorted.length})`;
}

async function time(fn) {
  const start = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

function fakePangolin(count) {
  const routers = {};
  for (let i = 0; i < count; i++) {
    routers[`${i}-app-router`] = {
      rule: `Host(\`app${i}.example.com\`)`,
      service: `${i}-app-service`,
      entryPoints: ['websecure'],
      tls: { certResolver: 'letsencrypt' },
    };
  }
  const body = JSON.stringify({ http: { routers } });
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const serverUrl = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;
const database = await freshDatabase(serverUrl);
const confDir = mkdtempSync(join(tmpdir(), 'keel-mm-bench-traefik-'));
const pangolin = await fakePangolin(RESOURCES);
const pangolinUrl = `http://127.0.0.1:${pangolin.address().port}`;
const keel = await startKeel({
  databaseUrl: database.url,
  logLevel: 'error',
  env: {
    KEEL_MM_PANGOLIN_URL: pangolinUrl,
    KEEL_MM_CHECK_INTERVAL_SECONDS: '3600',
    KEEL_MM_GENERATE_INTERVAL_SECONDS: '0',
    KEEL_MM_TRAEFIK_CONF_DIR: confDir,
    KEEL_MM_DEFAULT_MIDDLEWARES: 'authelia:300,authentik:200,basic-auth:100',
  },
});
const get = async (path) => {
  const response = await fetch(`${keel.url}${path}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
  return text;
};
try {
  // The watcher's first tick imports every router (and attaches the 3 default middlewares).
  const importStart = Date.now();
  let count = 0;
  while (count < RESOURCES && Date.now() - importStart < 300_000) {
    await new Promise((r) => setTimeout(r, 250));
    count = JSON.parse(await get('/api/resources?status=active')).length;
  }
  const importMs = Date.now() - importStart;
  const first = JSON.parse(await get('/api/resources/0-app-router'));
  if (first.assigned_middlewares.length !== 3) throw new Error('default middlewares not attached');

  // Cold: a change (router priority) before each request drops the served cache; the pause lets
  // the file writer finish its own rebuild first.
  const http = [];
  let body = '';
  for (let i = 0; i < ROUNDS; i++) {
    const change = await fetch(`${keel.url}/api/resources/0-app-router/config/priority`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ router_priority: 300 + i }),
    });
    if (change.status !== 200) throw new Error(`priority change: ${change.status}`);
    await new Promise((r) => setTimeout(r, 400));
    const { ms, result } = await time(() => get('/api/v1/traefik-config'));
    http.push(ms);
    body = result;
  }
  const cached = [];
  for (let i = 0; i < ROUNDS; i++) cached.push((await time(() => get('/api/v1/traefik-config'))).ms);
  const list = [];
  let listBytes = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const { ms, result } = await time(() => get('/api/resources'));
    list.push(ms);
    listBytes = result.length;
  }
  const middlewareList = [];
  for (let i = 0; i < ROUNDS; i++) middlewareList.push((await time(() => get('/api/middlewares'))).ms);

  // In-process: the generator alone on the same rows (snapshot read once from the JSON above).
  const { buildTraefikConfig } = require(join(dist, 'routing', 'traefik-output', 'traefik-config.builder.js'));
  const { toYaml } = require(join(dist, 'routing', 'traefik-output', 'traefik-yaml.js'));
  const resources = JSON.parse(await get('/api/resources'));
  const snapshot = {
    resources: resources.map((r) => ({ ...r, tcp_enabled: r.tcp_enabled ? 1 : 0 })),
    middlewares: JSON.parse(await get('/api/middlewares')).map((m) => ({
      id: m.id,
      type: m.type,
      config: JSON.stringify(m.config),
    })),
    services: JSON.parse(await get('/api/services')).map((s) => ({
      id: s.id,
      type: s.type,
      config: JSON.stringify(s.config),
    })),
    middlewareLinks: resources.flatMap((r) =>
      r.assigned_middlewares.map((m) => ({ resource_id: r.id, middleware_id: m.id, priority: m.priority })),
    ),
    serviceLinks: [],
  };
  const build = [];
  const buildYaml = [];
  let yaml = '';
  for (let i = 0; i < ROUNDS; i++) {
    build.push(
      (
        await time(() =>
          buildTraefikConfig(snapshot, {
            activeSource: 'pangolin',
            certResolver: 'letsencrypt',
            ownProvider: 'file',
          }),
        )
      ).ms,
    );
    const { ms, result } = await time(() =>
      toYaml(
        buildTraefikConfig(snapshot, {
          activeSource: 'pangolin',
          certResolver: 'letsencrypt',
          ownProvider: 'file',
        }),
      ),
    );
    buildYaml.push(ms);
    yaml = result;
  }
  // The file writer runs after the import burst.
  const file = join(confDir, 'resource-overrides.yml');
  const fileBytes = statSync(file).size;
  const fileRouters = (readFileSync(file, 'utf8').match(/-router-auth:/g) ?? []).length;

  console.log(`# middleware-manager bench — ${new Date().toISOString()}`);
  console.log(
    `machine: ${machineLine()}, ${serverUrl ? 'PostgreSQL' : 'SQLite'}`,
  );
  console.log(
    `command: ${serverUrl ? `DATABASE_URL=${serverUrl} ` : ''}KEEL_DIST=${dist} node bench/middleware-manager-generate.mjs ${RESOURCES} ${ROUNDS}`,
  );
  console.log(
    `rows: ${RESOURCES} active resources × 3 middlewares (${snapshot.middlewareLinks.length} links); import by sync ${importMs} ms`,
  );
  console.log(`generator in-process (build only):          ${stats(build)}`);
  console.log(
    `generator in-process (build + YAML):        ${stats(buildYaml)}; YAML ${(yaml.length / 1024).toFixed(0)} KiB`,
  );
  console.log(
    `GET /api/v1/traefik-config after a change (DB+build+JSON): ${stats(http)}; JSON ${(body.length / 1024).toFixed(0)} KiB`,
  );
  console.log(`GET /api/v1/traefik-config unchanged (served cache):   ${stats(cached)}`);
  console.log(
    `file ${file.replace(confDir, '<traefik dir>')}: ${(fileBytes / 1024).toFixed(0)} KiB, ${fileRouters} routers`,
  );
  console.log(
    `GET /api/resources (${RESOURCES} rows):        ${stats(list)}; ${(listBytes / 1024).toFixed(0)} KiB`,
  );
  console.log(`GET /api/middlewares:                       ${stats(middlewareList)}`);
} finally {
  await keel.stop();
  pangolin.close();
  rmSync(confDir, { recursive: true, force: true });
  await database.drop();
}
