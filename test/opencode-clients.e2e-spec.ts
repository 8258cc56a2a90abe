import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expectReferenceSchema } from './support/reference-schema';
import { AssistantHarness, startAssistantHarness } from './support/assistant-harness';
import { SseClient } from './support/sse';

/**
 * What opencode clients newer than the seed (1.1.11, 1.18.33) need beyond the seed's interface. They
 * speak routes the 1.0.223 SDK has no method for, so those requests are plain fetch, as the clients send them.
 */
describe('newer opencode clients: permission.asked and /permission/{id}/reply, start-up routes, /api/* dialect, fork, event fields', () => {
  let harness: AssistantHarness;

  beforeAll(async () => {
    harness = await startAssistantHarness({ prefix: 'keel-opencode-clients-', config: { permission: { bash: 'ask' } } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const url = (path: string) => `${harness.keel.url}${path}${path.includes('?') ? '&' : '?'}directory=${encodeURIComponent(harness.dir)}`;
  const get = async (path: string) => {
    const res = await fetch(url(path));
    return { status: res.status, body: await res.json() };
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(url(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const newSession = async () => (await harness.client.session.create({})).data!.id;

  describe('permission prompts as opencode 1.1+ shows and answers them', () => {
    it('publishes permission.asked beside permission.updated; a "once" reply to /permission/{requestID}/reply lets the tool run', async () => {
      const { client, scripted, events, dir } = harness;
      const sessionID = await newSession();
      scripted.reply({ steps: [{ tool: 'bash', args: { command: 'touch approved.txt', description: 'create a file' } }] }, { steps: [{ text: 'created' }] });
      const turn = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'create it' }] });

      const updated = await events.next<any>((e) => e.type === 'permission.updated' && e.properties.sessionID === sessionID);
      expectReferenceSchema(updated, 'Event.permission.updated');
      const asked = await events.next<any>((e) => e.type === 'permission.asked' && e.properties.sessionID === sessionID);
      // opencode 1.1's PermissionNext.Request, for the same pending request.
      expect(asked.properties).toEqual({
        id: updated.properties.id,
        sessionID,
        permission: 'bash',
        // As opencode 1.18.33 sends it: the command as written, and what "always" would approve.
        patterns: ['touch approved.txt'],
        metadata: { command: 'touch approved.txt' },
        always: ['touch *'],
        tool: { messageID: updated.properties.messageID, callID: updated.properties.callID },
      });
      expect(existsSync(join(dir, 'approved.txt'))).toBe(false);

      // Both generations read the one list: the seed's Permission and 1.1's request fields.
      const listed = await get('/permission');
      expect(listed.status).toBe(200);
      const entry = listed.body.find((p: any) => p.id === asked.properties.id);
      expect(entry).toEqual({ ...updated.properties, ...asked.properties });
      expectReferenceSchema(entry, 'Permission');

      const replied = await post(`/permission/${asked.properties.id}/reply`, { reply: 'once' });
      expect(replied).toEqual({ status: 200, body: true });
      const { data } = await turn;
      expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'created' });
      expect(existsSync(join(dir, 'approved.txt'))).toBe(true);
      const repliedEvent = await events.next<any>((e) => e.type === 'permission.replied' && e.properties.permissionID === asked.properties.id);
      expect(repliedEvent.properties).toEqual({ sessionID, permissionID: asked.properties.id, response: 'once', requestID: asked.properties.id, reply: 'once' });
      expectReferenceSchema(repliedEvent, 'Event.permission.replied');

      // Answered: the same id is now unknown, as on the seed's route.
      const again = await post(`/permission/${asked.properties.id}/reply`, { reply: 'once' });
      expect(again).toEqual({ status: 404, body: { name: 'NotFoundError', data: { message: `Permission not found: ${asked.properties.id}` } } });
    });

    it('"always" approves the pattern for the session; "reject" fails the call and ends the turn', async () => {
      const { client, scripted, events, dir } = harness;
      const sessionID = await newSession();
      scripted.reply({ steps: [{ tool: 'bash', args: { command: 'touch always-1.txt', description: 'create' } }] }, { steps: [{ text: 'one' }] });
      const first = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'one' }] });
      const asked = await events.next<any>((e) => e.type === 'permission.asked' && e.properties.sessionID === sessionID);
      expect(await post(`/permission/${asked.properties.id}/reply`, { reply: 'always' })).toEqual({ status: 200, body: true });
      await first;
      // Remembered: the next `touch` runs without asking.
      scripted.reply({ steps: [{ tool: 'bash', args: { command: 'touch always-2.txt', description: 'create' } }] }, { steps: [{ text: 'two' }] });
      await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'two' }] });
      expect(existsSync(join(dir, 'always-2.txt'))).toBe(true);
      expect(events.ofType('permission.asked').filter((e: any) => e.properties.sessionID === sessionID)).toHaveLength(1);

      scripted.reply({ steps: [{ tool: 'bash', args: { command: 'rm always-1.txt', description: 'remove' } }] });
      const refused = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'three' }] });
      const second = await events.next<any>((e) => e.type === 'permission.asked' && e.properties.sessionID === sessionID && e.properties.id !== asked.properties.id);
      expect(await post(`/permission/${second.properties.id}/reply`, { reply: 'reject', message: 'not that one' })).toEqual({ status: 200, body: true });
      const { data } = await refused;
      expect((data!.parts.find((p) => p.type === 'tool') as any).state).toMatchObject({ status: 'error' });
      expect(existsSync(join(dir, 'always-1.txt'))).toBe(true);
    });

    it('answers malformed replies with a 400 naming the field, and unknown ids with a 404', async () => {
      const badReply = await post('/permission/per_0000000000001/reply', { reply: 'sometimes' });
      expect(badReply.status).toBe(400);
      expect(badReply.body).toMatchObject({ success: false, error: [{ path: ['reply'] }] });
      const badMessage = await post('/permission/per_0000000000001/reply', { reply: 'once', message: 3 });
      expect(badMessage.body.error[0].path).toEqual(['message']);
      const badID = await post('/permission/nope/reply', { reply: 'once' });
      expect(badID.status).toBe(400);
      expect(badID.body.error[0].path).toEqual(['requestID']);
      const unknown = await post('/permission/per_0000000000001/reply', { reply: 'once' });
      expect(unknown).toEqual({ status: 404, body: { name: 'NotFoundError', data: { message: 'Permission not found: per_0000000000001' } } });
    });
  });

  describe('start-up routes', () => {
    it('answer as opencode 1.1 and 1.18 read them, with the empty state of features Keel does not have', async () => {
      expect(await get('/experimental/resource')).toEqual({ status: 200, body: {} });
      expect(await get('/experimental/capabilities')).toEqual({ status: 200, body: { backgroundSubagents: false } });
      expect(await get('/experimental/console')).toEqual({ status: 200, body: { consoleManagedProviders: [], switchableOrgCount: 0 } });
      expect(await get('/experimental/workspace')).toEqual({ status: 200, body: [] });
      expect(await get('/experimental/workspace/status')).toEqual({ status: 200, body: [] });
    });

    it('/project/{projectID}/directories lists the project worktree; an unknown project is a 404', async () => {
      const { data: project } = await harness.client.project.current();
      expect(await get(`/project/${project!.id}/directories`)).toEqual({ status: 200, body: [{ directory: project!.worktree }] });
      expect(await get('/project/nope/directories')).toEqual({ status: 404, body: { name: 'NotFoundError', data: { message: 'Project not found: nope' } } });
    });
  });

  it("opencode's own /api/* routes answer in the session dialect, the routing manager's in its own", async () => {
    // Served: /api/agent, /api/model, … (test/opencode-v2-api.e2e-spec.ts). Not served: the rest of opencode's v2 API.
    for (const path of ['/api/session', '/api/health', '/api/pty']) {
      const res = await fetch(`${harness.keel.url}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ name: 'NotFoundError', data: { message: `Route not found: GET ${path}` } });
    }
    const routing = await fetch(`${harness.keel.url}/api/middlewares/missing-one`);
    expect(routing.status).toBe(404);
    expect(await routing.json()).toMatchObject({ code: 404, message: expect.any(String) });
  });

  it('fork points the copied assistant messages at the copied user messages', async () => {
    const { client, scripted } = harness;
    const sessionID = await newSession();
    scripted.reply({ steps: [{ text: 'first answer' }] }, { steps: [{ text: 'second answer' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'first' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'second' }] });
    const { data: fork } = await client.session.fork({ sessionID });
    const copied = (await client.session.messages({ sessionID: fork!.id })).data!.map((m) => m.info);
    expect(copied.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const [u1, a1, u2, a2] = copied as any[];
    expect(a1.parentID).toBe(u1.id);
    expect(a2.parentID).toBe(u2.id);
  });

  it('session, message and part events carry sessionID beside the seed fields', async () => {
    const { client, scripted, events } = harness;
    const sessionID = await newSession();
    scripted.reply({ steps: [{ text: 'streamed' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'hi' }] });
    const parts = events.ofType('message.part.updated').filter((e: any) => e.properties.part.sessionID === sessionID);
    const messages = events.ofType('message.updated').filter((e: any) => e.properties.info.sessionID === sessionID);
    const sessions = ['session.created', 'session.updated'].flatMap((type) => events.ofType(type).filter((e: any) => e.properties.info.id === sessionID));
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect(parts.length).toBeGreaterThan(0);
    expect(messages.length).toBeGreaterThan(0);
    for (const event of [...parts, ...messages, ...sessions]) {
      expect(event.properties.sessionID).toBe(sessionID);
      expectReferenceSchema(event, `Event.${event.type}`);
    }
    expect(parts.some((e: any) => typeof e.properties.delta === 'string')).toBe(true);
  });

  it('streams text and reasoning as message.part.delta (1.18) before each message.part.updated with delta (1.0, 1.1); both rebuild the same text', async () => {
    const { client, scripted, events } = harness;
    const sessionID = await newSession();
    scripted.reply({ steps: [{ reasoning: 'Let me ' }, { reasoning: 'think.' }, { text: 'Hello ' }, { text: '"wide" ' }, { text: 'world' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'stream it' }] });
    const stream = events.frames.filter(
      (e: any) => (e.type === 'message.part.delta' || e.type === 'message.part.updated') && e.properties.sessionID === sessionID,
    ) as any[];
    const deltas = stream.filter((e) => e.type === 'message.part.delta');
    expect(deltas.map((e) => e.properties.delta)).toEqual(['Let me ', 'think.', 'Hello ', '"wide" ', 'world']);
    for (const delta of deltas) {
      // As opencode 1.18.33 sends it; the whole-part update follows with the same delta.
      expect(Object.keys(delta.properties)).toEqual(['sessionID', 'messageID', 'partID', 'field', 'delta']);
      expect(delta.properties).toMatchObject({ sessionID, field: 'text' });
      const next = stream[stream.indexOf(delta) + 1];
      expect(next).toMatchObject({ type: 'message.part.updated', properties: { delta: delta.properties.delta, part: { id: delta.properties.partID, messageID: delta.properties.messageID } } });
    }
    // 1.18 appends deltas to the part it holds and takes whole parts; 1.0/1.1 take whole parts. After every event both agree.
    const newer = new Map<string, string>();
    const older = new Map<string, string>();
    for (const e of stream) {
      if (e.type === 'message.part.delta') {
        if (newer.has(e.properties.partID)) newer.set(e.properties.partID, newer.get(e.properties.partID)! + e.properties.delta);
        continue;
      }
      const part = e.properties.part;
      if (typeof part.text !== 'string') continue;
      newer.set(part.id, part.text);
      older.set(part.id, part.text);
      expect(newer.get(part.id)).toBe(older.get(part.id));
    }
    expect([...older.values()]).toEqual(expect.arrayContaining(['Let me think.', 'Hello "wide" world']));
  });

  it('names the project on /global/event envelopes of a directory', async () => {
    const { client, dir } = harness;
    const global = await SseClient.open(`${harness.keel.url}/global/event`);
    try {
      const { data: project } = await client.project.current();
      const sessionID = await newSession();
      const created = await global.next<any>((f) => f.payload?.type === 'session.created' && f.payload.properties.info.id === sessionID);
      expect(Object.keys(created)).toEqual(['directory', 'project', 'payload']);
      expect(created).toMatchObject({ directory: dir, project: project!.id });
      expect(global.raw).toContain(`{"directory":${JSON.stringify(dir)},"project":${JSON.stringify(project!.id)},"payload":`);
    } finally {
      global.close();
    }
  });

});
