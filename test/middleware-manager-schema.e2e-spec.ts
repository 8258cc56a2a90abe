import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { adoptOrCreateSchema } from '../src/routing/middleware-manager.migration';
import { freshDatabase, startKeel, tempDir, testDatabaseServer, TestKeel } from './support/keel';
import { routingApi } from './support/fake-routing-upstreams';

interface ColumnFacts {
  type: 'TEXT' | 'INTEGER' | 'TIMESTAMP';
  notNull: boolean;
  default: string | null;
}

const text = (notNull: boolean, def: string | null = null): ColumnFacts => ({
  type: 'TEXT',
  notNull,
  default: def,
});
const integer = (notNull: boolean, def: string | null): ColumnFacts => ({
  type: 'INTEGER',
  notNull,
  default: def,
});
const now: ColumnFacts = { type: 'TIMESTAMP', notNull: false, default: 'now' };

/** The spec's five tables (spec 002 §2), column by column. */
const SPEC: Record<
  string,
  { columns: Record<string, ColumnFacts>; primaryKey: string[]; foreignKeys: string[] }
> = {
  middlewares: {
    columns: {
      id: text(true),
      name: text(true),
      type: text(true),
      config: text(true),
      created_at: now,
      updated_at: now,
    },
    primaryKey: ['id'],
    foreignKeys: [],
  },
  services: {
    columns: {
      id: text(true),
      name: text(true),
      type: text(true),
      config: text(true),
      created_at: now,
      updated_at: now,
    },
    primaryKey: ['id'],
    foreignKeys: [],
  },
  resources: {
    columns: {
      id: text(true),
      host: text(true),
      service_id: text(true),
      org_id: text(true),
      site_id: text(true),
      status: text(true, 'active'),
      entrypoints: text(false, 'websecure'),
      tls_domains: text(false, ''),
      tcp_enabled: integer(false, '0'),
      tcp_entrypoints: text(false, 'tcp'),
      tcp_sni_rule: text(false, ''),
      custom_headers: text(false, ''),
      router_priority: integer(false, '200'),
      source_type: text(false, ''),
      created_at: now,
      updated_at: now,
    },
    primaryKey: ['id'],
    foreignKeys: [],
  },
  resource_middlewares: {
    columns: {
      resource_id: text(true),
      middleware_id: text(true),
      priority: integer(true, '200'),
      created_at: now,
    },
    primaryKey: ['resource_id', 'middleware_id'],
    foreignKeys: [
      'middleware_id -> middlewares(id) ON DELETE CASCADE',
      'resource_id -> resources(id) ON DELETE CASCADE',
    ],
  },
  resource_services: {
    columns: { resource_id: text(true), service_id: text(true), created_at: now },
    primaryKey: ['resource_id', 'service_id'],
    foreignKeys: [
      'resource_id -> resources(id) ON DELETE CASCADE',
      'service_id -> services(id) ON DELETE CASCADE',
    ],
  },
};

function normalizeDefault(value: string | null): string | null {
  if (value === null) return null;
  if (/^(CURRENT_TIMESTAMP|now\(\))$/i.test(value)) return 'now';
  return value
    .replace(/::[a-z ]+$/, '')
    .replace(/^\(?'(.*)'\)?$/, '$1')
    .replace(/^\((.*)\)$/, '$1');
}

function normalizeType(type: string): ColumnFacts['type'] {
  const t = type.toLowerCase();
  if (t === 'text') return 'TEXT';
  if (t === 'integer') return 'INTEGER';
  // SQLite: TypeORM's `datetime` has TIMESTAMP's NUMERIC affinity.
  if (t.startsWith('timestamp') || t === 'datetime') return 'TIMESTAMP';
  throw new Error(`unexpected column type ${type}`);
}

