import { keepJson, knownJson } from '../common/serialized-json';
import type { EventPayload, GlobalEnvelope } from './event-bus.service';
import { envelopeJsonOf, eventFrame, globalFrame, jsonOf } from './event-frames';

describe('event frames', () => {
  const partUpdate = (id: string, text: string, delta?: string, extra: Record<string, unknown> = {}): EventPayload => ({
    type: 'message.part.updated',
    properties: { part: { id, sessionID: 'ses_1', messageID: 'msg_1', type: 'text', text, time: { start: 1 }, ...extra }, ...(delta === undefined ? {} : { delta }) },
  });

  it('is exactly JSON.stringify of a streamed text, whatever the deltas hold', () => {
    // Quotes, escapes, control characters, non-ASCII, a surrogate pair split across deltas, a lone surrogate.
    const deltas = ['He', 'llo "x"', '\\n\n\t', '\u0001é中', '\ud83d', '\ude00', ' ok', '\udc00', '\ud800', 'z', ''];
    let text = '';
    for (const delta of deltas) {
      text += delta;
      const payload = partUpdate('prt_a', text, delta);
      expect(jsonOf(payload)).toBe(JSON.stringify(payload));
      expect(eventFrame(payload)).toBe(`data: ${JSON.stringify(payload)}\n\n`);
    }
    const final = partUpdate('prt_a', text, undefined, { time: { start: 1, end: 2 } });
    expect(jsonOf(final)).toBe(JSON.stringify(final));
  });

  it('is exact when a text does not extend the previous one, or a field holds the placeholder', () => {
    for (const [text, delta] of [
      ['abc', 'c'],
      ['xyz', 'z'],
      ['x', 'x'],
      ['xyz and more', ' and more'],
    ]) {
      const payload = partUpdate('prt_b', text, delta);
      expect(jsonOf(payload)).toBe(JSON.stringify(payload));
    }
    const tricky = partUpdate('prt_c', 'text', 'delta \u0000keel:text\u0000', { title: '\u0000keel:text\u0000' });
    expect(jsonOf(tricky)).toBe(JSON.stringify(tricky));
  });

  it('wraps the payload JSON in the global envelope exactly as JSON.stringify does', () => {
    const payload = partUpdate('prt_d', 'hi', 'hi');
    const envelopes: GlobalEnvelope[] = [
      { directory: '/tmp/a "b"', payload },
      { payload: { type: 'project.updated', properties: { name: 'é' } } },
      { directory: undefined, payload },
      { directory: '/tmp/a', project: '4b825dc6 "q"', payload },
      { directory: '/tmp/a', project: undefined, payload },
      { payload: { type: 'session.abort', properties: {} }, signal: true },
    ];
    for (const envelope of envelopes) {
      expect(envelopeJsonOf(envelope)).toBe(JSON.stringify(envelope));
      expect(globalFrame(envelope)).toBe(`data: ${JSON.stringify(envelope)}\n\n`);
    }
  });

  it('serialises a payload once, so later changes to its objects do not alter its frame', () => {
    const properties = { info: { id: 'msg_1', cost: 0 } };
    const payload: EventPayload = { type: 'message.updated', properties };
    const first = eventFrame(payload);
    properties.info.cost = 1;
    expect(eventFrame(payload)).toBe(first);
  });

  it('keeps its JSON out of what the event shows: its keys, its JSON, and a copy made by spreading it', () => {
    const payload: EventPayload = { type: 'session.updated', properties: { sessionID: 'ses_1' } };
    const envelope: GlobalEnvelope = { directory: '/tmp/a', payload };
    const json = envelopeJsonOf(envelope);
    expect(Object.keys(envelope)).toEqual(['directory', 'payload']);
    expect(JSON.stringify(envelope)).toBe(json);
    // A copy with another payload (the relay's delta form) is serialised afresh, not served the original's JSON.
    const copy = { ...envelope, payload: { ...payload, type: 'session.deleted' } };
    expect(envelopeJsonOf(copy)).toBe(JSON.stringify(copy));
    expect(jsonOf(copy.payload)).toBe(JSON.stringify(copy.payload));
  });

  it('builds a payload around the kept JSON of its values, to the byte of JSON.stringify', () => {
    const info = keepJson({ id: 'ses_1', title: 'a "quoted" é title', time: { created: 1 }, tokens: { input: 0 } });
    const payloads: EventPayload[] = [
      { type: 'session.created', properties: { sessionID: 'ses_1', info } },
      { type: 'session.updated', properties: { info, gone: undefined, call: () => 1, list: [undefined, 1], 'odd "key"': null } },
      { type: 'x', properties: { info, at: new Date(0) } },
    ];
    for (const payload of payloads) expect(jsonOf(payload)).toBe(JSON.stringify(payload));
    expect(knownJson(info)).toBe(JSON.stringify(info));
    // The kept JSON is what goes: a value changed after it was kept (which its owner must not do) keeps its old bytes.
    info.title = 'changed';
    const later: EventPayload = { type: 'session.updated', properties: { info } };
    expect(jsonOf(later)).toContain('"title":"a \\"quoted\\" é title"');
  });

  it('serialises afresh what it cannot build exactly around a kept value', () => {
    const info = keepJson({ id: 'ses_1' });
    const withToJson = { type: 'x', properties: { info, toJSON: () => 'replaced' } };
    const extraKey = { type: 'x', properties: { info }, extra: 1 };
    expect(jsonOf(withToJson)).toBe(JSON.stringify(withToJson));
    expect(jsonOf(extraKey as EventPayload)).toBe(JSON.stringify(extraKey));
  });
});
