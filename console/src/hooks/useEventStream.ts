import { useEffect } from 'react';
import { authHeaders } from '../api/client';
import { readEvents } from '../conversation/model';

export interface ServerEvent {
  type: string;
  properties: unknown;
}

/** Every event of the stream, for pages that apply events themselves (`'server-event'`, a CustomEvent<ServerEvent>). */
export const serverEvents = new EventTarget();

/**
 * Reads the event stream at `url` into `onEvent` until `signal` aborts. EventSource cannot send an
 * Authorization header, so the stream is read with fetch; a dropped stream is reopened after a pause.
 */
export async function followEvents<T>(url: string, signal: AbortSignal, onEvent: (event: T) => void) {
  while (!signal.aborted) {
    try {
      const response = await fetch(url, { headers: authHeaders(), signal });
      if (!response.ok) throw new Error(`event stream answered ${response.status}`);
      await readEvents<T>(response, onEvent);
    } catch {
      if (signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/**
 * Follows /global/event and hands each event to `serverEvents`, whose listeners (each feature's) keep
 * the query cache fresh.
 */
export function useEventStream(): void {
  useEffect(() => {
    const controller = new AbortController();
    void followEvents<{ payload?: { type?: string; properties?: unknown } }>(
      '/global/event',
      controller.signal,
      ({ payload }) => {
        const type = payload?.type ?? '';
        if (type === 'server.heartbeat' || type === 'server.connected') return;
        serverEvents.dispatchEvent(
          new CustomEvent<ServerEvent>('server-event', { detail: { type, properties: payload?.properties } }),
        );
      },
    );
    return () => controller.abort();
  }, []);
}
