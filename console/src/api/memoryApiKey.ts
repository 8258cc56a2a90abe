import type { QueryClient } from '@tanstack/react-query';
import type { Middleware } from 'openapi-fetch';
import { api, authHeaders } from './client';

// The memory surface takes an API key, not the server password (design.md §1). When the server has
// keys, the console asks for one and keeps it like the password: in sessionStorage, gone with the tab,
// sent only to this origin's /v3 and /v4 as x-api-key (never in a URL).
const API_KEY = 'keel.memory-api-key';

/** The root of every cached memory-surface answer: each was read with the key in use then. */
export const memoryQueryRoot = ['memory'] as const;

export function storedApiKey(): string | null {
  return sessionStorage.getItem(API_KEY);
}

export function storeApiKey(key: string): void {
  sessionStorage.setItem(API_KEY, key);
}

export function clearApiKey(): void {
  sessionStorage.removeItem(API_KEY);
}

/** Use `key` from now on: what was read with the previous one is dropped from the cache. */
export function switchMemoryApiKey(queryClient: QueryClient, key: string): void {
  storeApiKey(key);
  queryClient.removeQueries({ queryKey: memoryQueryRoot });
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
