import { SerializedJson } from '../common/serialized-json';
import type { Session } from './session.entity';
import { KeptSessionLists } from './session-lists';

/** Lists whose reads the test finishes: each read answers the number of writes made before it started. */
function lists(soleWriter: () => number | undefined) {
  let writes = 0;
  const started: { finish: () => void }[] = [];
  const kept = new KeptSessionLists(
    () =>
      new Promise<SerializedJson<Session[]>>((resolve) => {
        const seen = writes;
        started.push({ finish: () => resolve(SerializedJson.ofJson(`[${seen}]`)) });
      }),
    soleWriter,
  );
  /** The list's text, once every read started has finished. */
  const text = async (list: Promise<SerializedJson<Session[]>>) => {
    await Promise.resolve();
    started.forEach((read) => read.finish());
    return (await list).bytes.toString();
  };
  return { kept, started, text, write: () => writes++ };
}

describe('KeptSessionLists', () => {
  it('answers from the kept list until a session of the project is written here', async () => {
    const db = lists(() => 0);
    expect(await db.text(db.kept.list('p'))).toBe('[0]');
    expect(await db.text(db.kept.list('p'))).toBe('[0]');
    expect(db.started).toHaveLength(1);
    db.write();
    db.kept.changed('p');
    expect(await db.text(db.kept.list('p'))).toBe('[1]');
    expect(db.started).toHaveLength(2);
  });

  it('does not keep a list read while a session of the project was written', async () => {
    const db = lists(() => 0);
    const during = db.kept.list('p');
    db.write();
    db.kept.changed('p');
    expect(await db.text(during)).toBe('[0]');
    expect(await db.text(db.kept.list('p'))).toBe('[1]');
    expect(db.started).toHaveLength(2);
  });

  it('reads every time while another process may write, and again once the sole writer has changed', async () => {
    let soleWriter: number | undefined;
    const db = lists(() => soleWriter);
    await db.text(db.kept.list('p'));
    await db.text(db.kept.list('p'));
    expect(db.started).toHaveLength(2);

    soleWriter = 1;
    await db.text(db.kept.list('p'));
    await db.text(db.kept.list('p'));
    expect(db.started).toHaveLength(3);

    // Another replica was heard (and may have written), then fell silent again.
    db.write();
    soleWriter = 2;
    expect(await db.text(db.kept.list('p'))).toBe('[1]');
    expect(db.started).toHaveLength(4);
  });

  it('does not keep a list read while the sole writer changed', async () => {
    let soleWriter: number | undefined = 1;
    const db = lists(() => soleWriter);
    const during = db.kept.list('p');
    soleWriter = undefined;
    await db.text(during);
    soleWriter = 1;
    await db.text(db.kept.list('p'));
    expect(db.started).toHaveLength(2);
  });
});
