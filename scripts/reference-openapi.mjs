// Writes src/openapi/opencode-openapi-1.18.33.json: the operations of the reference opencode 1.18.33
// server that Keel serves for newer clients (the 1.18 TUI and the 1.1 TUI), exactly as that server's
// own `/doc` describes them, with the component schemas they use. Keel validates those requests
// against it and documents them from it in `/doc`, as it does the seed's operations from
// opencode-openapi-1.0.0.json.
//
//   npm install --prefix bench/reference && node scripts/reference-openapi.mjs [--check]
//
// Changes from the reference document, each so that it says what Keel answers:
// - Error responses are Keel's session dialect: 400 is the seed's `BadRequestError`, a declared 404
//   is `NotFoundError` (1.18.33 answers `{_tag, …}` bodies of several kinds); other error statuses
//   (401, 500, 503) are left out, as the seed document leaves them out.
// - A component whose name the seed document uses for a different schema (`VcsInfo`) is renamed
//   with the suffix `_1_18_33`, so both documents' components can live in one `/doc`.
// - `VcsInfo`'s members may be null: the reference answers `{"branch": null, "default_branch": null}`
//   outside git and `default_branch: null` when there is none (its document says optional strings).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReference } from '../bench/reference/start-reference.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'src', 'openapi', 'opencode-openapi-1.18.33.json');
const seed = JSON.parse(readFileSync(join(root, 'src', 'openapi', 'opencode-openapi-1.0.0.json'), 'utf8'));

/** What Keel takes from 1.18.33: the routes its TUI and SDK call that the seed lacks, and `/vcs` (now with `default_branch`). */
const OPERATIONS = [
  'vcs.get',
  'vcs.status',
  'vcs.diff',
  'app.skills',
  'permission.reply',
  'project.directories',
  'experimental.capabilities.get',
  'experimental.console.get',
  'experimental.resource.list',
  'experimental.workspace.list',
  'experimental.workspace.status',
  'v2.projectCopy.refresh',
  'v2.location.get',
  'v2.agent.list',
  'v2.integration.list',
  'v2.model.list',
  'v2.provider.list',
  'v2.reference.list',
  'v2.command.list',
  'v2.skill.list',
  'v2.fs.find',
];
const SUFFIX = '_1_18_33';

const ref = await startReference();
let doc;
try {
  doc = await (await fetch(`${ref.url}/doc`)).json();
} finally {
  await ref.stop();
}

const byId = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, operation] of Object.entries(item)) byId.set(operation.operationId, { path, method, operation });
}

const refsOf = (value) => [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
const keelErrors = (responses) => {
  const out = {};
  for (const [status, response] of Object.entries(responses)) {
    if (/^2\d\d$/.test(status)) out[status] = response;
    else if (status === '400') out[status] = { description: 'Bad request', content: { 'application/json': { schema: { $ref: '#/components/schemas/BadRequestError' } } } };
    else if (status === '404') out[status] = { description: 'Not found', content: { 'application/json': { schema: { $ref: '#/components/schemas/NotFoundError' } } } };
  }
  return out;
};

const paths = {};
const wanted = new Set();
for (const id of OPERATIONS) {
  const entry = byId.get(id);
  if (!entry) throw new Error(`the reference has no operation ${id}`);
  const operation = { ...entry.operation, responses: keelErrors(entry.operation.responses) };
  (paths[entry.path] ??= {})[entry.method] = operation;
  for (const name of refsOf(operation)) wanted.add(name);
}
// BadRequestError and NotFoundError are the seed's (added to every operation above).
wanted.delete('BadRequestError');
wanted.delete('NotFoundError');
const schemas = {};
const queue = [...wanted];
while (queue.length) {
  const name = queue.pop();
  if (schemas[name]) continue;
  const schema = doc.components.schemas[name];
  if (!schema) throw new Error(`the reference has no schema ${name}`);
  schemas[name] = schema;
  for (const next of refsOf(schema)) if (!schemas[next]) queue.push(next);
}
schemas.BadRequestError = seed.components.schemas.BadRequestError;
schemas.NotFoundError = seed.components.schemas.NotFoundError;

const renamed = Object.keys(schemas).filter((name) => seed.components.schemas[name] && JSON.stringify(seed.components.schemas[name]) !== JSON.stringify(schemas[name]));
let text = JSON.stringify({ paths, schemas });
for (const name of renamed) text = text.replaceAll(`"#/components/schemas/${name}"`, `"#/components/schemas/${name}${SUFFIX}"`);
const rewritten = JSON.parse(text);
for (const name of renamed) {
  rewritten.schemas[`${name}${SUFFIX}`] = rewritten.schemas[name];
  delete rewritten.schemas[name];
}

for (const member of ['branch', 'default_branch']) rewritten.schemas[`VcsInfo${SUFFIX}`].properties[member] = { anyOf: [{ type: 'string' }, { type: 'null' }] };

const out = {
  openapi: doc.openapi,
  info: {
    title: 'opencode',
    version: ref.version,
    description: `The operations of opencode ${ref.version}'s /doc that Keel serves, with Keel's error bodies (written by scripts/reference-openapi.mjs)`,
  },
  paths: rewritten.paths,
  components: { schemas: Object.fromEntries(Object.entries(rewritten.schemas).sort(([a], [b]) => a.localeCompare(b))) },
};
const json = `${JSON.stringify(out, null, 2)}\n`;
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== json) {
    process.stderr.write(`${target} differs from what opencode ${ref.version} serves: run node scripts/reference-openapi.mjs\n`);
    process.exit(1);
  }
  process.stdout.write(`${target} matches opencode ${ref.version}\n`);
} else {
  writeFileSync(target, json);
  process.stdout.write(`wrote ${target}: ${OPERATIONS.length} operations, ${Object.keys(out.components.schemas).length} schemas${renamed.length ? `, renamed ${renamed.join(', ')}` : ''}\n`);
}
