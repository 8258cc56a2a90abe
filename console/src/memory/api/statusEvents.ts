import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { components } from '../../api/schema';
import { serverEvents, type ServerEvent } from '../../hooks/useEventStream';
import type { DocumentListAnswer } from './documents';
import { memoryKeys } from './keys';

/** A `memory.document.status` event's properties, as /doc declares them. */
export type DocumentStatusEvent = components['schemas']['DocumentStatusEvent'];

/** Calls `onStatus` for each pipeline transition the server publishes on /global/event. */
export function useDocumentStatusEvents(onStatus: (event: DocumentStatusEvent) => void): void {
  useEffect(() => {
    const listener = (event: Event) => {
      const detail = (event as CustomEvent<ServerEvent>).detail;
      if (detail.type === 'memory.document.status') onStatus(detail.properties as DocumentStatusEvent);
    };
    serverEvents.addEventListener('server-event', listener);
    return () => serverEvents.removeEventListener('server-event', listener);
  }, [onStatus]);
}

/** Transitions seen by this tab, per document (the server keeps only the current status). */
const transitions = new Map<string, DocumentStatusEvent[]>();
serverEvents.addEventListener('server-event', (event) => {
  const detail = (event as CustomEvent<ServerEvent>).detail;
  if (detail.type !== 'memory.document.status') return;
  const status = detail.properties as DocumentStatusEvent;
  const seen = transitions.get(status.id) ?? [];
  seen.push(status);
  transitions.set(status.id, seen.slice(-50));
});

function seenTransitions(id: string): DocumentStatusEvent[] {
  return transitions.get(id) ?? [];
}

/**
 * Live status on the documents list: a transition updates the row in place; a document the list does
 * not show yet (just added, or now matching a status filter) refreshes the lists, at most once a second.
 */
export function useDocumentListStatus(statusFiltered: boolean): void {
  const queryClient = useQueryClient();
  const refresh = useRef<number | undefined>(undefined);
  const onStatus = useCallback(
    (event: DocumentStatusEvent) => {
      let shown = false;
      queryClient.setQueriesData<DocumentListAnswer>({ queryKey: memoryKeys.documentLists }, (old) => {
        if (!old) return old;
        const memories = old.memories.map((d) => {
          if (d.id !== event.id) return d;
          shown = true;
          return { ...d, status: event.status, error: event.error };
        });
        return { ...old, memories };
      });
      if ((!shown || statusFiltered) && refresh.current === undefined)
        refresh.current = window.setTimeout(() => {
          refresh.current = undefined;
          void queryClient.invalidateQueries({ queryKey: memoryKeys.documentLists });
        }, 1000);
    },
    [queryClient, statusFiltered],
  );
  useDocumentStatusEvents(onStatus);
}

/**
 * One document's transitions seen by this tab, kept current; each refreshes the document (and its
 * chunks once it is done).
 */
export function useDocumentTransitions(id: string): DocumentStatusEvent[] {
  const queryClient = useQueryClient();
  const [transitions, setTransitions] = useState(() => seenTransitions(id));
  const onStatus = useCallback(
    (event: DocumentStatusEvent) => {
      if (event.id !== id) return;
      setTransitions(seenTransitions(id));
      void queryClient.invalidateQueries({ queryKey: memoryKeys.document(id) });
      if (event.status === 'done') void queryClient.invalidateQueries({ queryKey: memoryKeys.chunks(id) });
    },
    [id, queryClient],
  );
  useDocumentStatusEvents(onStatus);
  return transitions;
}