/** What the database itself says about one table. */
async function describeTable(db: DataSource, table: string) {
  const columns: Record<string, ColumnFacts> = {};
  let primaryKey: string[] = [];
  let foreignKeys: string[] = [];
  if (db.options.type === 'postgres') {
    const rows = await db.query(
      `SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    for (const r of rows)
      columns[r.column_name] = {
        type: normalizeType(r.data_type),
        notNull: r.is_nullable === 'NO',
        default: normalizeDefault(r.column_default),
      };
    const pk = await db.query(
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = $1::regclass AND i.indisprimary`,
      [table],
    );
    primaryKey = pk.map((r: { attname: string }) => r.attname);
    const fks = await db.query(
      `SELECT a.attname AS "from", c.confrelid::regclass::text AS "table", fa.attname AS "to", c.confdeltype AS "onDelete"
       FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
       WHERE c.conrelid = $1::regclass AND c.contype = 'f'`,
      [table],
    );
    foreignKeys = fks.map(
      (f: any) => `${f.from} -> ${f.table}(${f.to}) ON DELETE ${f.onDelete === 'c' ? 'CASCADE' : f.onDelete}`,
    );
  } else {
    const rows = await db.query(`PRAGMA table_info("${table}")`);
    for (const r of rows) {
      // SQLite reports NOT NULL only when declared; a primary key column is declared NOT NULL here.
      columns[r.name] = {
        type: normalizeType(r.type),
        notNull: r.notnull === 1,
        default: normalizeDefault(r.dflt_value),
      };
    }
    primaryKey = rows
      .filter((r: any) => r.pk > 0)
      .sort((a: any, b: any) => a.pk - b.pk)
      .map((r: any) => r.name);
    const fks = await db.query(`PRAGMA foreign_key_list("${table}")`);
    foreignKeys = fks.map((f: any) => `${f.from} -> ${f.table}(${f.to}) ON DELETE ${f.on_delete}`);
  }
  return { columns, primaryKey: primaryKey.sort(), foreignKeys: foreignKeys.sort() };
}

async function schemaOf(db: DataSource) {
  const out: Record<string, unknown> = {};
  for (const table of Object.keys(SPEC)) out[table] = await describeTable(db, table);
  return out;
}

const expectedSchema = () =>
  Object.fromEntries(
    Object.entries(SPEC).map(([t, s]) => [
      t,
      { columns: s.columns, primaryKey: [...s.primaryKey].sort(), foreignKeys: s.foreignKeys },
    ]),
  );

async function defaultRowIds(db: DataSource) {
  const middlewares = await db.query(`SELECT id, name, type FROM "middlewares" ORDER BY id`);
  const services = await db.query(`SELECT id, name, type FROM "services" ORDER BY id`);
  return { middlewares, services };
}

const SEEDED = {
  middlewares: [
    { id: 'authelia', name: 'Authelia', type: 'forwardAuth' },
    { id: 'authentik', name: 'Authentik', type: 'forwardAuth' },
    { id: 'basic-auth', name: 'Basic Auth', type: 'basicAuth' },
  ],
  services: [
    { id: 'failover-demo', name: 'Failover Demo', type: 'failover' },
    { id: 'simple-lb', name: 'Simple LoadBalancer', type: 'loadBalancer' },
    { id: 'weighted-demo', name: 'Weighted Service Demo', type: 'weighted' },
  ],
};

describe('routing manager: migration on an empty database', () => {
  let keel: TestKeel;
  let db: DataSource;

  beforeAll(async () => {
    keel = await startKeel();
    db = keel.keel.app.get(DataSource);
  });

  afterAll(async () => {
    await keel.close();
  });

  it('creates exactly the spec columns, defaults, keys, cascades and six rows', async () => {
    expect(await schemaOf(db)).toEqual(expectedSchema());
    expect(await defaultRowIds(db)).toEqual(SEEDED);
  });

  it('changes nothing when run again (rows kept as the user left them)', async () => {
    await db.query(`UPDATE "services" SET name = 'Mine' WHERE id = 'simple-lb'`);
    const before = await db.query(
      `SELECT id, name, type, config FROM "middlewares" UNION ALL SELECT id, name, type, config FROM "services" ORDER BY id`,
    );
    const runner = db.createQueryRunner();
    try {
      await adoptOrCreateSchema(runner, db.options.type === 'postgres' ? 'postgres' : 'sqlite');
    } finally {
      await runner.release();
    }
    expect(await schemaOf(db)).toEqual(expectedSchema());
    expect(
      await db.query(
        `SELECT id, name, type, config FROM "middlewares" UNION ALL SELECT id, name, type, config FROM "services" ORDER BY id`,
      ),
    ).toEqual(before);
  });

  it('does not bring back a default the user deleted when the server restarts', async () => {
    await db.query(`DELETE FROM "middlewares" WHERE id = 'authentik'`);
    const again = await startKeel({ reuse: keel });
    try {
      const rows = await defaultRowIds(again.keel.app.get(DataSource));
      expect(rows.middlewares.map((r: { id: string }) => r.id)).toEqual(['authelia', 'basic-auth']);
    } finally {
      await again.keel.app.close();
    }
  });
});

