import { useEffect } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import type { Middleware } from 'openapi-fetch';
import { api, ApiError, authHeaders, errorMessage } from '../api/client';
import type { components } from '../api/schema';
import { serverEvents, type ServerEvent } from '../share/useEventStream';

export type DocumentSummary = components['schemas']['DocumentSummary'];
export type MemoryEntry = components['schemas']['MemoryEntryView'];
export type MemoryVersion = components['schemas']['MemoryView'];

export const STATUSES = [
  'queued',
  'extracting',
  'chunking',
  'embedding',
  'indexing',
  'done',
  'failed',
] as const;
export const DOCUMENT_TYPES = ['text', 'webpage', 'pdf'] as const;

// The memory surface takes an API key, not the server password (design.md §1). When the server has
// keys, the console asks for one and keeps it like the password: in sessionStorage, gone with the tab,
// sent only to this origin's /v3 and /v4 as x-api-key (never in a URL).
const API_KEY = 'keel.memory-api-key';

export function storedApiKey(): string | null {
  return sessionStorage.getItem(API_KEY);
}

export function storeApiKey(key: string): void {
  sessionStorage.setItem(API_KEY, key);
}

export function clearApiKey(): void {
  sessionStorage.removeItem(API_KEY);
}

/** Headers for a memory-surface request made with fetch (uploads, curl previews). */
export function memoryHeaders(): Record<string, string> {
  const key = storedApiKey();
  return key ? { ...authHeaders(), 'x-api-key': key } : authHeaders();
}

const apiKeyMiddleware: Middleware = {
  onRequest({ request }) {
    const key = storedApiKey();
    const path = new URL(request.url).pathname;
    if (key && (path.startsWith('/v3/') || path.startsWith('/v4/'))) request.headers.set('x-api-key', key);
    return request;
  },
};
api.use(apiKeyMiddleware);

/** The documents page's first request (newest first, 25 a page): the probe below asks exactly it. */
export const FIRST_DOCUMENTS_PAGE = { page: 1, limit: 25, sort: 'createdAt', order: 'desc' } as const;
export const documentsListKey = (body: object) => ['memory', 'documents', 'list', body];

const listFirstPage = () => api.POST('/v3/documents/list', { body: FIRST_DOCUMENTS_PAGE });
let earlyProbe: ReturnType<typeof listFirstPage> | undefined;

/** Sends the probe below now (the tab was opened on a memory page), for the next probe to take its answer. */
export function probeMemoryEarly(): void {
  earlyProbe ??= listFirstPage();
}

/**
 * Whether the memory surface accepts the console's credentials as they are. The probe is the documents
 * page's first request, and its answer goes into the cache, so the default page shows without another round trip.
 */
export async function probeMemory(queryClient: QueryClient): Promise<'ok' | 'unauthorized'> {
  const asked = earlyProbe ?? listFirstPage();
  earlyProbe = undefined;
  const { data, response } = await asked;
  if (data) queryClient.setQueryData(documentsListKey(FIRST_DOCUMENTS_PAGE), data);
  return response.status === 401 ? 'unauthorized' : 'ok';
}

/** `{error, details}` of the memory surface, as one line a form can show. */
export function memoryErrorText(error: unknown): string {
  const body = error instanceof ApiError ? error.body : error;
  if (body && typeof body === 'object') {
    const e = body as { error?: unknown; details?: unknown };
    if (typeof e.details === 'string' && e.details)
      return `${typeof e.error === 'string' ? e.error : 'Error'}: ${e.details}`;
  }
  return errorMessage(body);
}

export interface DocumentStatusEvent {
  id: string;
  customId: string | null;
  status: string;
  dreamingStatus: string;
  error?: string;
  time: string;
}

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

export function seenTransitions(id: string): DocumentStatusEvent[] {
  return transitions.get(id) ?? [];
}

/** A request as a `curl` command line, with the key shown as a variable rather than its value. */
export function curlCommand(path: string, body: unknown): string {
  const key = storedApiKey() ? ` \\\n  -H "x-api-key: $KEEL_API_KEY"` : '';
  const json = JSON.stringify(body, null, 2).replace(/'/g, `'\\''`);
  return `curl -X POST '${window.location.origin}${path}' \\\n  -H 'content-type: application/json'${key} \\\n  -d '${json}'`;
}

/** The same request with the supermemory SDK. */
export function sdkCommand(method: 'search.documents' | 'search', body: unknown): string {
  return `import Supermemory from 'supermemory';\n\nconst client = new Supermemory({ apiKey: process.env.KEEL_API_KEY, baseURL: '${window.location.origin}' });\nconst answer = await client.${method}(${JSON.stringify(body, null, 2)});`;
}
