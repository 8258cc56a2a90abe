import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { rmSync } from 'node:fs';
import { NotFoundError } from '../src/common/errors';
import { PermissionService, PermissionRequest } from '../src/permissions/permission.service';
import { expectReferenceSchema } from './support/reference-schema';
import { SseClient } from './support/sse';
import { startKeel, tempDir, TestKeel } from './support/keel';

type Client = ReturnType<typeof createOpencodeClient>;

/** Settle state of a promise without waiting for it. */
async function state<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 20))]);
}

describe('permissions: ask, list, reply once/always/reject, cascade, dispose, restart, timeout', () => {
  let keel: TestKeel;
  let dir: string;
  let client: Client;
  let permissions: PermissionService;

  beforeAll(async () => {
    keel = await startKeel();
    dir = tempDir('keel-permissions-');
    client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
    permissions = keel.keel.app.get(PermissionService);
  });

  afterAll(async () => {
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newSession = async (c: Client = client) => (await c.session.create()).data!.id;
  const request = (sessionID: string, extra: Partial<PermissionRequest> = {}): PermissionRequest => ({
    sessionID,
    messageID: 'msg_0000000000001',
    callID: 'call_1',
    type: 'bash',
    pattern: 'git status',
    title: 'Run git status',
    metadata: { command: 'git status' },
    ...extra,
  });
  /** ask() stores the request asynchronously: wait until the list shows it. */
  async function pendingWhere(predicate: (p: { id: string; sessionID: string; title: string }) => boolean, c: Client = client) {
    for (let i = 0; i < 300; i++) {
      const hit = (await c.permission.list()).data!.find(predicate);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('no such pending permission');
  }
  const pendingIDs = async (c: Client = client) => (await c.permission.list()).data!.map((p) => p.id);

  it('publishes a pending request, lists it, and resolves "once" on reply', async () => {
    const sessionID = await newSession();
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const answer = permissions.ask(request(sessionID));
    const asked = await events.next<any>((f) => f.type === 'permission.updated');
    expectReferenceSchema(asked, 'Event.permission.updated');
    const permission = asked.properties;
    expect(permission).toMatchObject({
      id: expect.stringMatching(/^per_/),
      type: 'bash',
      pattern: 'git status',
      sessionID,
      messageID: 'msg_0000000000001',
      callID: 'call_1',
      title: 'Run git status',
      metadata: { command: 'git status' },
      time: { created: expect.any(Number) },
    });
    const { data: list } = await client.permission.list();
    // Each entry is the Permission plus the same request as opencode 1.1 names it (permission.asked).
    expect(list).toContainEqual({ ...permission, permission: 'bash', patterns: ['git status'], always: ['git status'], tool: { messageID: 'msg_0000000000001', callID: 'call_1' } });
    for (const p of list!) expectReferenceSchema(p, 'Permission');
    expect(await state(answer)).toBe('pending');

    const { data, response } = await client.permission.respond({ sessionID, permissionID: permission.id, response: 'once' });
    expect(response.status).toBe(200);
    expect(data).toBe(true);
    await expect(answer).resolves.toBe('once');
    const replied = await events.next((f) => f.type === 'permission.replied');
    expect(replied).toEqual({
      type: 'permission.replied',
      properties: { sessionID, permissionID: permission.id, response: 'once', requestID: permission.id, reply: 'once' },
    });
    expectReferenceSchema(replied, 'Event.permission.replied');
    expect(await pendingIDs()).not.toContain(permission.id);
    // "once" is not remembered: the same request asks again.
    const again = permissions.ask(request(sessionID));
    expect(await state(again)).toBe('pending');
    const pending = await pendingWhere((p) => p.sessionID === sessionID);
    await client.permission.respond({ sessionID, permissionID: pending.id, response: 'reject' });
    await expect(again).resolves.toBe('reject');
    events.close();
  });

  it('"always" answers the matching pending requests of the session and is remembered', async () => {
    const sessionID = await newSession();
    const otherSession = await newSession();
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const first = permissions.ask(request(sessionID, { pattern: ['ls *'], title: 'ls' }));
    const covered = permissions.ask(request(sessionID, { pattern: 'ls -la', title: 'ls -la' }));
    const otherType = permissions.ask(request(sessionID, { type: 'edit', pattern: 'ls -la', title: 'edit' }));
    const otherPattern = permissions.ask(request(sessionID, { pattern: 'rm -rf x', title: 'rm' }));
    const otherSessionAsk = permissions.ask(request(otherSession, { pattern: 'ls -la', title: 'other session' }));
    for (const title of ['ls', 'ls -la', 'edit', 'rm', 'other session']) {
      await events.next((f) => f.type === 'permission.updated' && f.properties.title === title);
    }
    const byTitle = Object.fromEntries(events.ofType('permission.updated').map((f) => [f.properties.title, f.properties.id]));

    await client.permission.respond({ sessionID, permissionID: byTitle.ls, response: 'always' });
    await expect(first).resolves.toBe('always');
    await expect(covered).resolves.toBe('always');
    await events.next((f) => f.type === 'permission.replied' && f.properties.permissionID === byTitle['ls -la']);
    expect(events.ofType('permission.replied').map((f) => f.properties)).toEqual([
      { sessionID, permissionID: byTitle.ls, response: 'always', requestID: byTitle.ls, reply: 'always' },
      { sessionID, permissionID: byTitle['ls -la'], response: 'always', requestID: byTitle['ls -la'], reply: 'always' },
    ]);
    expect(await state(otherType)).toBe('pending');
    expect(await state(otherPattern)).toBe('pending');
    expect(await state(otherSessionAsk)).toBe('pending');
    expect(await pendingIDs()).toEqual(expect.arrayContaining([byTitle.edit, byTitle.rm, byTitle['other session']]));

    // Remembered: a later matching request of the session passes at once, without an event.
    await expect(permissions.ask(request(sessionID, { pattern: 'ls /tmp' }))).resolves.toBe('always');
    await expect(permissions.ask(request(sessionID, { pattern: ['ls', 'ls a'] }))).resolves.toBe('always');
    expect(events.ofType('permission.updated')).toHaveLength(5);

    for (const title of ['edit', 'rm']) await client.permission.respond({ sessionID, permissionID: byTitle[title], response: 'reject' });
    await client.permission.respond({ sessionID: otherSession, permissionID: byTitle['other session'], response: 'reject' });
    await expect(otherType).resolves.toBe('reject');
    await expect(otherPattern).resolves.toBe('reject');
    await expect(otherSessionAsk).resolves.toBe('reject');
    events.close();
  });

  it('404s unknown or already answered ids and 400s bad bodies', async () => {
    const sessionID = await newSession();
    const unknown = await client.permission.respond({ sessionID, permissionID: 'per_missing', response: 'once' });
    expect(unknown.response.status).toBe(404);
    expectReferenceSchema(unknown.error, 'NotFoundError');
    expect(unknown.error).toEqual({ name: 'NotFoundError', data: { message: 'Permission not found: per_missing' } });

    const badSession = await client.permission.respond({ sessionID: 'nope', permissionID: 'per_missing', response: 'once' });
    expect(badSession.response.status).toBe(400);
    expect((badSession.error as any).error[0].path).toEqual(['sessionID']);
    const badPermission = await client.permission.respond({ sessionID, permissionID: 'nope', response: 'once' });
    expect(badPermission.response.status).toBe(400);
    expect((badPermission.error as any).error[0].path).toEqual(['permissionID']);

    const answer = permissions.ask(request(sessionID));
    const pending = await pendingWhere((p) => p.sessionID === sessionID);
    const wrongSession = await client.permission.respond({ sessionID: await newSession(), permissionID: pending.id, response: 'once' });
    expect(wrongSession.response.status).toBe(404);
    const bad = await fetch(`${keel.url}/session/${sessionID}/permissions/${pending.id}?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: 'maybe' }),
    });
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.error[0].path).toEqual(['response']);
    expectReferenceSchema({ ...body, errors: body.error }, 'BadRequestError');
    await client.permission.respond({ sessionID, permissionID: pending.id, response: 'reject' });
    await expect(answer).resolves.toBe('reject');
    const twice = await client.permission.respond({ sessionID, permissionID: pending.id, response: 'once' });
    expect(twice.response.status).toBe(404);
    await expect(permissions.ask(request('ses_missing'))).rejects.toThrow('Session not found: ses_missing');
  });

  it('rejects the pending requests of a disposed instance, and only those', async () => {
    const otherDir = tempDir('keel-permissions-other-');
    try {
      const other = createOpencodeClient({ baseUrl: keel.url, directory: otherDir });
      const mineSession = await newSession();
      const mine = permissions.ask(request(mineSession));
      const theirs = permissions.ask(request(await newSession(other), { title: 'theirs' }));
      await pendingWhere((p) => p.title === 'theirs');
      const pending = await pendingWhere((p) => p.sessionID === mineSession);
      const global = await SseClient.open(`${keel.url}/global/event`);
      await other.instance.dispose();
      await expect(theirs).resolves.toBe('reject');
      const frame = await global.next((f) => f.payload.type === 'permission.replied');
      expect(frame).toMatchObject({ directory: otherDir, payload: { properties: { response: 'reject' } } });
      expect(await state(mine)).toBe('pending');
      await client.permission.respond({ sessionID: pending.sessionID, permissionID: pending.id, response: 'once' });
      await expect(mine).resolves.toBe('once');
      global.close();
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('rejects a request asked while its session is being deleted, whichever finishes first', async () => {
    // ask() reads and stores in several steps; the deletion may read the pending requests before or after them.
    const sessions = await Promise.all(Array.from({ length: 24 }, () => newSession()));
    const asks: Promise<unknown>[] = [];
    const deletions: Promise<unknown>[] = [];
    for (const [i, sessionID] of sessions.entries()) {
      deletions.push(client.session.delete({ sessionID }));
      await new Promise((r) => setTimeout(r, i % 6)); // the ask starts 0–5 ms after the deletion
      asks.push(permissions.ask(request(sessionID, { title: 'raced' })));
    }
    await Promise.all(deletions);
    const outcome = (ask: Promise<unknown>) =>
      Promise.race([ask.catch((error) => (error instanceof NotFoundError ? 'not found' : String(error))), new Promise((r) => setTimeout(() => r('pending'), 5_000))]);
    // Each is 'reject', or not found when the session was gone before ask() looked it up; none waits forever.
    for (const settled of await Promise.all(asks.map(outcome))) expect(['reject', 'not found']).toContain(settled);
    // And none stays listed as pending.
    let listed = ['?'];
    for (let i = 0; i < 100 && listed.length; i++) {
      listed = (await client.permission.list()).data!.filter((p) => p.title === 'raced').map((p) => p.id);
      if (listed.length) await new Promise((r) => setTimeout(r, 20));
    }
    expect(listed).toEqual([]);
  });

  it('answers on its own after KEEL_PERMISSION_TIMEOUT_MS with KEEL_PERMISSION_DEFAULT', async () => {
    const saved = { timeout: process.env.KEEL_PERMISSION_TIMEOUT_MS, answer: process.env.KEEL_PERMISSION_DEFAULT };
    process.env.KEEL_PERMISSION_TIMEOUT_MS = '50';
    process.env.KEEL_PERMISSION_DEFAULT = 'once';
    const timed = await startKeel();
    try {
      const c = createOpencodeClient({ baseUrl: timed.url, directory: dir });
      const sessionID = (await c.session.create()).data!.id;
      const events = await SseClient.open(`${timed.url}/event?directory=${encodeURIComponent(dir)}`);
      await expect(timed.keel.app.get(PermissionService).ask(request(sessionID))).resolves.toBe('once');
      const frame = await events.next<any>((f) => f.type === 'permission.replied');
      expect(frame.properties).toMatchObject({ sessionID, response: 'once' });
      expect((await c.permission.list()).data).toEqual([]);
      events.close();
    } finally {
      for (const [key, value] of [
        ['KEEL_PERMISSION_TIMEOUT_MS', saved.timeout],
        ['KEEL_PERMISSION_DEFAULT', saved.answer],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await timed.close();
    }
  });

  it('keeps pending requests and "always" approvals across a restart', async () => {
    const first = await startKeel();
    let second: TestKeel | undefined;
    try {
      const c1 = createOpencodeClient({ baseUrl: first.url, directory: dir });
      const sessionID = (await c1.session.create()).data!.id;
      const service = first.keel.app.get(PermissionService);
      const approved = service.ask(request(sessionID, { type: 'webfetch', pattern: 'https://example.test/*' }));
      const toApprove = await pendingWhere(() => true, c1);
      await c1.permission.respond({ sessionID, permissionID: toApprove.id, response: 'always' });
      await expect(approved).resolves.toBe('always');
      void service.ask(request(sessionID, { title: 'left pending' })).catch(() => undefined);
      const pending = await pendingWhere((p) => p.title === 'left pending', c1);
      await first.keel.app.close();

      second = await startKeel({ reuse: first });
      const c2 = createOpencodeClient({ baseUrl: second.url, directory: dir });
      expect((await c2.permission.list()).data).toEqual([pending]);
      const { data } = await c2.permission.respond({ sessionID, permissionID: pending.id, response: 'reject' });
      expect(data).toBe(true);
      expect((await c2.permission.list()).data).toEqual([]);
      const again = second.keel.app.get(PermissionService);
      await expect(again.ask(request(sessionID, { type: 'webfetch', pattern: 'https://example.test/page' }))).resolves.toBe('always');
      expect(await state(again.ask(request(sessionID, { type: 'webfetch', pattern: 'https://other.test/' })))).toBe('pending');
    } finally {
      await second?.close();
      await first.close().catch(() => undefined);
    }
  });
});
