import { get, IncomingMessage } from 'node:http';
import { startAssistantHarness, AssistantHarness } from './support/assistant-harness';

/** A client that stops reading /event while a long reply streams, then catches up. */
describe('event streams: a client that falls behind a streamed reply', () => {
  let harness: AssistantHarness;

  beforeAll(async () => {
    harness = await startAssistantHarness({ prefix: 'keel-backlog-' });
  });
  afterAll(() => harness.close());

  it('gets every delta once, in order, each frame with the text as it was then', async () => {
    const { client, keel, dir, scripted, events } = harness;
    const { data: session } = await client.session.create();
    const sessionID = session!.id;
    // ~4 MB of frames (each carries the whole text so far): far more than socket buffers hold.
    const chunks = Array.from({ length: 400 }, (_, i) => `chunk ${i} "${'x'.repeat(40)}" é😀\n`);
    scripted.reply({ steps: chunks.map((text) => ({ text })) });

    const slow = await new Promise<IncomingMessage>((resolve) => get(`${keel.url}/event?directory=${encodeURIComponent(dir)}`, resolve));
    slow.pause();
    const { response } = await client.session.promptAsync({ sessionID, parts: [{ type: 'text', text: 'go' }] });
    expect(response.status).toBe(204);
    await events.next((f) => f.type === 'session.idle' && f.properties.sessionID === sessionID, 30_000);

    const frames: any[] = [];
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      slow.setEncoding('utf8');
      slow.on('data', (text: string) => {
        buffer += text;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = JSON.parse(buffer.slice('data: '.length, end));
          buffer = buffer.slice(end + 2);
          frames.push(frame);
          if (frame.type === 'session.idle' && frame.properties.sessionID === sessionID) resolve();
        }
      });
      slow.on('error', reject);
      slow.on('close', () => reject(new Error('the server dropped the slow client')));
      slow.resume();
    });
    slow.destroy();

    const textUpdates = frames.filter((f) => f.type === 'message.part.updated' && f.properties.part.type === 'text');
    const deltas = textUpdates.filter((f) => f.properties.delta !== undefined);
    expect(deltas.map((f) => f.properties.delta)).toEqual(chunks);
    let text = '';
    for (const frame of deltas) {
      text += frame.properties.delta;
      expect(frame.properties.part.text).toBe(text);
      expect(frame.properties.part.time.end).toBeUndefined();
    }
    const final = textUpdates.at(-1);
    expect(final.properties.delta).toBeUndefined();
    expect(final.properties.part).toMatchObject({ text: text.trimEnd(), time: { end: expect.any(Number) } });
    // The fast client saw the same frames.
    const seen = events.frames.filter((f: any) => f.type === 'message.part.updated' && f.properties.part.sessionID === sessionID && f.properties.part.type === 'text');
    expect(seen).toEqual(textUpdates);
  });
});
