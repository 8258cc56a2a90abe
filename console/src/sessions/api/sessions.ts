import { keepPreviousData, queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { MessageEntry, Session } from '../../conversation/model';
import { sessionKeys } from './keys';

const sessionListQuery = (directory: string | undefined) =>
  queryOptions({
    queryKey: sessionKeys.list(directory ?? ''),
    enabled: !!directory,
    queryFn: async (): Promise<Session[]> =>
      unwrap(await api.GET('/session', { params: { query: { directory } } })),
  });

export const useSessionList = (directory: string | undefined) => useQuery(sessionListQuery(directory));

/** A session's record (query options shared by the page and the prefetch of an opened tab). */
const sessionQuery = (directory: string, id: string) =>
  queryOptions({
    queryKey: sessionKeys.session(directory, id),
    queryFn: async (): Promise<Session> =>
      unwrap(
        await api.GET('/session/{sessionID}', { params: { path: { sessionID: id }, query: { directory } } }),
      ),
  });

export const useSession = (directory: string, id: string) => useQuery(sessionQuery(directory, id));

/** How many of a session's latest messages a first load asks for; earlier ones come on request. */
export const MESSAGE_PAGE = 100;

/**
 * The last `limit` messages of a session (the API's `limit` is "the last N"). The cache key carries the
 * limit under `sessionKeys.messages`, so the event stream updates whichever page is loaded.
 */
const messagesQuery = (directory: string, id: string, limit = MESSAGE_PAGE) =>
  queryOptions({
    queryKey: [...sessionKeys.messages(directory, id), limit],
    staleTime: Infinity,
    queryFn: async (): Promise<MessageEntry[]> =>
      unwrap(
        await api.GET('/session/{sessionID}/message', {
          params: { path: { sessionID: id }, query: { directory, limit } },
        }),
      ),
  });

export function useMessages(directory: string, id: string, limit = MESSAGE_PAGE) {
  // Asking for more keeps the messages already on screen until the longer page arrives.
  return useQuery({ ...messagesQuery(directory, id, limit), placeholderData: keepPreviousData });
}

/**
 * A tab opened on a session asks for its record and latest messages as soon as it is signed in, beside
 * the page's code rather than after it (the page then renders from the cache in its first frame).
 */
export function prefetchOpenedSession(queryClient: QueryClient): void {
  const match = /\/sessions\/(ses[^/]+)$/.exec(window.location.pathname);
  if (!match) return;
  const id = decodeURIComponent(match[1]);
  const directory = new URLSearchParams(window.location.search).get('directory') ?? '';
  void queryClient.prefetchQuery(sessionQuery(directory, id));
  void queryClient.prefetchQuery(messagesQuery(directory, id));
}

const todosQuery = (directory: string, id: string) =>
  queryOptions({
    queryKey: sessionKeys.todos(directory, id),
    queryFn: async () =>
      unwrap(
        await api.GET('/session/{sessionID}/todo', {
          params: { path: { sessionID: id }, query: { directory } },
        }),
      ),
  });

export const useTodos = (directory: string, id: string) => useQuery(todosQuery(directory, id));

/** The files a session changed; off while `id` is empty (no session chosen). */
const sessionDiffQuery = (directory: string, id: string) =>
  queryOptions({
    queryKey: sessionKeys.diff(directory, id),
    enabled: !!id,
    queryFn: async () =>
      unwrap(
        await api.GET('/session/{sessionID}/diff', {
          params: { path: { sessionID: id }, query: { directory } },
        }),
      ),
  });

export const useSessionDiff = (directory: string, id: string) => useQuery(sessionDiffQuery(directory, id));

const sessionStatusQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.status(directory),
    enabled: !!directory,
    queryFn: async () => unwrap(await api.GET('/session/status', { params: { query: { directory } } })),
  });

export const useSessionStatus = (directory: string) => useQuery(sessionStatusQuery(directory));

/** Shares a session (the answer is the session with its share URL). */
export const shareSession = async (directory: string, sessionID: string) =>
  unwrap(
    await api.POST('/session/{sessionID}/share', { params: { path: { sessionID }, query: { directory } } }),
  );

/** Stops what a session is doing. */
export const abortSession = async (directory: string, sessionID: string) =>
  unwrap(
    await api.POST('/session/{sessionID}/abort', { params: { path: { sessionID }, query: { directory } } }),
  );

/** Runs a command in a session (its reply comes on the event stream). */
export const runCommand = async (directory: string, sessionID: string, command: string, args: string) =>
  unwrap(
    await api.POST('/session/{sessionID}/command', {
      params: { path: { sessionID }, query: { directory } },
      body: { command, arguments: args },
    }),
  );
