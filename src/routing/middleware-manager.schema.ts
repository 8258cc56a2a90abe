/**
 * Schema facts of middleware-manager v3.0.3 shared by the two dialect migrations. Frozen: a
 * change here needs a new migration, because the migrations that import it have already run.
 */
export type SqlDialect = 'sqlite' | 'postgres';

/** Column types that differ between the two engines (SQLite `datetime` has TIMESTAMP's affinity). */
const types = {
  sqlite: { timestamp: 'datetime', now: 'CURRENT_TIMESTAMP' },
  postgres: { timestamp: 'TIMESTAMP', now: 'now()' },
} as const;

interface ColumnSpec {
  name: string;
  /** DDL after the column name, with `{ts}` and `{now}` for the dialect's timestamp type and clock. */
  ddl: string;
  /** Columns v3 added after a database was first created: added again here when absent. */
  addable: boolean;
}

const timestamps: ColumnSpec[] = [
  { name: 'created_at', ddl: '{ts} DEFAULT {now}', addable: true },
  { name: 'updated_at', ddl: '{ts} DEFAULT {now}', addable: true },
];

const definitionColumns: ColumnSpec[] = [
  { name: 'id', ddl: 'text NOT NULL', addable: false },
  { name: 'name', ddl: 'text NOT NULL', addable: false },
  { name: 'type', ddl: 'text NOT NULL', addable: false },
  { name: 'config', ddl: 'text NOT NULL', addable: false },
  ...timestamps,
];

interface TableSpec {
  name: string;
  columns: ColumnSpec[];
  primaryKey: string[];
  foreignKeys: { name: string; column: string; references: string }[];
}

export const MIDDLEWARE_MANAGER_TABLES: TableSpec[] = [
  { name: 'middlewares', columns: definitionColumns, primaryKey: ['id'], foreignKeys: [] },
  { name: 'services', columns: definitionColumns, primaryKey: ['id'], foreignKeys: [] },
  {
    name: 'resources',
    columns: [
      { name: 'id', ddl: 'text NOT NULL', addable: false },
      { name: 'host', ddl: 'text NOT NULL', addable: false },
      { name: 'service_id', ddl: 'text NOT NULL', addable: false },
      { name: 'org_id', ddl: 'text NOT NULL', addable: false },
      { name: 'site_id', ddl: 'text NOT NULL', addable: false },
      { name: 'status', ddl: `text NOT NULL DEFAULT 'active'`, addable: true },
      { name: 'entrypoints', ddl: `text DEFAULT 'websecure'`, addable: true },
      { name: 'tls_domains', ddl: `text DEFAULT ''`, addable: true },
      { name: 'tcp_enabled', ddl: 'integer DEFAULT 0', addable: true },
      { name: 'tcp_entrypoints', ddl: `text DEFAULT 'tcp'`, addable: true },
      { name: 'tcp_sni_rule', ddl: `text DEFAULT ''`, addable: true },
      { name: 'custom_headers', ddl: `text DEFAULT ''`, addable: true },
      { name: 'router_priority', ddl: 'integer DEFAULT 200', addable: true },
      { name: 'source_type', ddl: `text DEFAULT ''`, addable: true },
      ...timestamps,
    ],
    primaryKey: ['id'],
    foreignKeys: [],
  },
  {
    name: 'resource_middlewares',
    columns: [
      { name: 'resource_id', ddl: 'text NOT NULL', addable: false },
      { name: 'middleware_id', ddl: 'text NOT NULL', addable: false },
      { name: 'priority', ddl: 'integer NOT NULL DEFAULT 200', addable: true },
      timestamps[0],
    ],
    primaryKey: ['resource_id', 'middleware_id'],
    foreignKeys: [
      { name: 'FK_resource_middlewares_resource', column: 'resource_id', references: 'resources' },
      { name: 'FK_resource_middlewares_middleware', column: 'middleware_id', references: 'middlewares' },
    ],
  },
  {
    name: 'resource_services',
    columns: [
      { name: 'resource_id', ddl: 'text NOT NULL', addable: false },
      { name: 'service_id', ddl: 'text NOT NULL', addable: false },
      timestamps[0],
    ],
    primaryKey: ['resource_id', 'service_id'],
    foreignKeys: [
      { name: 'FK_resource_services_resource', column: 'resource_id', references: 'resources' },
      { name: 'FK_resource_services_service', column: 'service_id', references: 'services' },
    ],
  },
];