// Tables as an early middleware-manager created them (before entrypoints, custom headers, priority,
// source and services), with user rows; the same SQL runs on both engines.
const EARLY_MIDDLEWARE_MANAGER = `
  CREATE TABLE middlewares (id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, config TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
  CREATE TABLE resources (id TEXT PRIMARY KEY, host TEXT NOT NULL, service_id TEXT NOT NULL, org_id TEXT NOT NULL,
    site_id TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'active', created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
  CREATE TABLE resource_middlewares (resource_id TEXT NOT NULL, middleware_id TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 100,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (resource_id, middleware_id),
    FOREIGN KEY (resource_id) REFERENCES resources(id) ON DELETE CASCADE,
    FOREIGN KEY (middleware_id) REFERENCES middlewares(id) ON DELETE CASCADE);
  INSERT INTO middlewares (id, name, type, config) VALUES
    ('authelia', 'Authelia (mine)', 'forwardAuth', '{"address":"http://sso:9091/api/authz/forward-auth"}'),
    ('a1b2c3d4e5f60718', 'Geo', 'ipAllowList', '{"sourceRange":["10.0.0.0/8"]}');
  INSERT INTO resources (id, host, service_id, org_id, site_id, status, updated_at) VALUES
    ('1-nextcloud-router', 'cloud.example.com', '1-nextcloud-service', 'unknown', 'unknown', 'active', '2025-10-03 12:34:56.123456789+02:00');
  INSERT INTO resource_middlewares (resource_id, middleware_id, priority) VALUES ('1-nextcloud-router', 'a1b2c3d4e5f60718', 150);
`;

/** Where the early database lives: a SQLite file in the data dir, or a fresh PostgreSQL database. */
const ADOPTED_ENGINES: {
  engine: string;
  create(dataDir: string): Promise<{ databaseUrl: string; drop(): Promise<void> }>;
}[] = [
  {
    engine: 'SQLite',
    create: (dataDir) => {
      const early = new Database(join(dataDir, 'keel.sqlite'));
      early.exec(EARLY_MIDDLEWARE_MANAGER);
      early.close();
      return Promise.resolve({ databaseUrl: '', drop: () => Promise.resolve() });
    },
  },
  ...(testDatabaseServer
    ? [
        {
          engine: 'PostgreSQL',
          create: async () => {
            const database = await freshDatabase();
            const early = new DataSource({ type: 'postgres', url: database.url });
            await early.initialize();
            await early.query(EARLY_MIDDLEWARE_MANAGER);
            await early.destroy();
            return { databaseUrl: database.url!, drop: database.drop };
          },
        },
      ]
    : []),
];

describe('routing manager: adopting a middleware-manager database', () => {
  it.each(ADOPTED_ENGINES)(
    '$engine: keeps the user rows, adds missing later columns and tables, and serves them',
    async ({ create }) => {
      const dataDir = tempDir('keel-adopt-');
      const database = await create(dataDir);
      const env = {
        KEEL_DATA_DIR: dataDir,
        KEEL_PORT: '0',
        KEEL_HOST: '127.0.0.1',
        KEEL_LOG_LEVEL: 'silent',
        DATABASE_URL: database.databaseUrl,
      };
      const keel = await startKeel({ reuse: { env } });
      try {
        const api = routingApi(keel.url);
        expect((await api('GET', '/api/middlewares/authelia')).body).toEqual({
          id: 'authelia',
          name: 'Authelia (mine)',
          type: 'forwardAuth',
          config: { address: 'http://sso:9091/api/authz/forward-auth' },
        });
        expect((await api('GET', '/api/middlewares')).body.map((m: { id: string }) => m.id).sort()).toEqual([
          'a1b2c3d4e5f60718',
          'authelia',
          'authentik',
          'basic-auth',
        ]);
        expect((await api('GET', '/api/services')).body).toHaveLength(3);
        expect((await api('GET', '/api/resources/1-nextcloud-router')).body).toMatchObject({
          host: 'cloud.example.com',
          entrypoints: 'websecure',
          tcp_entrypoints: 'tcp',
          tcp_enabled: false,
          router_priority: 200,
          source_type: '',
          custom_headers: '',
          middlewares: 'a1b2c3d4e5f60718:Geo:150',
        });
        const facts = await describeTable(keel.keel.app.get(DataSource), 'resources');
        expect(Object.keys(facts.columns).sort()).toEqual(Object.keys(SPEC.resources.columns).sort());
        const { body } = await api('GET', '/api/v1/traefik-config');
        expect(body.http.routers['1-nextcloud-router-auth'].middlewares).toEqual([
          'a1b2c3d4e5f60718@http',
          'badger@http',
        ]);
      } finally {
        await keel.keel.app.close();
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
