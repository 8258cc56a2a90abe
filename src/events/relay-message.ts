import type { GlobalEnvelope } from './event-bus.service';
import { streamedText } from './event-frames';

/** What one replica NOTIFYs the others. */
export interface RelayMessage {
  origin: string;
  /** Per origin, consecutive from 1: receivers deliver each origin's messages in this order, once. */
  seq?: number;
  envelope?: GlobalEnvelope;
  /** The envelope is a streamed part update whose text is the receiver's text of that part (`base` chars) + delta. */
  appended?: { base: number };
  /** The message is in `relayed_event` (too large for NOTIFY). */
  ref?: number;
  /** When the origin published it (epoch ms). */
  at?: number;
  /** The origin's latest seq, announced every HEAD_EVERY_MS so a receiver notices what it missed. */
  head?: number;
  /** Asks each origin named to send again its messages after the seq given. */
  resend?: Record<string, number>;
}

/** What the relay's sending and receiving sides need from its connections (held by EventRelay). */
export interface RelayLink {
  /** This replica's origin id. */
  readonly origin: string;
  /** False between a lost connection and the reconnect that replaces it. */
  isConnected(): boolean;
  /** False while no other replica has been heard lately: events are then kept, not sent. */
  hasPeers(): boolean;
  /** A statement on the sending connection. */
  send<R extends Record<string, unknown>>(sql: string, params: unknown[]): Promise<{ rows: R[] }>;
  /** A statement on the listening connection (in the receive order). */
  fetch<R extends Record<string, unknown>>(sql: string, params: unknown[]): Promise<{ rows: R[] }>;
  /** NOTIFY the payloads in one statement, in order. */
  notify(payloads: string[]): Promise<void>;
  /** Queues a send behind the others (other replicas see events in publish order). */
  enqueue(task: () => Promise<void>): void;
  /** The connections failed: drop them and reconnect. */
  lost(error: unknown): void;
}

/** Messages sent per NOTIFY statement. */
export const BATCH_MESSAGES = 500;
/** Streaming parts tracked per side; a part's final update (no delta) ends its tracking. */
export const MAX_STREAMING_PARTS = 256;

export interface StreamingPart {
  part: { id: string; text: string };
  delta: string;
}

/** The part and delta of a streamed `message.part.updated`, else undefined. */
export function streaming(envelope: GlobalEnvelope): StreamingPart | undefined {
  return streamedText(envelope.payload) === undefined
    ? undefined
    : (envelope.payload.properties as StreamingPart);
}

export function isPartUpdate(envelope: GlobalEnvelope): envelope is GlobalEnvelope<{ part?: { id?: string } }> {
  return envelope.payload.type === 'message.part.updated';
}

/** Insertion-ordered map that forgets its oldest entry past `limit`. */
export function remember<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  if (map.size >= limit) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** How an origin's messages start (a replica's own come back through LISTEN and are skipped unparsed). */
export function originPrefix(origin: string): string {
  return `{"origin":${JSON.stringify(origin)},`;
}

/** True for errors of a lost connection (as opposed to a statement PostgreSQL refused). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code !== 'string' || code.startsWith('08') || code.startsWith('57P');
}
