import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync } from 'node:fs';
import { ROUTING_PREFIXES, surfaceOfPath } from '../src/common/surface';
import { referenceOperations } from '../src/openapi/reference-document';
import { ConfigHome, isolatedConfigHome } from './support/config-home';
import { setEnv } from './support/env';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { expectReferenceResponse } from './support/reference-schema';

/**
 * opencode's own `/api/*` routes (its v2 API) that the 1.18.33 TUI reads at start and for `@`
 * completion, and `/move`'s project-copy refresh: answered from Keel's agents, providers, models,
 * commands and files, in the shapes of opencode 1.18.33's document; beside the routing manager's
 * `/api/*` routes without either answering the other's requests.
 */
describe("opencode's v2 API (/api/*) beside the routing manager's (issue 22)", () => {
  let keel: TestKeel;
  let home: ConfigHome;
  let restoreEnv: () => void;
  let projectID: string;
  let worktreeCopy: string;

  beforeAll(async () => {
    home = isolatedConfigHome({
      repoPrefix: 'keel-v2-',
      project: {
        'opencode.json': JSON.stringify({
          provider: {
            local: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Local',
              options: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-local-secret', timeout: 5000 },
              models: {
                'tiny-1': {
                  name: 'Tiny One',
                  family: 'tiny',
                  release_date: '2026-01-15',
                  tool_call: true,
                  cost: { input: 1, output: 2, cache_read: 0.5, context_over_200k: { input: 2, output: 4 } },
                  limit: { context: 32000, output: 4000 },
                  modalities: { input: ['text', 'image'], output: ['text'] },
                  variants: { fast: { reasoningEffort: 'low' } },
                },
              },
            },
          },
          agent: { reviewer: { description: 'Reviews code', mode: 'subagent', model: 'local/tiny-1', color: '#aa00ff', maxSteps: 7, temperature: 0.2, permission: { edit: 'deny', bash: { 'git *': 'allow' } } } },
          command: { ship: { template: 'Ship $ARGUMENTS', description: 'Ship it', model: 'local/tiny-1', subtask: true } },
        }),
        'README.md': '# readme\n',
        'src/reader.ts': 'export const read = 1;\n',
      },
    });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=k@example.invalid', '-c', 'user.name=k', ...args], { cwd: home.repo, stdio: 'ignore' });
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    worktreeCopy = `${home.repo}-copy`;
    git('worktree', 'add', '-q', worktreeCopy);
    projectID = execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: home.repo }).toString().trim();
    restoreEnv = setEnv({ GROQ_API_KEY: 'gsk-env-secret' });
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    restoreEnv();
    home.restore();
    rmSync(worktreeCopy, { recursive: true, force: true });
  });

  /** As the 1.18 TUI asks: `directory` and `location[directory]`. */
  const v2 = async (path: string, dir = home.repo) => {
    const q = `directory=${encodeURIComponent(dir)}&location%5Bdirectory%5D=${encodeURIComponent(dir)}`;
    const res = await fetch(`${keel.url}${path}${path.includes('?') ? '&' : '?'}${q}`);
    return { status: res.status, body: (await res.json()) };
  };
  const location = () => ({ directory: home.repo, project: { id: projectID, directory: home.repo } });

  it('/api/location names the directory and its project; location[directory] alone selects it', async () => {
    expect(await v2('/api/location')).toEqual({ status: 200, body: location() });
    const only = await fetch(`${keel.url}/api/location?location%5Bdirectory%5D=${encodeURIComponent(home.repo)}`);
    expect(await only.json()).toEqual(location());
    const plain = tempDir('keel-v2-plain-');
    expect(await v2('/api/location', plain)).toEqual({ status: 200, body: { directory: plain, project: { id: 'global', directory: '/' } } });
    rmSync(plain, { recursive: true, force: true });
    const clash = await fetch(`${keel.url}/api/location?directory=${encodeURIComponent(home.repo)}&location%5Bdirectory%5D=%2Ftmp`);
    expect(clash.status).toBe(400);
    expect(await clash.json()).toMatchObject({ success: false, error: [expect.objectContaining({ path: ['directory'] })] });
  });

  it('/api/agent lists Keel’s agents with their prompts, models and permissions as rules', async () => {
    const { status, body } = await v2('/api/agent');
    expect(status).toBe(200);
    expectReferenceResponse(body, 'v2.agent.list');
    expect(body.location).toEqual(location());
    expect(body.data.map((a: any) => [a.id, a.mode, a.hidden])).toEqual([
      ['build', 'primary', false],
      ['plan', 'primary', false],
      ['general', 'subagent', true],
      ['explore', 'subagent', false],
      ['compaction', 'primary', true],
      ['title', 'primary', true],
      ['summary', 'primary', true],
      ['reviewer', 'subagent', false],
    ]);
    const reviewer = body.data.find((a: any) => a.id === 'reviewer');
    expect(reviewer).toMatchObject({
      description: 'Reviews code',
      model: { id: 'tiny-1', providerID: 'local' },
      color: '#aa00ff',
      steps: 7,
      request: { headers: {}, body: { temperature: 0.2 } },
    });
    expect(reviewer.permissions).toEqual(
      expect.arrayContaining([
        { action: 'edit', resource: '*', effect: 'deny' },
        { action: 'bash', resource: '*', effect: 'allow' },
        { action: 'bash', resource: 'git *', effect: 'allow' },
        { action: 'external_directory', resource: '*', effect: 'ask' },
      ]),
    );
    const plan = body.data.find((a: any) => a.id === 'plan');
    // Patterns broadest first, so the later (more specific) rule wins as it does in Keel.
    const bash = plan.permissions.filter((r: any) => r.action === 'bash').map((r: any) => r.resource);
    expect(bash[0]).toBe('*');
    expect(plan.permissions).toContainEqual({ action: 'edit', resource: '*', effect: 'deny' });
    expect(body.data.find((a: any) => a.id === 'explore').system).toContain('read-only codebase explorer');
    // explore has edit switched off as a tool: the last edit rule denies it.
    expect(body.data.find((a: any) => a.id === 'explore').permissions.filter((r: any) => r.action === 'edit').at(-1)).toEqual({ action: 'edit', resource: '*', effect: 'deny' });
  });

  it('/api/provider and /api/model list the connected providers and their models, never a key', async () => {
    const providers = await v2('/api/provider');
    expect(providers.status).toBe(200);
    expectReferenceResponse(providers.body, 'v2.provider.list');
    expect(providers.body.data.map((p: any) => p.id).sort()).toEqual(['groq', 'local']);
    expect(providers.body.data.find((p: any) => p.id === 'local')).toEqual({
      id: 'local',
      name: 'Local',
      api: { type: 'aisdk', package: '@ai-sdk/openai-compatible', url: 'http://127.0.0.1:9/v1', settings: { timeout: 5000 } },
      request: { headers: {}, body: {} },
    });

    const models = await v2('/api/model');
    expect(models.status).toBe(200);
    expectReferenceResponse(models.body, 'v2.model.list');
    const groq = models.body.data.filter((m: any) => m.providerID === 'groq');
    expect(groq.length).toBeGreaterThan(0);
    expect(models.body.data.find((m: any) => m.id === 'tiny-1')).toEqual({
      id: 'tiny-1',
      providerID: 'local',
      family: 'tiny',
      name: 'Tiny One',
      api: { id: 'tiny-1', type: 'aisdk', package: '@ai-sdk/openai-compatible', url: 'http://127.0.0.1:9/v1', settings: { timeout: 5000 } },
      capabilities: { tools: true, input: ['text', 'image'], output: ['text'] },
      request: { headers: {}, body: {} },
      variants: [{ id: 'fast', headers: {}, body: { reasoningEffort: 'low' } }],
      time: { released: Date.parse('2026-01-15') },
      cost: [
        { input: 1, output: 2, cache: { read: 0.5, write: 0 } },
        { tier: { type: 'context', size: 200000 }, input: 2, output: 4, cache: { read: 0, write: 0 } },
      ],
      status: 'active',
      enabled: true,
      limit: { context: 32000, output: 4000 },
    });
    for (const text of [JSON.stringify(providers.body), JSON.stringify(models.body)]) {
      expect(text).not.toContain('sk-local-secret');
      expect(text).not.toContain('gsk-env-secret');
    }
  });

  it('/api/integration lists the catalog providers, how they connect, and what connects them now', async () => {
    await fetch(`${keel.url}/auth/openai?directory=${encodeURIComponent(home.repo)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'api', key: 'sk-stored-secret' }),
    });
    const { status, body } = await v2('/api/integration');
    expect(status).toBe(200);
    expectReferenceResponse(body, 'v2.integration.list');
    expect(body.data.map((i: any) => i.id)).toEqual(['anthropic', 'openai', 'google', 'openrouter', 'groq', 'mistral', 'deepseek', 'xai']);
    const byId = Object.fromEntries(body.data.map((i: any) => [i.id, i]));
    expect(byId.groq).toEqual({ id: 'groq', name: 'Groq', methods: [{ type: 'key' }, { type: 'env', names: ['GROQ_API_KEY'] }], connections: [{ type: 'env', name: 'GROQ_API_KEY' }] });
    expect(byId.openai.connections).toEqual([{ type: 'credential', id: 'openai', label: 'API key' }]);
    expect(byId.anthropic.connections).toEqual([]);
    expect(JSON.stringify(body)).not.toContain('secret');
  });

  it('/api/command lists commands with their model as a reference; /api/reference is empty (Keel has no references)', async () => {
    const commands = await v2('/api/command');
    expectReferenceResponse(commands.body, 'v2.command.list');
    expect(commands.body.data.find((c: any) => c.name === 'ship')).toEqual({ name: 'ship', template: 'Ship $ARGUMENTS', description: 'Ship it', model: { id: 'tiny-1', providerID: 'local' }, subtask: true });
    expect(commands.body.data.map((c: any) => c.name)).toEqual(['init', 'review', 'ship']);
    const references = await v2('/api/reference');
    expectReferenceResponse(references.body, 'v2.reference.list');
    expect(references.body).toEqual({ location: location(), data: [] });
  });

  it('/api/fs/find ranks files and directories for @ completion, as the 1.18 TUI asks', async () => {
    const { status, body } = await v2('/api/fs/find?query=READ&limit=20');
    expect(status).toBe(200);
    expectReferenceResponse(body, 'v2.fs.find');
    expect(body.data[0]).toEqual({ path: 'README.md', type: 'file' });
    expect(body.data).toContainEqual({ path: 'src/reader.ts', type: 'file' });
    const dirs = await v2('/api/fs/find?query=src&type=directory');
    expect(dirs.body.data).toEqual([{ path: 'src/', type: 'directory' }]);
    const empty = await v2('/api/fs/find?query=&limit=2');
    expect(empty.body.data).toHaveLength(2);
    const bad = await v2('/api/fs/find?query=x&limit=none');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: [expect.objectContaining({ path: ['limit'] })] });
    const missing = await v2('/api/fs/find?limit=3');
    expect(missing.status).toBe(400);
    expect(missing.body.error[0].path).toEqual(['query']);
  });

  it('/move: refreshing the project copies answers 204, and the directories list the git worktrees', async () => {
    const refresh = await fetch(`${keel.url}/experimental/project/${projectID}/copy/refresh?location%5Bdirectory%5D=${encodeURIComponent(home.repo)}`, {
      method: 'POST',
      headers: { 'x-opencode-directory': encodeURIComponent(home.repo) },
    });
    expect(refresh.status).toBe(204);
    expect(await refresh.text()).toBe('');
    const directories = await v2(`/project/${projectID}/directories`);
    expect(directories).toEqual({ status: 200, body: [{ directory: home.repo }, { directory: realpathSync(worktreeCopy), strategy: 'git_worktree' }] });
    expectReferenceResponse(directories.body, 'project.directories');
    const unknown = await fetch(`${keel.url}/experimental/project/nope/copy/refresh`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ name: 'NotFoundError', data: { message: 'Project not found: nope' } });
  });

  describe('session and routing /api/* routes side by side', () => {
    type DocOperation = { operationId?: string };
    let paths: Record<string, Record<string, DocOperation>>;

    beforeAll(async () => {
      paths = ((await (await fetch(`${keel.url}/doc`)).json()) as { paths: typeof paths }).paths;
    });

    const apiOperations = () =>
      Object.entries(paths)
        .filter(([path]) => path.startsWith('/api/'))
        .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, session: referenceOperations().has(op.operationId ?? '') })));

    it('/doc lists both; every session route lies outside the routing prefixes and every routing route inside them', () => {
      const operations = apiOperations();
      const session = operations.filter((o) => o.session).map((o) => o.path);
      const routing = operations.filter((o) => !o.session).map((o) => o.path);
      expect(session).toEqual(expect.arrayContaining(['/api/location', '/api/agent', '/api/integration', '/api/model', '/api/provider', '/api/reference', '/api/command', '/api/skill', '/api/fs/find']));
      expect(routing).toEqual(expect.arrayContaining(['/api/middlewares', '/api/services', '/api/resources']));
      expect(session.filter((p) => surfaceOfPath(p) !== 'session')).toEqual([]);
      expect(routing.filter((p) => surfaceOfPath(p) !== 'routing')).toEqual([]);
      expect(session.filter((p) => ROUTING_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`)))).toEqual([]);
    });

    it('a session /api route answers in the session dialect, a routing one in its own; neither answers the other’s paths', async () => {
      // Session routes: their errors are the session surface's.
      const noDir = await fetch(`${keel.url}/api/agent?directory=relative/path`);
      expect(noDir.status).toBe(400);
      expect(await noDir.json()).toMatchObject({ success: false, error: [expect.objectContaining({ path: ['directory'] })] });
      // Routing routes take no directory and answer their own JSON.
      const middlewares = await fetch(`${keel.url}/api/middlewares?directory=relative/path`);
      expect(middlewares.status).toBe(200);
      expect(Array.isArray(await middlewares.json())).toBe(true);
      // A session path under a routing prefix is the routing manager's 404; a routing-like path outside them the session's.
      const underRouting = await fetch(`${keel.url}/api/middlewares/agent/location`);
      expect(underRouting.status).toBe(404);
      expect(await underRouting.json()).toMatchObject({ code: 404, message: expect.any(String) });
      for (const path of ['/api/middlewaresx', '/api/session', '/api/servicesagent']) {
        const res = await fetch(`${keel.url}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(await res.json()).toEqual({ name: 'NotFoundError', data: { message: `Route not found: GET ${path}` } });
      }
    });
  });
});
