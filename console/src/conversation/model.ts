import type { components } from '../api/schema';

export type Session = components['schemas']['Session'];
type Message = components['schemas']['Message'];
export type AssistantMessage = components['schemas']['AssistantMessage'];
export type Part = components['schemas']['Part'];
export type Permission = components['schemas']['Permission'];

export interface MessageEntry {
  info: Message;
  parts: Part[];
}

/** A `{type, properties}` event of /event (or a share's /event). */
export interface SessionEvent {
  type: string;
  properties: Record<string, unknown>;
}

/**
 * `list` with `item` in place of the one of the same id, or inserted in id order: ids are ascending
 * (time-ordered), so plain string order is creation order.
 */
function upsert<T>(list: T[], item: T, idOf: (x: T) => string): T[] {
  const id = idOf(item);
  const index = list.findIndex((x) => idOf(x) === id);
  if (index >= 0) {
    const next = list.slice();
    next[index] = item;
    return next;
  }
  let at = list.length;
  while (at > 0 && idOf(list[at - 1]) > id) at--;
  return [...list.slice(0, at), item, ...list.slice(at)];
}

const upsertByInfo = (messages: MessageEntry[], entry: MessageEntry) =>
  upsert(messages, entry, (m) => m.info.id);

/** The session an event is about (every shape /event uses), or undefined. */
export function eventSessionID(event: SessionEvent): string | undefined {
  const p = event.properties as {
    sessionID?: unknown;
    info?: { id?: unknown; sessionID?: unknown };
    part?: { sessionID?: unknown };
  };
  if (typeof p.sessionID === 'string') return p.sessionID;
  if (typeof p.part?.sessionID === 'string') return p.part.sessionID;
  if (event.type.startsWith('session.') && typeof p.info?.id === 'string') return p.info.id;
  if (typeof p.info?.sessionID === 'string') return p.info.sessionID;
  return undefined;
}

/**
 * The messages of one session after `event` (the same list when the event changes nothing). A
 * streamed part carries its whole text so far, so a delta needs no bookkeeping here.
 */
export function applyEvent(messages: MessageEntry[], event: SessionEvent): MessageEntry[] {
  const p = event.properties;
  switch (event.type) {
    case 'message.updated': {
      const info = p.info as Message;
      const existing = messages.find((m) => m.info.id === info.id);
      return upsertByInfo(messages, { info, parts: existing?.parts ?? [] });
    }
    case 'message.removed':
      return messages.filter((m) => m.info.id !== p.messageID);
    case 'message.part.updated': {
      const part = p.part as Part;
      const entry = messages.find((m) => m.info.id === part.messageID);
      if (!entry) return messages;
      return upsertByInfo(messages, { info: entry.info, parts: upsert(entry.parts, part, (x) => x.id) });
    }
    case 'message.part.removed': {
      const entry = messages.find((m) => m.info.id === p.messageID);
      if (!entry) return messages;
      return upsertByInfo(messages, {
        info: entry.info,
        parts: entry.parts.filter((x) => x.id !== p.partID),
      });
    }
    default:
      return messages;
  }
}

/** Header figures: the last model used, tokens and cost summed over the assistant turns. */
export function totals(messages: MessageEntry[]): { model?: string; tokens: number; cost: number } {
  let model: string | undefined;
  let tokens = 0;
  let cost = 0;
  for (const { info } of messages) {
    if (info.role !== 'assistant') continue;
    model = `${info.providerID}/${info.modelID}`;
    cost += info.cost ?? 0;
    const t = info.tokens;
    tokens += t.input + t.output + t.reasoning + t.cache.read + t.cache.write;
  }
  return { model, tokens, cost };
}

/** Reads a data-only SSE response, calling `onEvent` per frame; resolves when the stream ends. */
export async function readEvents<T>(response: Response, onEvent: (event: T) => void): Promise<void> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    const frames = buffer.split('\n\n');
    buffer = frames.pop() ?? '';
    for (const frame of frames) {
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      if (!data) continue;
      try {
        onEvent(JSON.parse(data) as T);
      } catch {
        // a malformed frame is skipped, the stream goes on
      }
    }
  }
}
