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
 * Follows /global/event and hands each event to `serverEvents`, whose listeners (each feature's) keep
 * the query cache fresh. EventSource cannot send an Authorization header, so the stream is read with
 * fetch; a dropped stream is reopened after a pause.
 */
export function useEventStream(): void {
  useEffect(() => {
    const controller = new AbortController();
    async function follow(): Promise<void> {
      while (!controller.signal.aborted) {
        try {
          const response = await fetch('/global/event', {
            headers: authHeaders(),
            signal: controller.signal,
          });
          if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
          await readEvents<{ payload?: { type?: string; properties?: unknown } }>(response, ({ payload }) => {
            const type = payload?.type ?? '';
            if (type === 'server.heartbeat' || type === 'server.connected') return;
            serverEvents.dispatchEvent(
              new CustomEvent<ServerEvent>('server-event', {
                detail: { type, properties: payload?.properties },
              }),
            );
          });
        } catch {
          if (controller.signal.aborted) return;
        }
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
    void follow();
    return () => controller.abort();
  }, []);
}
