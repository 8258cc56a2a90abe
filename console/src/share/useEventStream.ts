import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { authHeaders } from '../api/client';

/**
 * Keeps the query cache fresh from /global/event. EventSource cannot send an Authorization header,
 * so the stream is read with fetch; a dropped stream is reopened after a pause.
 */
export function useEventStream(): void {
  const queryClient = useQueryClient();
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
      let type = '';
      try {
        type = (JSON.parse(data) as { type?: string; payload?: { type?: string } }).payload?.type ?? '';
      } catch {
        return;
      }
      if (type === 'server.heartbeat' || type === 'server.connected') return;
      // Routing-manager changes have no event of their own yet; other events refresh the routing queries.
      void queryClient.invalidateQueries({ queryKey: ['routing'] });
    }
    void follow();
    return () => controller.abort();
  }, [queryClient]);
}
