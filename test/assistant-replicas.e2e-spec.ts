import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ascendingId } from '../src/common/ids';
import { startKeel, tempDir, testDatabaseServer, TestKeel } from './support/keel';
import { ScriptedProvider } from './support/scripted-provider';
import { SseClient } from './support/sse';

type Client = ReturnType<typeof createOpencodeClient>;
const REJECTED = 'The user rejected permission to use this specific tool call.';

/** Alive and not a zombie (a container's PID 1 may never reap orphans). */
function processAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

// Replicas exist only on PostgreSQL (state in the shared database, signals and events by LISTEN/NOTIFY).
// SQLite is one process by design, so there is no second replica to reach: these tests are skipped there.
const describeOnPostgres = testDatabaseServer ? describe : describe.skip;

describeOnPostgres('assistant across replicas: abort and permission replies reach the replica running the turn', () => {
  let scripted: ScriptedProvider;
  let dir: string;
  let first: TestKeel;
  let second: TestKeel;
  /** The replica running the turns. */
  let onA: Client;
  /** The replica the user's abort and replies are sent to. */
  let onB: Client;
  let eventsA: SseClient;
  let eventsB: SseClient;
  let globalA: SseClient;
  let globalB: SseClient;

  beforeAll(async () => {
    scripted = await ScriptedProvider.start();
    dir = tempDir('keel-replicas-');
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ ...scripted.config(), permission: { edit: 'ask' } }));
    first = await startKeel();
    second = await startKeel({ reuse: first });
    onA = createOpencodeClient({ baseUrl: first.url, directory: dir });
    onB = createOpencodeClient({ baseUrl: second.url, directory: dir });
    eventsA = await SseClient.open(`${first.url}/event?directory=${encodeURIComponent(dir)}`);
    eventsB = await SseClient.open(`${second.url}/event?directory=${encodeURIComponent(dir)}`);
    globalA = await SseClient.open(`${first.url}/global/event`);
    globalB = await SseClient.open(`${second.url}/global/event`);
  });

  afterAll(async () => {
    for (const stream of [eventsA, eventsB, globalA, globalB]) stream?.close();
    await second?.close();
    await first?.close();
    await scripted?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newSession(): Promise<string> {
    const { data } = await onA.session.create({});
    return data!.id;
  }

  const asked = (events: SseClient, sessionID: string, except: string[] = []) =>
    events.next<any>((e) => e.type === 'permission.updated' && e.properties.sessionID === sessionID && !except.includes(e.properties.id));

  it('POST /session/{id}/abort on B stops a long bash running on A with the reference abort results', async () => {
    const sessionID = await newSession();
    const marker = join(dir, 'replica-long.pid');
    scripted.reply({ steps: [{ tool: 'bash', args: { command: `echo $$ > ${marker}; sleep 30`, description: 'Wait' } }] });
    const pending = onA.session.prompt({ sessionID, parts: [{ type: 'text', text: 'wait' }] });
    // B learns of the running tool through the relay, as a client of B would.
    await eventsB.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.part.tool === 'bash' && e.properties.part.state.status === 'running');
    for (let i = 0; i < 100 && !(existsSync(marker) && readFileSync(marker, 'utf8').trim()); i++) await new Promise((r) => setTimeout(r, 20));
    const pid = Number(readFileSync(marker, 'utf8'));
    expect(processAlive(pid)).toBe(true);

    const { data: aborted, response } = await onB.session.abort({ sessionID });
    expect(response.status).toBe(200);
    expect(aborted).toBe(true);

    const { data } = await pending;
    expect(data!.info.error).toMatchObject({ name: 'MessageAbortedError', data: { message: expect.any(String) } });
    const tool = data!.parts.find((p) => p.type === 'tool') as any;
    expect(tool.state).toMatchObject({ status: 'error', error: 'Tool execution aborted' });
    for (let i = 0; i < 60 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(processAlive(pid)).toBe(false);
    await eventsB.next((e) => e.type === 'session.error' && e.properties.sessionID === sessionID && e.properties.error.name === 'MessageAbortedError');
    await eventsB.next((e) => e.type === 'session.idle' && e.properties.sessionID === sessionID);
    // The abort signal is for replicas only: no client stream shows it.
    for (const stream of [globalA, globalB]) expect(stream.frames.filter((f: any) => f.payload?.type === 'session.abort')).toEqual([]);
    const { data: fromB } = await onB.session.messages({ sessionID });
    expect(fromB!.at(-1)!.info).toMatchObject({ role: 'assistant', error: { name: 'MessageAbortedError' } });
    // The session takes new turns on A afterwards.
    scripted.reply({ steps: [{ text: 'back again' }] });
    const { data: again } = await onA.session.prompt({ sessionID, parts: [{ type: 'text', text: 'hello' }] });
    expect(again!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'back again' });
  });

  it('abort on B also stops a user shell command running on A', async () => {
    const sessionID = await newSession();
    const shell = onA.session.shell({ sessionID, agent: 'build', command: 'echo started; sleep 30' });
    await eventsB.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.part.state?.metadata?.output === 'started\n');
    expect((await onB.session.abort({ sessionID })).data).toBe(true);
    const { data } = await shell;
    const tool = (data as any).parts[0];
    expect(tool.state).toMatchObject({ status: 'completed', output: 'started\n\n\nUser aborted the command' });
    await eventsB.next((e) => e.type === 'session.idle' && e.properties.sessionID === sessionID);
  });

  it('a permission reply sent to B resumes the tool waiting on A; "reject" fails it; unknown ids are still 404', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ tool: 'write', args: { filePath: 'from-b.txt', content: 'approved on B' } }] }, { steps: [{ text: 'written' }] });
    const approved = onA.session.prompt({ sessionID, parts: [{ type: 'text', text: 'write it' }] });
    const permission = await asked(eventsB, sessionID);
    expect(permission.properties).toMatchObject({ type: 'edit', sessionID, callID: expect.any(String) });
    expect(existsSync(join(dir, 'from-b.txt'))).toBe(false);
    // Pending on A, known to B through the database.
    const { data: listed } = await onB.permission.list();
    expect(listed!.map((p) => p.id)).toContain(permission.properties.id);

    const unknown = await onB.permission.respond({ sessionID, permissionID: ascendingId('per'), response: 'once' });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ name: 'NotFoundError' });

    const { data: replied, response } = await onB.permission.respond({ sessionID, permissionID: permission.properties.id, response: 'once' });
    expect(response.status).toBe(200);
    expect(replied).toBe(true);
    const { data } = await approved;
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'written' });
    expect(readFileSync(join(dir, 'from-b.txt'), 'utf8')).toBe('approved on B');
    await eventsA.next((e) => e.type === 'permission.replied' && e.properties.permissionID === permission.properties.id && e.properties.response === 'once');
    const again = await onB.permission.respond({ sessionID, permissionID: permission.properties.id, response: 'once' });
    expect(again.response.status).toBe(404);

    scripted.reply({ steps: [{ tool: 'write', args: { filePath: 'refused.txt', content: 'x' } }] });
    const before = scripted.prompts.length;
    const refused = onA.session.prompt({ sessionID, parts: [{ type: 'text', text: 'write another' }] });
    const second = await asked(eventsB, sessionID, [permission.properties.id]);
    await onB.permission.respond({ sessionID, permissionID: second.properties.id, response: 'reject' });
    const { data: rejected } = await refused;
    const tool = rejected!.parts.find((p) => p.type === 'tool') as any;
    expect(tool.state).toMatchObject({ status: 'error', error: expect.stringContaining(REJECTED) });
    expect(existsSync(join(dir, 'refused.txt'))).toBe(false);
    expect(scripted.prompts.length).toBe(before + 1);
    const { data: pendingNow } = await onA.permission.list();
    expect(pendingNow!.filter((p) => p.sessionID === sessionID)).toEqual([]);
  });

  it("opencode 1.1's reply route on B (POST /permission/{requestID}/reply) resumes the tool waiting on A", async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ tool: 'write', args: { filePath: 'from-b-next.txt', content: 'approved on B' } }] }, { steps: [{ text: 'written' }] });
    const approved = onA.session.prompt({ sessionID, parts: [{ type: 'text', text: 'write it' }] });
    // A client of B sees the request as 1.1 reads it (permission.asked), relayed from A.
    const request = await eventsB.next<any>((e) => e.type === 'permission.asked' && e.properties.sessionID === sessionID);
    expect(request.properties).toMatchObject({ permission: 'edit', tool: { callID: expect.any(String) } });
    const reply = (id: string) =>
      fetch(`${second.url}/permission/${id}/reply?directory=${encodeURIComponent(dir)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reply: 'once' }),
      });
    expect((await reply(ascendingId('per'))).status).toBe(404);
    const res = await reply(request.properties.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toBe(true);
    const { data } = await approved;
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'written' });
    expect(readFileSync(join(dir, 'from-b-next.txt'), 'utf8')).toBe('approved on B');
    await eventsA.next((e) => e.type === 'permission.replied' && e.properties.requestID === request.properties.id && e.properties.reply === 'once');
  });
});
