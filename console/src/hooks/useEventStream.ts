import { useEffect } from 'react';
import { authHeaders } from '../api/client';

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
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            const frames = buffer.split('\n\n');
            buffer = frames.pop() ?? '';
            for (const frame of frames) onFrame(frame);
          }
        } catch {
          if (controller.signal.aborted) return;
        }
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
    function onFrame(frame: string): void {
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      if (!data) return;
      let payload: { type?: string; properties?: unknown } | undefined;
      try {
        payload = (JSON.parse(data) as { payload?: { type?: string; properties?: unknown } }).payload;
      } catch {
        return;
      }
      const type = payload?.type ?? '';
      if (type === 'server.heartbeat' || type === 'server.connected') return;
      serverEvents.dispatchEvent(
        new CustomEvent<ServerEvent>('server-event', { detail: { type, properties: payload?.properties } }),
      );
    }
    void follow();
    return () => controller.abort();
  }, []);
}
