import { startKeel, TestKeel } from './support/keel';

/**
 * Writers of one container tag at once: four `POST /v4/memories` per round, each updating the same
 * eight facts in its own order. On PostgreSQL they took the rows' locks in opposite orders and one
 * in two answered 500 (`deadlock detected`) before the tag's writers took turns (lockTag).
 */
describe('memory: concurrent writes to one container tag', () => {
  let keel: TestKeel;
  beforeAll(async () => {
    keel = await startKeel();
  });
  afterAll(() => keel.close());

  const send = (method: string, path: string, body: unknown) =>
    fetch(`${keel.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => ({
      status: res.status,
      body: await res.text(),
    }));
  const post = (memories: { content: string }[]) =>
    send('POST', '/v4/memories', { containerTag: 'shared', memories });
  /** The tag's latest memories. */
  const latest = async () =>
    (
      JSON.parse(
        (await send('POST', '/v4/memories/list', { containerTags: ['shared'], limit: 100 })).body,
      ) as { memoryEntries: { memory: string }[] }
    ).memoryEntries;

  it('all succeed, and each fact keeps exactly one latest version', async () => {
    const subjects = Array.from({ length: 8 }, (_, i) => `subject${i} likes`);
    expect((await post(subjects.map((s) => ({ content: `${s} item0` })))).status).toBe(201);
    const failed: string[] = [];
    for (let round = 1; round <= 10; round++) {
      const forward = subjects.map((s) => ({ content: `${s} forward${round}` }));
      const backward = [...subjects].reverse().map((s) => ({ content: `${s} backward${round}` }));
      const answers = await Promise.all(
        [
          forward,
          backward,
          forward.map((m) => ({ content: `${m.content}x` })),
          backward.map((m) => ({ content: `${m.content}y` })),
        ].map(post),
      );
      for (const answer of answers) if (answer.status !== 201) failed.push(`${answer.status} ${answer.body}`);
    }
    expect(failed).toEqual([]);
    const entries = await latest();
    const latestPerSubject = subjects.map((s) => entries.filter((m) => m.memory.startsWith(`${s} `)).length);
    expect(latestPerSubject).toEqual(subjects.map(() => 1));
  });

  it('concurrent updates of one memory: one wins, the others answer 409, and the chain keeps one latest version', async () => {
    const created = (await post([{ content: 'Ada drinks tea' }]).then((a) => JSON.parse(a.body))) as {
      memories: { id: string }[];
    };
    const id = created.memories[0].id;
    const patch = (newContent: string) =>
      send('PATCH', '/v4/memories', { containerTag: 'shared', id, newContent });
    const answers = await Promise.all(
      ['coffee', 'water', 'juice', 'milk', 'cocoa', 'mate'].map((drink) => patch(`Ada drinks ${drink}`)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.body).toContain('newer version');
    // Sequentially too: the old version is no longer the one to update.
    expect((await patch('Ada drinks lemonade')).status).toBe(409);
    expect((await latest()).filter((m) => m.memory.startsWith('Ada drinks'))).toHaveLength(1);
  });
});
