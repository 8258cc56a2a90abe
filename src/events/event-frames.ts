import { cachedJson, knownJson } from '../common/serialized-json';
import type { EventPayload, GlobalEnvelope } from './event-bus.service';

/**
 * The JSON of published events, built once per event however many streams (and the relay) carry
 * it: cached on the payload object (`cachedJson`), and `/global/event` frames wrap that same JSON.
 * A property value whose JSON is already kept (`keepJson`, e.g. a new session's info, sent in two
 * events and the response) is not serialised again. The bytes are exactly `JSON.stringify(payload)`
 * / `JSON.stringify(envelope)`.
 *
 * A streamed `message.part.updated` carries the whole part, whose text grows by one delta per
 * event (the reference wire format), so re-escaping it each time costs O(n²) per reply. The JSON
 * of each streaming part's text is kept, and when the new text extends it only the added tail
 * is escaped.
 */
/** Streaming parts whose text JSON is kept; final updates (no delta) release theirs. */
const MAX_STREAMING_PARTS = 256;
const streamingTexts = new Map<string, { text: string; json: string }>();
const TEXT_MARK = '\u0000keel:text\u0000';
const TEXT_MARK_JSON = JSON.stringify(TEXT_MARK);

interface PartProperties {
  part?: { id?: unknown; text?: unknown };
  delta?: unknown;
}

/** `JSON.stringify(payload)`, computed once per payload object. */
export function jsonOf(payload: EventPayload): string {
  return cachedJson(payload, serialize);
}

/** `JSON.stringify(envelope)`, sharing the payload's JSON. */
export function envelopeJsonOf(envelope: GlobalEnvelope): string {
  return cachedJson(envelope, serializeEnvelope);
}

function serializeEnvelope(envelope: GlobalEnvelope): string {
  const keys = Object.keys(envelope).join(',');
  const plain = keys === 'payload' || keys === 'directory,payload' || keys === 'directory,project,payload';
  if (!plain) return JSON.stringify(envelope);
  const payload = jsonOf(envelope.payload);
  const directory = envelope.directory === undefined ? '' : `"directory":${JSON.stringify(envelope.directory)},`;
  const project = envelope.project === undefined ? '' : `"project":${JSON.stringify(envelope.project)},`;
  return `{${directory}${project}"payload":${payload}}`;
}

/** The data-only SSE frame of a payload (`/event`). */
export function eventFrame(payload: EventPayload): string {
  return `data: ${jsonOf(payload)}\n\n`;
}

/** The data-only SSE frame of an envelope (`/global/event`). */
export function globalFrame(envelope: GlobalEnvelope): string {
  return `data: ${envelopeJsonOf(envelope)}\n\n`;
}

/** The text of a streamed part update, when the payload is one (for size estimates without serialising). */
export function streamedText(payload: EventPayload): string | undefined {
  if (payload.type !== 'message.part.updated') return undefined;
  const properties = payload.properties as PartProperties;
  return typeof properties.delta === 'string' && typeof properties.part?.text === 'string' ? properties.part.text : undefined;
}

function serialize(payload: EventPayload): string {
  if (payload.type !== 'message.part.updated') return withKnownValues(payload) ?? JSON.stringify(payload);
  const part = (payload.properties as PartProperties).part;
  if (typeof part?.id !== 'string') return JSON.stringify(payload);
  const text = streamedText(payload);
  if (text === undefined) {
    streamingTexts.delete(part.id);
    return JSON.stringify(payload);
  }
  const json = JSON.stringify({ ...payload, properties: { ...(payload.properties as object), part: { ...part, text: TEXT_MARK } } });
  const at = json.indexOf(TEXT_MARK_JSON);
  if (at < 0 || json.indexOf(TEXT_MARK_JSON, at + 1) >= 0) return JSON.stringify(payload);
  return json.slice(0, at) + textJson(part.id, text) + json.slice(at + TEXT_MARK_JSON.length);
}

/**
 * `JSON.stringify(payload)` built around the kept JSON of its properties' values, when one of them
 * has it (undefined otherwise). Only plain `{type, properties}` payloads, whose properties are a
 * plain object without `toJSON`.
 */
function withKnownValues(payload: EventPayload): string | undefined {
  const properties = payload.properties;
  if (typeof properties !== 'object' || properties === null || Object.getPrototypeOf(properties) !== Object.prototype)
    return undefined;
  const values = properties as Record<string, unknown>;
  const keys = Object.keys(values);
  if (!keys.some((key) => knownJson(values[key]) !== undefined)) return undefined;
  const payloadKeys = Object.keys(payload);
  if (payloadKeys.length !== 2 || payloadKeys[0] !== 'type' || keys.includes('toJSON')) return undefined;
  let members = '';
  for (const key of keys) {
    const json = knownJson(values[key]) ?? JSON.stringify(values[key]);
    // JSON.stringify leaves out what has no JSON (undefined, functions, symbols).
    if (json !== undefined) members += `${members === '' ? '' : ','}${JSON.stringify(key)}:${json}`;
  }
  return `{"type":${JSON.stringify(payload.type)},"properties":{${members}}}`;
}

/** `JSON.stringify(text)`, escaping only what was appended since this part's previous update. */
function textJson(partID: string, text: string): string {
  const previous = streamingTexts.get(partID);
  let json: string;
  if (previous && text.length >= previous.text.length && text.startsWith(previous.text)) {
    json = previous.json.slice(0, -1) + JSON.stringify(text.slice(previous.text.length)).slice(1);
  } else {
    json = JSON.stringify(text);
  }
  streamingTexts.delete(partID);
  // A trailing lone high surrogate is escaped on its own but not once its pair arrives: start over then.
  const last = text.charCodeAt(text.length - 1);
  if (!(last >= 0xd800 && last <= 0xdbff)) {
    if (streamingTexts.size >= MAX_STREAMING_PARTS) streamingTexts.delete(streamingTexts.keys().next().value!);
    streamingTexts.set(partID, { text, json });
  }
  return json;
}
