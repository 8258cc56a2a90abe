import { rmSync } from 'node:fs';
import { MessageService } from '../src/messages/message.service';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { messageFixtures } from './support/message-fixtures';
import { SseClient } from './support/sse';

const PASSWORD = 'share-secret';
const AUTH = { Authorization: `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString('base64')}` };
const SHARE_URL = /\/share\/([A-Za-z0-9_-]{24})$/;

interface Session {
  id: string;
  title: string;
  share?: { url: string };
}

describe('share: self-hosted share links and the public share page', () => {
  let dir: string;
  beforeAll(() => (dir = tempDir('keel-share-')));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const q = () => `directory=${encodeURIComponent(dir)}`;
  async function api<T>(keel: TestKeel, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<T> {
    const response = await fetch(`${keel.url}${path}${path.includes('?') ? '&' : '?'}${q()}`, {
      method,
      headers: { ...AUTH, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }
  const create = (keel: TestKeel, body: Record<string, unknown> = {}) => api<Session>(keel, 'POST', '/session', {}, body);
  const share = (keel: TestKeel, id: string, headers: Record<string, string> = {}) => api<Session>(keel, 'POST', `/session/${id}/share`, headers);
  const shareID = (session: Session): string => SHARE_URL.exec(session.share!.url)![1];

  describe('with KEEL_PUBLIC_URL', () => {
    let keel: TestKeel;
    beforeAll(async () => (keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_PUBLIC_URL: 'https://keel.example.test/base/' } })));
    afterAll(() => keel.close());

    it('hands out <KEEL_PUBLIC_URL>/share/<unguessable id>, stable while shared, new after a revoke', async () => {
      const a = await create(keel);
      const b = await create(keel);
      const sharedA = await share(keel, a.id, { 'X-Forwarded-Host': 'evil.test' });
      expect(sharedA.share!.url).toMatch(/^https:\/\/keel\.example\.test\/base\/share\/[A-Za-z0-9_-]{24}$/);
      // 24 base64url characters: 144 random bits, unrelated to the session id.
      expect(a.id).not.toContain(shareID(sharedA));
      expect((await share(keel, a.id)).share).toEqual(sharedA.share);
      expect((await api<Session>(keel, 'GET', `/session/${a.id}`)).share).toEqual(sharedA.share);
      const sharedB = await share(keel, b.id);
      expect(shareID(sharedB)).not.toBe(shareID(sharedA));
      await api(keel, 'DELETE', `/session/${a.id}/share`);
      const again = await share(keel, a.id);
      expect(shareID(again)).not.toBe(shareID(sharedA));
      expect((await fetch(`${keel.url}/share/${shareID(sharedA)}`)).status).toBe(404);
      expect((await fetch(`${keel.url}/share/${shareID(again)}`)).status).toBe(200);

      // Shared several times at once (the fuzz run's PostgreSQL 500: both inserted): one link for all.
      const c = await create(keel);
      const answers = await Promise.all(Array.from({ length: 6 }, () => share(keel, c.id)));
      expect(new Set(answers.map((s) => s.share!.url)).size).toBe(1);
    });
  });

  describe('public base from the request', () => {
    it('uses the request host, ignoring X-Forwarded-* from an untrusted peer', async () => {
      const keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD } });
      try {
        const s = await share(keel, (await create(keel)).id, { 'X-Forwarded-Host': 'evil.test', 'X-Forwarded-Proto': 'https' });
        expect(s.share!.url).toMatch(new RegExp(`^${keel.url.replace(/\./g, '\\.')}/share/[A-Za-z0-9_-]{24}$`));
      } finally {
        await keel.close();
      }
    });

    it('honours X-Forwarded-Proto and X-Forwarded-Host when KEEL_TRUST_PROXY trusts the peer', async () => {
      const keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD, KEEL_TRUST_PROXY: 'loopback' } });
      try {
        const s = await share(keel, (await create(keel)).id, { 'X-Forwarded-Host': 'public.example.test', 'X-Forwarded-Proto': 'https' });
        expect(s.share!.url).toMatch(/^https:\/\/public\.example\.test\/share\/[A-Za-z0-9_-]{24}$/);
      } finally {
        await keel.close();
      }
    });

    it('refuses to share when KEEL_SHARE=off', async () => {
      const previous = process.env.KEEL_SHARE;
      process.env.KEEL_SHARE = 'off';
      const keel = await startKeel();
      try {
        const s = await create(keel);
        const response = await fetch(`${keel.url}/session/${s.id}/share?${q()}`, { method: 'POST' });
        expect(response.status).toBe(400);
        expect(JSON.stringify(await response.json())).toContain('KEEL_SHARE=off');
      } finally {
        await keel.close();
        if (previous === undefined) delete process.env.KEEL_SHARE;
        else process.env.KEEL_SHARE = previous;
      }
    });
  });

  describe('the share page', () => {
    let keel: TestKeel;
    let session: Session;
    let id: string;
    let messages: MessageService;
    let fixtures: ReturnType<typeof messageFixtures>;
    let child: Session;

    beforeAll(async () => {
      keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: PASSWORD } });
      messages = keel.keel.app.get(MessageService);
      fixtures = messageFixtures(messages, dir);
      session = await create(keel, { title: 'Fix <b>the</b> "build" & ship' });
      const user = await messages.updateMessage(fixtures.user(session.id));
      await messages.updatePart(fixtures.text(user, 'Why does <script>alert(1)</script> fail?'));
      const reply = fixtures.assistant(session.id, user.id);
      reply.cost = 0.0123;
      await messages.updateMessage(reply);
      await messages.updatePart(fixtures.text(reply, 'Because of </pre><img src=x onerror=alert(2)>.'));
      await messages.updatePart(
        fixtures.part(reply, {
          type: 'tool',
          tool: 'bash',
          callID: 'call_1',
          state: { status: 'completed', input: { command: 'echo "<hi>"' }, output: '<hi>', title: 'echo', metadata: {}, time: { start: 1, end: 2 } },
        }),
      );
      child = await create(keel, { parentID: session.id, title: 'Subtask: look around' });
      const childUser = await messages.updateMessage(fixtures.user(child.id));
      await messages.updatePart(fixtures.text(childUser, 'Inside the subtask'));
      id = shareID(await share(keel, session.id));
    });
    afterAll(() => keel.close());

    it('serves the conversation without credentials, server-rendered and escaped (readable without JavaScript)', async () => {
      const response = await fetch(`${keel.url}/share/${id}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await response.text();
      expect(html).toContain('Fix &lt;b&gt;the&lt;/b&gt; &quot;build&quot; &amp; ship');
      expect(html).toContain('Why does &lt;script&gt;alert(1)&lt;/script&gt; fail?');
      expect(html).toContain('Because of &lt;/pre&gt;&lt;img src=x onerror=alert(2)&gt;.');
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('<img src=x');
      expect(html).toContain('echo \\&quot;&lt;hi&gt;\\&quot;');
      expect(html).toContain('scripted/echo');
      expect(html).toContain('$0.0123');
      expect(html).toMatch(/3 tokens/);
      expect(html).toContain('Inside the subtask');
    });

    it('keeps a title holding replacement patterns ($&, $`, $\') as text: the page template stays whole', async () => {
      const odd = await create(keel, { title: "a$&b$`c$'d$$e" });
      const oddID = shareID(await share(keel, odd.id));
      const html = await (await fetch(`${keel.url}/share/${oddID}`)).text();
      expect(html).toContain("<title>a$&amp;b$`c$&#39;d$$e · Keel</title>");
      expect(html.match(/<title>/g)).toHaveLength(1);
      expect(html.match(/<!doctype html>/gi)).toHaveLength(1);
    });

    it('serves its data (session, messages, subtasks) without credentials', async () => {
      const response = await fetch(`${keel.url}/share/${id}/data`);
      expect(response.status).toBe(200);
      const data = (await response.json()) as { session: Session; messages: unknown[]; subtasks: { session: Session }[] };
      expect(data.session.id).toBe(session.id);
      expect(data.messages).toHaveLength(2);
      expect(data.subtasks.map((s) => s.session.id)).toEqual([child.id]);
    });

    it('reaches nothing else: other paths, methods and ids need the password or are unknown', async () => {
      const refused = [
        ['GET', `/session`],
        ['GET', `/session/${session.id}`],
        ['GET', `/session/${session.id}/message`],
        ['POST', `/share/${id}`],
        ['DELETE', `/share/${id}`],
        ['GET', `/share/${id}/data/more`],
        ['GET', `/share/${id}/message`],
        ['GET', `/share/${id}/../../session`],
        ['GET', `/share/${id}%2F..%2F..%2Fsession`],
        ['GET', `/SHARE/${id}`],
        ['GET', `/global/event`],
        ['GET', `/event`],
        ['GET', `/ui/../session`],
      ];
      for (const [method, path] of refused) {
        const response = await fetch(`${keel.url}${path}`, { method });
        expect([method, path, response.status]).toEqual([method, path, expect.any(Number)]);
        expect([401, 404]).toContain(response.status);
        const body = await response.text();
        expect(body).not.toContain(session.id);
      }
      // A browser gets the page saying so; an API client the session dialect's NotFoundError.
      const unknown = await fetch(`${keel.url}/share/${'A'.repeat(24)}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain('not shared');
      const unknownJson = await fetch(`${keel.url}/share/${'A'.repeat(24)}`);
      expect(unknownJson.status).toBe(404);
      expect(await unknownJson.json()).toMatchObject({ name: 'NotFoundError' });
      // A session id is no share id.
      expect((await fetch(`${keel.url}/share/${session.id}/data`)).status).toBe(404);
    });

    it('streams only the shared session and its subtasks, then share.revoked on unshare; the url answers 404', async () => {
      const stream = await SseClient.open(`${keel.url}/share/${id}/event`);
      try {
        const other = await create(keel, { title: 'not shared' });
        const otherUser = await messages.updateMessage(fixtures.user(other.id));
        await messages.updatePart(fixtures.text(otherUser, 'secret elsewhere'));
        const user = await messages.updateMessage(fixtures.user(session.id));
        await messages.updatePart(fixtures.text(user, 'live message'));
        await stream.next((f) => f.type === 'message.part.updated' && f.properties.part.text === 'live message');
        const childUser = await messages.updateMessage(fixtures.user(child.id));
        await messages.updatePart(fixtures.text(childUser, 'live in the subtask'));
        await stream.next((f) => f.type === 'message.part.updated' && f.properties.part.text === 'live in the subtask');
        expect(stream.raw).not.toContain('secret elsewhere');
        expect(stream.raw).not.toContain(other.id);

        await api(keel, 'DELETE', `/session/${session.id}/share`);
        await stream.next((f) => f.type === 'share.revoked');
        await stream.done;
        expect(stream.closed).toBe(true);
        expect((await fetch(`${keel.url}/share/${id}`)).status).toBe(404);
        expect((await fetch(`${keel.url}/share/${id}/data`)).status).toBe(404);
        expect((await fetch(`${keel.url}/share/${id}/event`)).status).toBe(404);
      } finally {
        stream.close();
      }
    });
  });
});
