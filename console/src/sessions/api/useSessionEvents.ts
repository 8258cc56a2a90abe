import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { followEvents } from '../../hooks/useEventStream';
import { applyEvent, eventSessionID } from '../../conversation/model';
import type { MessageEntry, Permission, Session, SessionEvent } from '../../conversation/model';
import { sessionKeys } from './keys';

/**
 * Follows one directory's /event stream and writes what it says into the query cache: streamed
 * parts land in the session's messages as they arrive, without refetching. A dropped stream is
 * reopened and refetches.
 */
export function useSessionEvents(directory: string | undefined): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!directory) return;
    const controller = new AbortController();
    const dir = directory;
    let connectedBefore = false;
    // Message events (a streamed reply sends hundreds a second) are applied once per frame, in order:
    // one cache write and one render for all the deltas that arrived since the last paint.
    const pending = new Map<string, SessionEvent[]>();
    let cancel: (() => void) | undefined;
    function flush(): void {
      cancel = undefined;
      for (const [sessionID, events] of pending)
        queryClient.setQueriesData<MessageEntry[]>(
          { queryKey: sessionKeys.messages(dir, sessionID) },
          (old) => (old ? events.reduce(applyEvent, old) : old),
        );
      pending.clear();
    }
    function onEvent(event: SessionEvent): void {
      const p = event.properties;
      const sessionID = eventSessionID(event);
      if (event.type.startsWith('message.') && sessionID) {
        const queued = pending.get(sessionID);
        if (queued) queued.push(event);
        else pending.set(sessionID, [event]);
        // A hidden tab gets no animation frames: there the events are applied on the next task.
        if (!cancel) {
          if (document.hidden) {
            const timer = window.setTimeout(flush, 0);
            cancel = () => clearTimeout(timer);
          } else {
            const frame = requestAnimationFrame(flush);
            cancel = () => cancelAnimationFrame(frame);
          }
        }
        return;
      }
      switch (event.type) {
        case 'server.connected':
          // After a gap (not on the first connection), what was missed is fetched again.
          if (connectedBefore) void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
          connectedBefore = true;
          return;
        case 'session.created':
        case 'session.updated':
        case 'session.deleted': {
          const info = p.info as Session;
          if (event.type === 'session.deleted')
            queryClient.removeQueries({ queryKey: sessionKeys.session(dir, info.id) });
          else queryClient.setQueryData(sessionKeys.session(dir, info.id), info);
          queryClient.setQueryData<Session[]>(sessionKeys.list(dir), (old) => {
            if (!old) return old;
            const rest = old.filter((s) => s.id !== info.id);
            return event.type === 'session.deleted' ? rest : [info, ...rest];
          });
          return;
        }
        case 'permission.updated':
          queryClient.setQueryData<Permission[]>(sessionKeys.permissions, (old) => [
            ...(old ?? []).filter((x) => x.id !== (p as unknown as Permission).id),
            p as unknown as Permission,
          ]);
          return;
        case 'permission.replied':
          queryClient.setQueryData<Permission[]>(sessionKeys.permissions, (old) =>
            (old ?? []).filter((x) => x.id !== p.permissionID),
          );
          return;
        case 'todo.updated':
          if (sessionID) queryClient.setQueryData(sessionKeys.todos(dir, sessionID), p.todos);
          return;
        case 'session.diff':
          if (sessionID) queryClient.setQueryData(sessionKeys.diff(dir, sessionID), p.diff);
          return;
        case 'session.status':
        case 'session.idle':
          void queryClient.invalidateQueries({ queryKey: sessionKeys.status(dir) });
          return;
      }
    }
    void followEvents(`/event?directory=${encodeURIComponent(dir)}`, controller.signal, onEvent);
    return () => {
      controller.abort();
      cancel?.();
    };
  }, [directory, queryClient]);
}
