import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { MessageService } from '../src/messages/message.service';
import { PermissionService } from '../src/permissions/permission.service';
import { SessionStatusService } from '../src/sessions/session-status.service';
import { SessionService } from '../src/sessions/session.service';
import { TodoService } from '../src/sessions/todo.service';
import { expectSessionAnswer } from './support/error-bodies';
import { expectReferenceSchema } from './support/reference-schema';
import { SseClient } from './support/sse';
import { startKeel, tempDir, TestKeel } from './support/keel';

type Client = ReturnType<typeof createOpencodeClient>;

describe('sessions: CRUD, ordering, status, todos, diff, share, cascading delete', () => {
  let keel: TestKeel;
  let dir: string;
  let client: Client;
  const previousShare = process.env.KEEL_SHARE_BASE_URL;

  beforeAll(async () => {
    process.env.KEEL_SHARE_BASE_URL = 'https://share.example.test/';
    keel = await startKeel();
    dir = tempDir('keel-sessions-');
    client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
  });

  afterAll(async () => {
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
    if (previousShare === undefined) delete process.env.KEEL_SHARE_BASE_URL;
    else process.env.KEEL_SHARE_BASE_URL = previousShare;
  });

  const rows = async (table: string, column: string, ids: string[]): Promise<number> => {
    const list = ids.map((id) => `'${id}'`).join(', ');
    const [row] = await keel.keel.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM "${table}" WHERE "${column}" IN (${list})`);
    return Number(row.n);
  };

  it('gives a session the fields opencode 1.18 reads: slug, path, cost, tokens, and the agent and model it was created with', async () => {
    const create = (body: unknown) => fetch(`${keel.url}/session?directory=${encodeURIComponent(dir)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const response = await create({ agent: 'build', model: { providerID: 'scripted', id: 'scripted-model' } });
    expect(response.status).toBe(200);
    const session = await response.json();
    expectReferenceSchema(session, 'Session');
    expect(session).toMatchObject({
      slug: expect.stringMatching(/^[a-z]+-[a-z]+$/),
      path: '',
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      agent: 'build',
      model: { providerID: 'scripted', id: 'scripted-model' },
    });
    const { data: read } = await client.session.get({ sessionID: session.id });
    expect(read).toEqual(session);
    // In a git repository a session of a subdirectory names it relative to the worktree; a plain create has no agent or model.
    const repo = tempDir('keel-sessions-git-');
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['-C', repo, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init']);
    mkdirSync(join(repo, 'pkg', 'web'), { recursive: true });
    const { data: nested } = await createOpencodeClient({ baseUrl: keel.url, directory: join(repo, 'pkg', 'web') }).session.create();
    expect(nested).toMatchObject({ path: 'pkg/web', slug: expect.stringMatching(/^[a-z]+-[a-z]+$/) });
    expect(nested).not.toHaveProperty('agent');
    rmSync(repo, { recursive: true, force: true });
    for (const [body, field] of [[{ agent: 7 }, 'agent'], [{ model: 'scripted/x' }, 'model'], [{ model: { providerID: 'scripted' } }, 'model.id'], [{ model: { id: 'x', providerID: '' } }, 'model.providerID']] as const) {
      const refused = await create(body);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(await refused.json())).toContain(field.split('.').pop()!);
    }
  });

  it('creates sessions with default titles, publishing session.created then session.updated on both streams', async () => {
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const global = await SseClient.open(`${keel.url}/global/event`);
    const { data: session, response } = await client.session.create();
    expect(response.status).toBe(200);
    expectReferenceSchema(session, 'Session');
    expect(session!.id).toMatch(/^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(session!.title).toMatch(/^New session - \d{4}-\d\d-\d\dT/);
    expect(session).toMatchObject({ projectID: 'global', directory: dir, version: expect.any(String) });
    expect(session).not.toHaveProperty('parentID');
    expect(session).not.toHaveProperty('share');

    await events.next((f) => f.type === 'session.updated' && f.properties.info.id === session!.id);
    const mine = events.frames.filter((f: any) => f.properties?.info?.id === session!.id);
    expect(mine.map((f: any) => f.type)).toEqual(['session.created', 'session.updated']);
    for (const frame of mine) expectReferenceSchema(frame, `Event.${(frame as any).type}`);
    expect(mine[0]).toEqual({ type: 'session.created', properties: { sessionID: session!.id, info: session } });
    await global.next((f) => f.directory === dir && f.payload.type === 'session.updated' && f.payload.properties.info.id === session!.id);
    const globalMine = global.frames.filter((f: any) => f.payload?.properties?.info?.id === session!.id);
    expect(globalMine).toEqual([
      // `project` names the directory's project, as opencode 1.18 sends it.
      { directory: dir, project: session!.projectID, payload: { type: 'session.created', properties: { sessionID: session!.id, info: session } } },
      { directory: dir, project: session!.projectID, payload: { type: 'session.updated', properties: { sessionID: session!.id, info: session } } },
    ]);
    events.close();
    global.close();

    const { data: child } = await client.session.create({ parentID: session!.id, title: undefined });
    expect(child!.parentID).toBe(session!.id);
    expect(child!.title).toMatch(/^Child session - /);
    const { data: titled } = await client.session.create({ title: 'hello' });
    expect(titled!.title).toBe('hello');
    // Descending ids: the newer session sorts first.
    expect(titled!.id < child!.id && child!.id < session!.id).toBe(true);
  });

  it('rejects an unknown or malformed parentID and bad bodies with 400 naming the field', async () => {
    const unknown = await expectSessionAnswer(client.session.create({ parentID: 'ses_missing' }), 400, 'BadRequestError');
    expect(unknown.error[0].path).toEqual(['parentID']);
    const malformed = await expectSessionAnswer(client.session.create({ parentID: 'nope' }), 400, 'BadRequestError');
    expect(malformed.error[0].path).toEqual(['parentID']);
    const res = await fetch(`${keel.url}/session?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 42 }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error[0].path).toEqual(['title']);
  });

  it('gets a session, 404s an unknown id and 400s a malformed one', async () => {
    const { data: created } = await client.session.create({ title: 'get me' });
    const { data } = await client.session.get({ sessionID: created!.id });
    expect(data).toEqual(created);
    const notFound = await expectSessionAnswer(client.session.get({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
    expect(notFound).toEqual({ name: 'NotFoundError', data: { message: 'Session not found: ses_missing' } });
    const bad = await expectSessionAnswer(client.session.get({ sessionID: 'abc' }), 400, 'BadRequestError');
    expect(bad.error[0].path).toEqual(['sessionID']);
    const badDir = await fetch(`${keel.url}/session?directory=relative`);
    expect(badDir.status).toBe(400);
  });

  it('lists the project sessions most recently updated first, shared by two directories of one repository', async () => {
    const repo = tempDir('keel-sessions-repo-');
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
      git('init', '-q');
      git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'root');
      const sub = join(repo, 'packages', 'app');
      mkdirSync(sub, { recursive: true });
      const root = createOpencodeClient({ baseUrl: keel.url, directory: repo });
      const nested = createOpencodeClient({ baseUrl: keel.url, directory: sub });
      const { data: a } = await root.session.create({ title: 'a' });
      const { data: b } = await nested.session.create({ title: 'b' });
      expect(b!.directory).toBe(sub);
      expect(b!.projectID).toBe(a!.projectID);
      await new Promise((r) => setTimeout(r, 5));
      await root.session.update({ sessionID: a!.id, title: 'a2' });
      const { data: list } = await nested.session.list();
      for (const s of list!) expectReferenceSchema(s, 'Session');
      expect(list!.map((s) => s.title)).toEqual(['a2', 'b']);
      const { data: other } = await client.session.list();
      expect(other!.some((s) => s.id === a!.id)).toBe(false);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('updates title and time.archived, publishing session.updated; rejects bad bodies and ids', async () => {
    const { data: s } = await client.session.create({ title: 'before' });
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const { data: updated } = await client.session.update({ sessionID: s!.id, title: 'after', time: { archived: 1234 } });
    expectReferenceSchema(updated, 'Session');
    expect(updated).toMatchObject({ id: s!.id, title: 'after', time: { created: s!.time.created, archived: 1234 } });
    expect(updated!.time.updated).toBeGreaterThanOrEqual(s!.time.updated);
    const frame = await events.next((f) => f.type === 'session.updated' && f.properties.info.title === 'after');
    expect(frame).toEqual({ type: 'session.updated', properties: { sessionID: updated!.id, info: updated } });
    events.close();
    expect((await client.session.get({ sessionID: s!.id })).data).toEqual(updated);

    const badBody = await fetch(`${keel.url}/session/${s!.id}?directory=${encodeURIComponent(dir)}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 7 }),
    });
    expect(badBody.status).toBe(400);
    expect((await badBody.json()).error[0].path).toEqual(['title']);

    // time.archived: whole milliseconds on both engines (PostgreSQL's bigint refused 1.5 with a 500).
    const archive = (archived: string) =>
      fetch(`${keel.url}/session/${s!.id}?directory=${encodeURIComponent(dir)}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: `{"time":{"archived":${archived}}}`,
      });
    const fractional = await archive('1234.75');
    expect({ status: fractional.status, archived: (await fractional.json()).time.archived }).toEqual({ status: 200, archived: 1235 });
    for (const archived of ['1e20', '-1e300']) {
      const huge = await archive(archived);
      expect({ status: huge.status, body: await huge.json() }).toMatchObject({
        status: 400,
        body: { success: false, error: [{ path: ['time', 'archived'], message: expect.stringMatching(/epoch milliseconds/) }] },
      });
    }
    await expectSessionAnswer(client.session.update({ sessionID: 'ses_missing', title: 'x' }), 404, 'NotFoundError');
    const badId = await expectSessionAnswer(client.session.update({ sessionID: 'abc', title: 'x' }), 400, 'BadRequestError');
    expect(badId.error[0].path).toEqual(['sessionID']);
  });

  it('lists children', async () => {
    const { data: parent } = await client.session.create();
    const { data: c1 } = await client.session.create({ parentID: parent!.id });
    const { data: c2 } = await client.session.create({ parentID: parent!.id });
    const { data: children } = await client.session.children({ sessionID: parent!.id });
    expect(children!.map((c) => c.id).sort()).toEqual([c1!.id, c2!.id].sort());
    for (const c of children!) expectReferenceSchema(c, 'Session');
    expect((await client.session.children({ sessionID: c1!.id })).data).toEqual([]);
    await expectSessionAnswer(client.session.children({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
    await expectSessionAnswer(client.session.children({ sessionID: 'x' }), 400, 'BadRequestError');
  });

  it('reports only non-idle statuses and publishes session.status / session.idle', async () => {
    const statuses = keel.keel.app.get(SessionStatusService);
    const { data: s } = await client.session.create();
    expect((await client.session.status()).data).toEqual({});
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    await statuses.set(s!.id, { type: 'busy' });
    const { data: busy } = await client.session.status();
    expect(busy).toEqual({ [s!.id]: { type: 'busy' } });
    expectReferenceSchema(busy![s!.id], 'SessionStatus');
    await statuses.set(s!.id, { type: 'retry', attempt: 1, message: 'Rate Limited', next: 99 });
    expect((await client.session.status()).data).toEqual({ [s!.id]: { type: 'retry', attempt: 1, message: 'Rate Limited', next: 99 } });
    await statuses.set(s!.id, { type: 'idle' });
    expect((await client.session.status()).data).toEqual({});
    await events.next((f) => f.type === 'session.idle');
    const mine = events.frames.filter((f: any) => f.properties?.sessionID === s!.id);
    expect(mine).toEqual([
      { type: 'session.status', properties: { sessionID: s!.id, status: { type: 'busy' } } },
      { type: 'session.status', properties: { sessionID: s!.id, status: { type: 'retry', attempt: 1, message: 'Rate Limited', next: 99 } } },
      { type: 'session.status', properties: { sessionID: s!.id, status: { type: 'idle' } } },
      { type: 'session.idle', properties: { sessionID: s!.id } },
    ]);
    for (const frame of mine) expectReferenceSchema(frame, `Event.${(frame as any).type}`);
    events.close();
  });

  it('stores todos and publishes todo.updated', async () => {
    const { data: s } = await client.session.create();
    expect((await client.session.todo({ sessionID: s!.id })).data).toEqual([]);
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const todos = [{ id: '1', content: 'write tests', status: 'in_progress', priority: 'high' }];
    await keel.keel.app.get(TodoService).set(s!.id, todos);
    const { data } = await client.session.todo({ sessionID: s!.id });
    expect(data).toEqual(todos);
    for (const t of data!) expectReferenceSchema(t, 'Todo');
    const frame = await events.next((f) => f.type === 'todo.updated');
    expect(frame).toEqual({ type: 'todo.updated', properties: { sessionID: s!.id, todos } });
    expectReferenceSchema(frame, 'Event.todo.updated');
    events.close();
    await expectSessionAnswer(client.session.todo({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
    await expectSessionAnswer(client.session.todo({ sessionID: 'zzz' }), 400, 'BadRequestError');
  });

  it('returns the stored diff, empty when none', async () => {
    const { data: s } = await client.session.create();
    expect((await client.session.diff({ sessionID: s!.id })).data).toEqual([]);
    const diff = [{ file: 'a.txt', before: 'a\n', after: 'b\n', additions: 1, deletions: 1 }];
    await keel.keel.app.get(SessionService).setDiff(s!.id, diff);
    const { data } = await client.session.diff({ sessionID: s!.id });
    expect(data).toEqual(diff);
    expectReferenceSchema(data![0], 'FileDiff');
    await expectSessionAnswer(client.session.diff({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
  });

  it('shares and unshares a session with a url on the external share host of KEEL_SHARE_BASE_URL', async () => {
    const { data: s } = await client.session.create();
    const { data: shared } = await client.session.share({ sessionID: s!.id });
    expectReferenceSchema(shared, 'Session');
    expect(shared!.share!.url).toMatch(/^https:\/\/share\.example\.test\/share\/[A-Za-z0-9_-]{24}$/);
    expect((await client.session.share({ sessionID: s!.id })).data!.share).toEqual(shared!.share);
    const { data: unshared } = await client.session.unshare({ sessionID: s!.id });
    expect(unshared).not.toHaveProperty('share');
    expect(await rows('session_share', 'session_id', [s!.id])).toBe(0);
    await expectSessionAnswer(client.session.share({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
  });

  it('deletes recursively in one go: children, messages, parts, todos, permissions; session.deleted per session', async () => {
    const app = keel.keel.app;
    const messages = app.get(MessageService);
    const { data: parent } = await client.session.create({ title: 'parent' });
    const { data: child } = await client.session.create({ parentID: parent!.id, title: 'child' });
    const { data: grandchild } = await client.session.create({ parentID: child!.id, title: 'grandchild' });
    const { data: other } = await client.session.create({ title: 'unrelated' });
    const ids = [parent!.id, child!.id, grandchild!.id];
    for (const sessionID of [...ids, other!.id]) {
      const messageID = messages.newMessageID();
      await messages.updateMessage({
        id: messageID,
        sessionID,
        role: 'user',
        time: { created: Date.now() },
        agent: 'build',
        model: { providerID: 'p', modelID: 'm' },
      });
      await messages.updatePart({ id: messages.newPartID(), sessionID, messageID, type: 'text', text: 'hi' });
      await app.get(TodoService).set(sessionID, [{ id: '1', content: 'x', status: 'pending', priority: 'low' }]);
    }
    const asked = app.get(PermissionService).ask({ sessionID: child!.id, messageID: 'msg_x', type: 'bash', title: 'run' });
    await app.get(SessionStatusService).set(child!.id, { type: 'busy' });
    await app.get(SessionService).setDiff(parent!.id, []);

    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const { data: deleted } = await client.session.delete({ sessionID: parent!.id });
    expect(deleted).toBe(true);
    await expect(asked).resolves.toBe('reject');
    await events.next((f) => f.type === 'session.deleted' && f.properties.info.id === parent!.id);
    const order = events.ofType('session.deleted').map((f: any) => f.properties.info.title);
    expect(order).toEqual(['grandchild', 'child', 'parent']);
    for (const frame of events.ofType('session.deleted')) expectReferenceSchema(frame, 'Event.session.deleted');
    events.close();

    for (const [table, column] of [
      ['session', 'id'],
      ['message', 'session_id'],
      ['part', 'session_id'],
      ['session_todo', 'session_id'],
      ['permission', 'session_id'],
      ['session_diff', 'session_id'],
    ]) {
      expect(await rows(table, column, ids)).toBe(0);
    }
    expect(await rows('message', 'session_id', [other!.id])).toBe(1);
    expect(await rows('part', 'session_id', [other!.id])).toBe(1);
    expect((await client.session.status()).data).toEqual({});
    await expectSessionAnswer(client.session.get({ sessionID: child!.id }), 404, 'NotFoundError');
    await expectSessionAnswer(client.session.delete({ sessionID: parent!.id }), 404, 'NotFoundError');
    await expectSessionAnswer(client.session.delete({ sessionID: 'nope' }), 400, 'BadRequestError');
  });
});
