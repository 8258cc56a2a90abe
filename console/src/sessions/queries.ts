import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import type { MessageEntry, Permission, Session } from './conversation';

/** Query keys of the session console; the event stream updates these entries in place. */
export const sessionKeys = {
  projects: ['sessions', 'projects'] as const,
  list: (directory: string) => ['sessions', 'list', directory] as const,
  session: (directory: string, id: string) => ['sessions', 'session', directory, id] as const,
  messages: (directory: string, id: string) => ['sessions', 'messages', directory, id] as const,
  permissions: ['sessions', 'permissions'] as const,
  todos: (directory: string, id: string) => ['sessions', 'todos', directory, id] as const,
  diff: (directory: string, id: string) => ['sessions', 'diff', directory, id] as const,
  status: (directory: string) => ['sessions', 'status', directory] as const,
};

export function useProjects() {
  return useQuery({ queryKey: sessionKeys.projects, queryFn: async () => unwrap(await api.GET('/project')) });
}

export function useSessionList(directory: string | undefined) {
  return useQuery({
    queryKey: sessionKeys.list(directory ?? ''),
    enabled: !!directory,
    queryFn: async (): Promise<Session[]> =>
      unwrap(await api.GET('/session', { params: { query: { directory } } })),
  });
}

export function useSession(directory: string, id: string) {
  return useQuery({
    queryKey: sessionKeys.session(directory, id),
    queryFn: async (): Promise<Session> =>
      unwrap(
        await api.GET('/session/{sessionID}', { params: { path: { sessionID: id }, query: { directory } } }),
      ),
  });
}

export function useMessages(directory: string, id: string) {
  return useQuery({
    queryKey: sessionKeys.messages(directory, id),
    staleTime: Infinity,
    queryFn: async (): Promise<MessageEntry[]> =>
      unwrap(
        await api.GET('/session/{sessionID}/message', {
          params: { path: { sessionID: id }, query: { directory } },
        }),
      ),
  });
}

export function usePermissions(directory: string) {
  return useQuery({
    queryKey: sessionKeys.permissions,
    queryFn: async (): Promise<Permission[]> =>
      unwrap(await api.GET('/permission', { params: { query: { directory } } })),
  });
}

export function useTodos(directory: string, id: string) {
  return useQuery({
    queryKey: sessionKeys.todos(directory, id),
    queryFn: async () =>
      unwrap(
        await api.GET('/session/{sessionID}/todo', {
          params: { path: { sessionID: id }, query: { directory } },
        }),
      ),
  });
}

export function useSessionDiff(directory: string, id: string) {
  return useQuery({
    queryKey: sessionKeys.diff(directory, id),
    queryFn: async () =>
      unwrap(
        await api.GET('/session/{sessionID}/diff', {
          params: { path: { sessionID: id }, query: { directory } },
        }),
      ),
  });
}

export function useSessionStatus(directory: string) {
  return useQuery({
    queryKey: sessionKeys.status(directory),
    queryFn: async () => unwrap(await api.GET('/session/status', { params: { query: { directory } } })),
  });
}

export function useAgents(directory: string) {
  return useQuery({
    queryKey: ['sessions', 'agents', directory],
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/agent', { params: { query: { directory } } })),
  });
}

export function useProviders(directory: string) {
  return useQuery({
    queryKey: ['sessions', 'providers', directory],
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/config/providers', { params: { query: { directory } } })),
  });
}

export function useCommands(directory: string) {
  return useQuery({
    queryKey: ['sessions', 'commands', directory],
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/command', { params: { query: { directory } } })),
  });
}

/** Files of the instance matching `query` (for `@` mentions); off while `query` is undefined. */
export function useFileMatches(directory: string, query: string | undefined) {
  return useQuery({
    queryKey: ['sessions', 'mention-files', directory, query],
    enabled: query !== undefined,
    staleTime: 10_000,
    queryFn: async () =>
      unwrap(await api.GET('/find/file', { params: { query: { directory, query: query ?? '', limit: 8 } } })),
  });
}
