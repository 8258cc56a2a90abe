import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { memoryHeaders } from '../../api/memoryApiKey';
import { openableProjects } from '../../sessions/api/projects';

/** Query keys of the command palette's own searches (the routing lists are routing's queries). */
const paletteKeys = {
  sessions: ['palette', 'sessions'] as const,
  documents: ['palette', 'documents'] as const,
  commands: (directory: string) => ['palette', 'commands', directory] as const,
};

/** The sessions of the six most recently used projects. */
export const paletteSessionsQuery = () =>
  queryOptions({
    queryKey: paletteKeys.sessions,
    queryFn: async () => {
      const projects = (await openableProjects()).slice(0, 6);
      const lists = await Promise.all(
        projects.map(async (p) =>
          unwrap(await api.GET('/session', { params: { query: { directory: p.worktree } } })).map((s) => ({
            id: s.id,
            title: s.title,
            directory: p.worktree,
          })),
        ),
      );
      return lists.flat();
    },
  });

/** The 200 newest documents; none when the memory API wants a key the tab does not hold. */
export const paletteDocumentsQuery = () =>
  queryOptions({
    queryKey: paletteKeys.documents,
    retry: false,
    queryFn: async () => {
      const response = await fetch('/v3/documents/list', {
        method: 'POST',
        headers: { ...memoryHeaders(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ limit: 200, page: 1, sort: 'createdAt', order: 'desc' }),
      });
      // The memory API wants a key the tab does not hold: documents are left out, nothing else.
      if (!response.ok) return [];
      return ((await response.json()) as { memories: { id: string; title?: string | null }[] }).memories;
    },
  });

/** The commands of the session's project on screen. */
export const paletteCommandsQuery = (directory: string) =>
  queryOptions({
    queryKey: paletteKeys.commands(directory),
    queryFn: async () => unwrap(await api.GET('/command', { params: { query: { directory } } })),
  });
