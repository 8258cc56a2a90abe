import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MessageService } from '../src/messages/message.service';
import { InstanceService } from '../src/projects/instance.service';
import type { Instance } from '../src/projects/instance.service';
import { SessionStatusService } from '../src/sessions/session-status.service';
import { RevertService } from '../src/snapshots/revert.service';
import { SnapshotService } from '../src/snapshots/snapshot.service';
import { messageFixtures, MessageFixtures } from './support/message-fixtures';
import { expectSessionAnswer } from './support/error-bodies';
import { expectReferenceSchema } from './support/reference-schema';
import { SseClient } from './support/sse';
import { startKeel, tempDir, TestKeel } from './support/keel';

type Client = ReturnType<typeof createOpencodeClient>;

/** What the worktree holds: every file outside `.git`, by relative name. */
function tree(dir: string): Record<string, string> {
  const names = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: dir,
    encoding: 'utf8',
  });
  const out: Record<string, string> = {};
  for (const name of names.split('\0').filter(Boolean).sort()) {
    if (existsSync(join(dir, name))) out[name] = readFileSync(join(dir, name), 'utf8');
  }
  return out;
}

describe('session revert / unrevert over snapshots', () => {
  let keel: TestKeel;
  let dir: string;
  let client: Client;
  let messages: MessageService;
  let seed: MessageFixtures;
  let snapshots: SnapshotService;
  let statuses: SessionStatusService;
  let reverts: RevertService;
  let instance: Instance;
  let events: SseClient;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  const userGit = () =>
    [
      git('rev-parse', 'HEAD'),
      git('status', '--porcelain'),
      git('count-objects', '-v'),
      git('ls-files', '-s'),
    ].join('\n');

  beforeAll(async () => {
    keel = await startKeel();
    dir = tempDir('keel-revert-');
    git('init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'a.txt'), 'a0\n');
    writeFileSync(join(dir, 'b.txt'), 'b0\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'initial');
    client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
    messages = keel.keel.app.get(MessageService);
    seed = messageFixtures(messages, dir);
    snapshots = keel.keel.app.get(SnapshotService);
    statuses = keel.keel.app.get(SessionStatusService);
    reverts = keel.keel.app.get(RevertService);
    instance = await keel.keel.app.get(InstanceService).get(dir);
    events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
  });

  afterAll(async () => {
    events.close();
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * One turn as the prompt loop writes it: a user message, then an assistant step that snapshots at
   * step start, changes files on disk (`edit`), and writes step-finish plus a `patch` part.
   */
  async function turn(sessionID: string, prompt: string, edit: () => void) {
    const u = await messages.updateMessage(seed.user(sessionID));
    await messages.updatePart(seed.part(u, { type: 'text', text: prompt }));
    const a = seed.assistant(sessionID, u.id);
    await messages.updateMessage(a);
    const start = await snapshots.track(instance);
    await messages.updatePart(seed.part(a, { type: 'step-start', snapshot: start }));
    edit();
    const text = await messages.updatePart(seed.part(a, { type: 'text', text: `did ${prompt}` }));
    const finish = await snapshots.track(instance);
    const stepFinish = await messages.updatePart(
      seed.part(a, { type: 'step-finish', reason: 'stop', snapshot: finish, cost: 0, tokens: a.tokens }),
    );
    const patch = await snapshots.patch(instance, start!);
    const patchPart = await messages.updatePart(seed.part(a, { type: 'patch', ...patch }));
    await messages.updateMessage({ ...a, finish: 'stop', time: { ...a.time, completed: Date.now() } });
    return { user: u, assistant: a, start: start!, finish: finish!, text, stepFinish, patchPart };
  }

  /** A session with two turns: turn 1 edits a.txt and creates new.txt; turn 2 edits a.txt, deletes b.txt, creates c.txt. */
  async function history() {
    git('checkout', '-q', '--', '.');
    git('clean', '-q', '-fd');
    const { data: session } = await client.session.create();
    const sessionID = session!.id;
    const initial = tree(dir);
    const t1 = await turn(sessionID, 'one', () => {
      writeFileSync(join(dir, 'a.txt'), 'a1\n');
      writeFileSync(join(dir, 'new.txt'), 'new1\n');
    });
    const afterOne = tree(dir);
    const t2 = await turn(sessionID, 'two', () => {
      writeFileSync(join(dir, 'a.txt'), 'a2\n');
      rmSync(join(dir, 'b.txt'));
      writeFileSync(join(dir, 'c.txt'), 'c2\n');
    });
    const afterTwo = tree(dir);
    return { sessionID, t1, t2, initial, afterOne, afterTwo };
  }

  it('reverts to a user message: files back to the state before that turn, revert stored, session.updated; unrevert restores', async () => {
    const { sessionID, t1, t2, afterOne, afterTwo } = await history();
    expect(t1.patchPart).toEqual(
      expect.objectContaining({ hash: t1.start, files: [join(dir, 'a.txt'), join(dir, 'new.txt')] }),
    );
    expectReferenceSchema(t2.patchPart, 'PatchPart');
    expect(afterTwo).toEqual({ 'a.txt': 'a2\n', 'c.txt': 'c2\n', 'new.txt': 'new1\n' });
    const before = userGit();

    const { data: reverted, response } = await client.session.revert({ sessionID, messageID: t2.user.id });
    expect(response.status).toBe(200);
    expectReferenceSchema(reverted, 'Session');
    expect(tree(dir)).toEqual(afterOne);
    expect(reverted!.revert).toEqual({
      messageID: t2.user.id,
      snapshot: expect.stringMatching(/^[0-9a-f]{40}$/),
      diff: expect.any(String),
    });
    expect(reverted!.revert!.snapshot).toBe(t2.finish);
    expect(reverted!.revert!.diff).toContain('diff --git a/c.txt b/c.txt');
    expect(reverted!.revert!.diff).toContain('-a2');
    const updated = await events.next<any>(
      (f) => f.type === 'session.updated' && f.properties.info.id === sessionID && f.properties.info.revert,
    );
    expect(updated.properties.info.revert).toEqual(reverted!.revert);
    expect((await client.session.get({ sessionID })).data!.revert).toEqual(reverted!.revert);
    // Messages stay until the next prompt cleans up.
    expect((await client.session.messages({ sessionID })).data!.map((m) => m.info.id)).toEqual([
      t1.user.id,
      t1.assistant.id,
      t2.user.id,
      t2.assistant.id,
    ]);

    const mark = events.frames.length;
    const { data: unreverted } = await client.session.unrevert({ sessionID });
    expectReferenceSchema(unreverted, 'Session');
    expect(unreverted!.revert).toBeUndefined();
    expect(tree(dir)).toEqual(afterTwo);
    await events.next(
      (f: any) =>
        events.frames.indexOf(f) >= mark &&
        f.type === 'session.updated' &&
        f.properties.info.id === sessionID,
    );
    expect(events.ofType('session.updated').at(-1).properties.info.revert).toBeUndefined();
    // Nothing to unrevert: the session as it is.
    expect((await client.session.unrevert({ sessionID })).data).toEqual(unreverted);
    expect(userGit()).toBe(before);
  });

  it('a repeated revert reuses the first snapshot and starts from it; reverting an assistant message goes to its user message', async () => {
    const { sessionID, t1, t2, initial, afterOne, afterTwo } = await history();
    const first = (await client.session.revert({ sessionID, messageID: t2.user.id })).data!;
    const earlier = (await client.session.revert({ sessionID, messageID: t1.user.id })).data!;
    expect(earlier.revert!.snapshot).toBe(first.revert!.snapshot);
    expect(earlier.revert!.messageID).toBe(t1.user.id);
    expect(tree(dir)).toEqual(initial);
    // Moving the point later brings back turn 1 (the tree is rebuilt from the snapshot first).
    const later = (await client.session.revert({ sessionID, messageID: t2.assistant.id })).data!;
    expect(later.revert).toEqual(
      expect.objectContaining({ messageID: t2.user.id, snapshot: first.revert!.snapshot }),
    );
    expect(later.revert!.partID).toBeUndefined();
    expect(tree(dir)).toEqual(afterOne);
    await client.session.unrevert({ sessionID });
    expect(tree(dir)).toEqual(afterTwo);
  });

  it('reverting to a part keeps the message up to that part; cleanup deletes what the revert hides, with events', async () => {
    const { sessionID, t1, t2, initial } = await history();
    const { data } = await client.session.revert({
      sessionID,
      messageID: t1.assistant.id,
      partID: t1.stepFinish.id,
    });
    expect(data!.revert).toEqual(
      expect.objectContaining({ messageID: t1.assistant.id, partID: t1.stepFinish.id }),
    );
    expect(tree(dir)).toEqual(initial);

    // A part with nothing the user sees before it reverts the whole turn.
    const { data: whole } = await client.session.revert({
      sessionID,
      messageID: t2.assistant.id,
      partID: t2.text.id,
    });
    expect(whole!.revert!.messageID).toBe(t2.user.id);
    expect(whole!.revert!.partID).toBeUndefined();
    const again = (
      await client.session.revert({ sessionID, messageID: t1.assistant.id, partID: t1.stepFinish.id })
    ).data!;

    const seen = events.frames.length;
    await reverts.cleanup(sessionID);
    const list = (await client.session.messages({ sessionID })).data!;
    expect(list.map((m) => m.info.id)).toEqual([t1.user.id, t1.assistant.id]);
    expect(list[1].parts.map((p) => p.type)).toEqual(['step-start', 'text']);
    expect((await client.session.get({ sessionID })).data!.revert).toBeUndefined();
    expect(again.revert!.partID).toBe(t1.stepFinish.id);
    await events.next((f: any) => f.type === 'message.removed' && f.properties.messageID === t2.assistant.id);
    const later = events.frames.slice(seen) as any[];
    expect(later.filter((f) => f.type === 'message.removed').map((f) => f.properties)).toEqual([
      { sessionID, messageID: t2.user.id },
      { sessionID, messageID: t2.assistant.id },
    ]);
    expect(later.filter((f) => f.type === 'message.part.removed').map((f) => f.properties.partID)).toEqual([
      t1.stepFinish.id,
      t1.patchPart.id,
    ]);
    await events.next(
      (f: any) =>
        events.frames.indexOf(f) >= seen && f.type === 'session.updated' && !f.properties.info.revert,
    );
    // No pending revert: cleanup is a no-op.
    await reverts.cleanup(sessionID);
    expect((await client.session.messages({ sessionID })).data).toHaveLength(2);
  });

  it('refuses while the session is busy (400 BusyError); unknown session 404; unknown message or part 404; malformed id 400', async () => {
    const { sessionID, t2 } = await history();
    await statuses.set(sessionID, { type: 'busy' });
    try {
      const busy = await expectSessionAnswer(
        client.session.revert({ sessionID, messageID: t2.user.id }),
        400,
        'BusyError',
      );
      expect(busy.data.message).toContain(sessionID);
      await expectSessionAnswer(client.session.unrevert({ sessionID }), 400, 'BusyError');
    } finally {
      await statuses.set(sessionID, { type: 'idle' });
    }
    expect((await client.session.get({ sessionID })).data!.revert).toBeUndefined();
    await expectSessionAnswer(
      client.session.revert({ sessionID: 'ses_missing', messageID: t2.user.id }),
      404,
      'NotFoundError',
    );
    await expectSessionAnswer(client.session.unrevert({ sessionID: 'ses_missing' }), 404, 'NotFoundError');
    await expectSessionAnswer(client.session.revert({ sessionID, messageID: 'msg_missing' }), 404, 'NotFoundError');
    await expectSessionAnswer(
      client.session.revert({ sessionID, messageID: t2.user.id, partID: 'prt_missing' }),
      404,
      'NotFoundError',
    );
    const malformed = await expectSessionAnswer(
      client.session.revert({ sessionID, messageID: 'nope' }),
      400,
      'BadRequestError',
    );
    expect(malformed.error[0].path).toEqual(['messageID']);
    await expectSessionAnswer(client.session.revert({ sessionID }), 400, 'BadRequestError');
  });

  it('outside git there is no snapshot: revert only records the point, cleanup still deletes', async () => {
    const plain = tempDir('keel-revert-plain-');
    try {
      const other = createOpencodeClient({ baseUrl: keel.url, directory: plain });
      const sessionID = (await other.session.create()).data!.id;
      const first = await messages.updateMessage(seed.user(sessionID));
      await messages.updatePart(seed.part(first, { type: 'text', text: 'hello' }));
      const second = await messages.updateMessage(seed.user(sessionID));
      await messages.updatePart(seed.part(second, { type: 'text', text: 'again' }));
      const { data } = await other.session.revert({ sessionID, messageID: second.id });
      expect(data!.revert).toEqual({ messageID: second.id });
      await reverts.cleanup(sessionID);
      expect((await other.session.messages({ sessionID })).data!.map((m) => m.info.id)).toEqual([first.id]);
      expect((await other.session.unrevert({ sessionID })).data!.revert).toBeUndefined();
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it('diffFull between the first step-start and the last step-finish snapshots is the session diff', async () => {
    const { t1, t2 } = await history();
    const diffs = await snapshots.diffFull(instance, t1.start, t2.finish);
    for (const diff of diffs) expectReferenceSchema(diff, 'FileDiff');
    expect(diffs).toEqual([
      { file: 'a.txt', before: 'a0\n', after: 'a2\n', additions: 1, deletions: 1 },
      { file: 'b.txt', before: 'b0\n', after: '', additions: 0, deletions: 1 },
      { file: 'c.txt', before: '', after: 'c2\n', additions: 1, deletions: 0 },
      { file: 'new.txt', before: '', after: 'new1\n', additions: 1, deletions: 0 },
    ]);
  });
});
