import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { SseClient } from './support/sse';
import { expectReferenceSchema } from './support/reference-schema';
import { startKeel, tempDir, TestKeel } from './support/keel';

describe('foundation: health, projects, directories, errors, event streams', () => {
  let keel: TestKeel;
  let plainDir: string;
  let repoDir: string;

  beforeAll(async () => {
    keel = await startKeel();
    plainDir = tempDir('keel-plain-');
    repoDir = tempDir('keel-repo-');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repoDir, stdio: 'ignore' });
    git('init', '-q', '-b', 'trunk');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'root');
  });

  afterAll(async () => {
    await keel.close();
    rmSync(plainDir, { recursive: true, force: true });
    rmSync(repoDir, { recursive: true, force: true });
  });

  it('answers /global/health with the server version', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url });
    const { data, response } = await client.global.health();
    expect(response.status).toBe(200);
    expect(data).toEqual({ healthy: true, version: expect.any(String) });
  });

  it('resolves the project of a git repository from its root commit, and global outside git', async () => {
    const repo = createOpencodeClient({ baseUrl: keel.url, directory: repoDir });
    const rootCommit = execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: repoDir }).toString().trim();
    const { data: project } = await repo.project.current();
    expectReferenceSchema(project, 'Project');
    expect(project).toMatchObject({ id: rootCommit, worktree: repoDir, vcs: 'git' });
    const { data: vcs } = await repo.vcs.get();
    // No main, master or remote: no branch to compare with (opencode 1.18.33 answers null).
    expect(vcs).toEqual({ branch: 'trunk', default_branch: null });

    const plain = createOpencodeClient({ baseUrl: keel.url, directory: plainDir });
    const { data: global } = await plain.project.current();
    expect(global).toMatchObject({ id: 'global', worktree: '/' });
    const { data: path } = await plain.path.get();
    expectReferenceSchema(path, 'Path');
    expect(path).toMatchObject({ directory: plainDir, worktree: '/' });

    const { data: list } = await plain.project.list();
    expect(list?.map((p) => p.id).sort()).toEqual([rootCommit, 'global'].sort());
  });

  it('updates a project and publishes project.updated on the global stream', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: repoDir });
    const { data: current } = await client.project.current();
    const events = await SseClient.open(`${keel.url}/global/event`);
    const { data: updated } = await client.project.update({ projectID: current!.id, name: 'demo', icon: { color: 'blue' } });
    expect(updated).toMatchObject({ id: current!.id, name: 'demo', icon: { color: 'blue' } });
    const frame = await events.next((f) => f.payload?.type === 'project.updated' && f.payload.properties.name === 'demo');
    expect(frame).toEqual({ payload: { type: 'project.updated', properties: updated } });
    events.close();
  });

  it('rejects bad directories, bad bodies and unknown ids with the reference error bodies', async () => {
    const relative = await fetch(`${keel.url}/project/current?directory=relative/path`);
    expect(relative.status).toBe(400);
    expect(await relative.json()).toMatchObject({ success: false, error: [{ path: ['directory'] }] });

    const missing = await fetch(`${keel.url}/project/current?directory=${encodeURIComponent(plainDir + '/nope')}`);
    expect(missing.status).toBe(400);

    const outside = await fetch(`${keel.url}/project/current?directory=/etc`);
    expect(outside.status).toBe(400);

    // Given twice, the directory is refused (it used to fall back to the server's working directory).
    const dir = encodeURIComponent(plainDir);
    const twice = await fetch(`${keel.url}/path?directory=${dir}&directory=${dir}`);
    expect({ status: twice.status, body: await twice.json() }).toMatchObject({
      status: 400,
      body: { success: false, error: [{ path: ['directory'], message: 'directory must be given once, as a string' }] },
    });
    const bracketed = await fetch(`${keel.url}/path?directory[x]=${dir}`);
    expect({ status: bracketed.status, body: await bracketed.json() }).toMatchObject({
      status: 400,
      body: { success: false, error: [{ path: ['directory'], message: 'directory must be given once, as a string' }] },
    });

    const header = await fetch(`${keel.url}/path`, { headers: { 'x-opencode-directory': encodeURIComponent(plainDir) } });
    expect((await header.json()).directory).toBe(plainDir);

    const badBody = await fetch(`${keel.url}/project/global`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 42 }),
    });
    expect(badBody.status).toBe(400);
    const badBodyJson = await badBody.json();
    expectReferenceSchema({ ...badBodyJson, errors: badBodyJson.error }, 'BadRequestError');
    expect(badBodyJson.error[0].path).toEqual(['name']);

    const malformed = await fetch(`${keel.url}/project/global`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ success: false });

    const unknown = await fetch(`${keel.url}/project/nope`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(unknown.status).toBe(404);
    const notFound = await unknown.json();
    expectReferenceSchema(notFound, 'NotFoundError');

    const route = await fetch(`${keel.url}/no/such/route`);
    expect(route.status).toBe(404);
    expect(route.headers.get('content-type')).toMatch(/json/);
  });

  it('streams /event per directory, data-only, and closes it when the instance is disposed', async () => {
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(plainDir)}`);
    expect(events.raw.startsWith('data: {"type":"server.connected","properties":{}}\n\n')).toBe(true);
    const global = await SseClient.open(`${keel.url}/global/event`);
    const client = createOpencodeClient({ baseUrl: keel.url, directory: plainDir });
    const { data } = await client.instance.dispose();
    expect(data).toBe(true);
    await events.next((f) => f.type === 'server.instance.disposed');
    await events.done;
    expect(events.closed).toBe(true);
    expect(events.ofType('server.instance.disposed')[0]).toEqual({ type: 'server.instance.disposed', properties: { directory: plainDir } });
    await global.next((f) => f.payload?.type === 'server.instance.disposed' && f.directory === plainDir);

    await createOpencodeClient({ baseUrl: keel.url }).global.dispose();
    await global.next((f) => f.payload?.type === 'global.disposed' && f.directory === 'global');
    expect(global.closed).toBe(false);
    global.close();
  });

  it('serves the OpenAPI document at /doc and Swagger UI at /docs', async () => {
    const doc = await (await fetch(`${keel.url}/doc`)).json();
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.paths['/global/health'].get.operationId).toBe('global.health');
    const ui = await fetch(`${keel.url}/docs`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});
