import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { rmSync } from 'node:fs';
import type { Part } from '../src/messages/message.entity';
import { MessageService } from '../src/messages/message.service';
import { expectSessionAnswer } from './support/error-bodies';
import { messageFixtures, MessageFixtures } from './support/message-fixtures';
import { expectReferenceSchema } from './support/reference-schema';
import { SseClient } from './support/sse';
import { startKeel, tempDir, TestKeel } from './support/keel';

type Client = ReturnType<typeof createOpencodeClient>;

describe('messages and parts: list, get, part update/delete, streaming deltas, fork', () => {
  let keel: TestKeel;
  let dir: string;
  let client: Client;
  let messages: MessageService;
  let seed: MessageFixtures;

  beforeAll(async () => {
    keel = await startKeel();
    dir = tempDir('keel-messages-');
    client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
    messages = keel.keel.app.get(MessageService);
    seed = messageFixtures(messages, dir);
  });

  afterAll(async () => {
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A session with a user turn (client-supplied ids) and an assistant turn with a tool part. */
  let conversations = 0;
  async function conversation() {
    const { data: session } = await client.session.create();
    const sessionID = session!.id;
    // Client-generated ids (as the TUI sends them); ids are global, so each conversation gets its own.
    const n = ++conversations;
    const u = await messages.updateMessage(seed.user(sessionID, `msg_0000client${n}`));
    await messages.updatePart(seed.text(u, 'second', `prt_0000client${n}b`));
    await messages.updatePart(seed.text(u, 'first', `prt_0000client${n}a`));
    const a = await messages.updateMessage(seed.assistant(sessionID, u.id));
    await messages.updatePart(seed.text(a, 'answer'));
    await messages.updatePart({
      id: messages.newPartID(),
      sessionID,
      messageID: a.id,
      type: 'tool',
      callID: 'call_1',
      tool: 'bash',
      state: { status: 'completed', input: { command: 'ls' }, output: 'a.txt', title: 'ls', metadata: {}, time: { start: 1, end: 2 } },
    });
    return { sessionID, u, a };
  }

  it('lists messages chronologically with parts in id order, keeping client ids; limit keeps the last N', async () => {
    const { sessionID, u, a } = await conversation();
    const partIDs = [`prt_0000client${conversations}a`, `prt_0000client${conversations}b`];
    const { data: list, response } = await client.session.messages({ sessionID });
    expect(response.status).toBe(200);
    expect(list!.map((m) => m.info.id)).toEqual([u.id, a.id]);
    expect(list![0].info).toEqual(u);
    expect(list![0].parts.map((p) => p.id)).toEqual(partIDs);
    expect(list![1].parts.map((p) => p.type)).toEqual(['text', 'tool']);
    for (const m of list!) {
      expectReferenceSchema(m.info, 'Message');
      for (const p of m.parts) expectReferenceSchema(p, 'Part');
    }
    const { data: last } = await client.session.messages({ sessionID, limit: 1 });
    expect(last!.map((m) => m.info.id)).toEqual([a.id]);
    expect(last![0].parts).toHaveLength(2);
    const { data: empty } = await client.session.messages({ sessionID: (await client.session.create()).data!.id });
    expect(empty).toEqual([]);
    await expectSessionAnswer(client.session.messages({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
    const bad = await expectSessionAnswer(client.session.messages({ sessionID: 'abc' }), 400, 'BadRequestError');
    expect(bad.error[0].path).toEqual(['sessionID']);
    const badLimit = await fetch(`${keel.url}/session/${sessionID}/message?limit=lots&directory=${encodeURIComponent(dir)}`);
    expect(badLimit.status).toBe(400);
  });

  it('gets one message with its parts; unknown ids 404', async () => {
    const { sessionID, a } = await conversation();
    const { data } = await client.session.message({ sessionID, messageID: a.id });
    expect(data!.info).toEqual(a);
    expect(data!.parts.map((p) => p.messageID)).toEqual([a.id, a.id]);
    expectReferenceSchema(data!.info, 'AssistantMessage');
    const missing = await expectSessionAnswer(client.session.message({ sessionID, messageID: 'msg_missing' }), 404, 'NotFoundError');
    expect(missing.data.message).toBe('Message not found: msg_missing');
    await expectSessionAnswer(client.session.message({ sessionID: 'ses_missing', messageID: a.id }), 404, 'NotFoundError');
    const badId = await expectSessionAnswer(client.session.message({ sessionID, messageID: 'nope' }), 400, 'BadRequestError');
    expect(badId.error[0].path).toEqual(['messageID']);
  });

  it('publishes message.updated and message.part.updated, passing streaming deltas through', async () => {
    const { data: session } = await client.session.create();
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const info = await messages.updateMessage(seed.assistant(session!.id, 'msg_parent'));
    const part = seed.text(info, '');
    let accumulated = '';
    for (const chunk of ['Hel', 'lo', ' world']) {
      accumulated += chunk;
      await messages.updatePart({ ...part, text: accumulated }, { delta: chunk });
    }
    // Streamed writes are coalesced in memory for a moment; a read still sees the latest state.
    const streamed = await client.session.message({ sessionID: session!.id, messageID: info.id });
    expect(streamed.data!.parts).toEqual([{ ...part, text: 'Hello world' }]);
    await messages.updatePart({ ...part, text: accumulated, time: { start: 1, end: 2 } });
    await events.next((f) => f.type === 'message.part.updated' && f.properties.part.time);
    expect(events.ofType('message.updated')).toEqual([{ type: 'message.updated', properties: { sessionID: info.sessionID, info } }]);
    const updates = events.ofType('message.part.updated');
    expect(updates.map((f) => f.properties.delta)).toEqual(['Hel', 'lo', ' world', undefined]);
    expect(updates.map((f) => f.properties.part.text)).toEqual(['Hel', 'Hello', 'Hello world', 'Hello world']);
    expect('delta' in updates[3].properties).toBe(false);
    for (const f of [...events.ofType('message.updated'), ...updates]) expectReferenceSchema(f, `Event.${f.type}`);
    events.close();
    const { data } = await client.session.message({ sessionID: session!.id, messageID: info.id });
    expect(data!.parts).toEqual([{ ...part, text: 'Hello world', time: { start: 1, end: 2 } }]);
  });

  it('updates a part through PATCH; ids must match the path, unknown message 404', async () => {
    const { sessionID, u } = await conversation();
    const partID = `prt_0000client${conversations}a`;
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const edited = { ...seed.text(u, 'edited', partID), synthetic: true } as Part;
    const { data, response } = await client.part.update({ sessionID, messageID: u.id, partID, part: edited as never });
    expect(response.status).toBe(200);
    expect(data).toEqual(edited);
    expectReferenceSchema(data, 'Part');
    const frame = await events.next((f) => f.type === 'message.part.updated');
    expect(frame).toEqual({ type: 'message.part.updated', properties: { sessionID, part: edited } });
    events.close();
    expect((await client.session.message({ sessionID, messageID: u.id })).data!.parts[0]).toEqual(edited);

    const mismatch = await expectSessionAnswer(
      client.part.update({ sessionID, messageID: u.id, partID: 'prt_other', part: edited as never }),
      400,
      'BadRequestError',
    );
    expect(mismatch.error[0].path).toEqual(['id']);
    const wrongSession = await expectSessionAnswer(
      client.part.update({ sessionID, messageID: u.id, partID, part: { ...edited, sessionID: 'ses_other' } as never }),
      400,
      'BadRequestError',
    );
    expect(wrongSession.error[0].path).toEqual(['sessionID']);
    const invalid = await fetch(`${keel.url}/session/${sessionID}/message/${u.id}/part/${partID}?directory=${encodeURIComponent(dir)}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: partID, type: 'text' }),
    });
    expect(invalid.status).toBe(400);
    const ghost = { ...edited, messageID: 'msg_missing' };
    await expectSessionAnswer(client.part.update({ sessionID, messageID: 'msg_missing', partID, part: ghost as never }), 404, 'NotFoundError');
    const ghostSession = { ...edited, sessionID: 'ses_missing' };
    await expectSessionAnswer(
      client.part.update({ sessionID: 'ses_missing', messageID: u.id, partID, part: ghostSession as never }),
      404,
      'NotFoundError',
    );
  });

  it('deletes a part and a message, publishing their removal; unknown ids 404', async () => {
    const { sessionID, u, a } = await conversation();
    const [first, second] = [`prt_0000client${conversations}a`, `prt_0000client${conversations}b`];
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const { data } = await client.part.delete({ sessionID, messageID: u.id, partID: second });
    expect(data).toBe(true);
    const removed = await events.next((f) => f.type === 'message.part.removed');
    expect(removed).toEqual({ type: 'message.part.removed', properties: { sessionID, messageID: u.id, partID: second } });
    expectReferenceSchema(removed, 'Event.message.part.removed');
    expect((await client.session.message({ sessionID, messageID: u.id })).data!.parts.map((p) => p.id)).toEqual([first]);
    const missing = await expectSessionAnswer(client.part.delete({ sessionID, messageID: u.id, partID: second }), 404, 'NotFoundError');
    expect(missing.data.message).toBe(`Part not found: ${second}`);
    await expectSessionAnswer(client.part.delete({ sessionID: 'ses_missing', messageID: u.id, partID: first }), 404, 'NotFoundError');
    const badPart = await expectSessionAnswer(client.part.delete({ sessionID, messageID: u.id, partID: 'x' }), 400, 'BadRequestError');
    expect(badPart.error[0].path).toEqual(['partID']);
    await expectSessionAnswer(client.part.delete({ sessionID: 'bad', messageID: u.id, partID: first }), 400, 'BadRequestError');

    await messages.removeMessage(sessionID, a.id);
    const gone = await events.next((f) => f.type === 'message.removed');
    expect(gone).toEqual({ type: 'message.removed', properties: { sessionID, messageID: a.id } });
    expect((await client.session.messages({ sessionID })).data!.map((m) => m.info.id)).toEqual([u.id]);
    await expect(messages.removeMessage(sessionID, a.id)).rejects.toThrow('Message not found');
    events.close();
  });

  it('forks the messages before a message into a new root session with fresh ids', async () => {
    const { sessionID, u, a } = await conversation();
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const { data: fork, response } = await client.session.fork({ sessionID, messageID: a.id });
    expect(response.status).toBe(200);
    expectReferenceSchema(fork, 'Session');
    expect(fork!.id).not.toBe(sessionID);
    expect(fork).not.toHaveProperty('parentID');
    await events.next((f) => f.type === 'session.created' && f.properties.info.id === fork!.id);
    events.close();
    const { data: copied } = await client.session.messages({ sessionID: fork!.id });
    expect(copied).toHaveLength(1);
    expect(copied![0].info).toMatchObject({ role: 'user', sessionID: fork!.id, agent: u.agent });
    expect(copied![0].info.id).not.toBe(u.id);
    expect(copied![0].parts.map((p) => (p as { text: string }).text)).toEqual(['first', 'second']);
    expect(copied![0].parts.every((p) => p.messageID === copied![0].info.id && p.sessionID === fork!.id)).toBe(true);

    const { data: whole } = await client.session.fork({ sessionID });
    expect((await client.session.messages({ sessionID: whole!.id })).data).toHaveLength(2);
    await expectSessionAnswer(client.session.fork({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
    await expectSessionAnswer(client.session.fork({ sessionID, messageID: 'bad' }), 400, 'BadRequestError');
  });
});