function columnDdl(column: ColumnSpec, dialect: SqlDialect): string {
  return `"${column.name}" ${column.ddl.replace('{ts}', types[dialect].timestamp).replace('{now}', types[dialect].now)}`;
}

/** `CREATE TABLE IF NOT EXISTS` with the spec's columns, keys and cascading foreign keys. */
export function createTableSql(table: TableSpec, dialect: SqlDialect): string {
  const parts = table.columns.map((c) => columnDdl(c, dialect));
  parts.push(
    `CONSTRAINT "PK_${table.name}" PRIMARY KEY (${table.primaryKey.map((c) => `"${c}"`).join(', ')})`,
  );
  for (const fk of table.foreignKeys) {
    parts.push(
      `CONSTRAINT "${fk.name}" FOREIGN KEY ("${fk.column}") REFERENCES "${fk.references}" ("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
  return `CREATE TABLE IF NOT EXISTS "${table.name}" (${parts.join(', ')})`;
}

/** `ALTER TABLE … ADD COLUMN` for a later column missing from an adopted database. */
export function addColumnSql(table: TableSpec, column: ColumnSpec, dialect: SqlDialect): string {
  return `ALTER TABLE "${table.name}" ADD COLUMN ${columnDdl(column, dialect)}`;
}

/** The six default rows of v3.0.3's migrations.sql, exactly. */
export const DEFAULT_ROWS: {
  table: 'middlewares' | 'services';
  id: string;
  name: string;
  type: string;
  config: string;
}[] = [
  {
    table: 'middlewares',
    id: 'authelia',
    name: 'Authelia',
    type: 'forwardAuth',
    config:
      '{"address":"http://authelia:9091/api/authz/forward-auth","trustForwardHeader":true,"authResponseHeaders":["Remote-User","Remote-Groups","Remote-Name","Remote-Email"]}',
  },
  {
    table: 'middlewares',
    id: 'authentik',
    name: 'Authentik',
    type: 'forwardAuth',
    config:
      '{"address":"http://authentik:9000/outpost.goauthentik.io/auth/traefik","trustForwardHeader":true,"authResponseHeaders":["X-authentik-username","X-authentik-groups","X-authentik-email","X-authentik-name","X-authentik-uid"]}',
  },
  {
    table: 'middlewares',
    id: 'basic-auth',
    name: 'Basic Auth',
    type: 'basicAuth',
    config: '{"users":["admin:$apr1$H6uskkkW$IgXLP6ewTrSuBkTrqE8wj/"]}',
  },
  {
    table: 'services',
    id: 'simple-lb',
    name: 'Simple LoadBalancer',
    type: 'loadBalancer',
    config: '{"servers":[{"url":"http://localhost:8080"}]}',
  },
  {
    table: 'services',
    id: 'weighted-demo',
    name: 'Weighted Service Demo',
    type: 'weighted',
    config: '{"services":[{"name":"service1","weight":3},{"name":"service2","weight":1}]}',
  },
  {
    table: 'services',
    id: 'failover-demo',
    name: 'Failover Demo',
    type: 'failover',
    config: '{"service":"main","fallback":"backup"}',
  },
];

/** Insert a default row only when its id is absent (`INSERT OR IGNORE` of v3). */
export function seedSql(dialect: SqlDialect, table: string): string {
  const p = dialect === 'postgres' ? ['$1', '$2', '$3', '$4'] : ['?', '?', '?', '?'];
  return `INSERT INTO "${table}" ("id", "name", "type", "config") VALUES (${p.join(', ')}) ON CONFLICT ("id") DO NOTHING`;
}
