import { queryOptions } from '@tanstack/react-query';
import { api, authHeaders, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { memoryHeaders } from '../../api/memoryApiKey';
import { openableProjects } from '../../sessions/api/projects';

/** Query keys of the overview page (figures gathered across the surfaces, polled). */
const overviewKeys = {
  sessions: ['overview', 'sessions'] as const,
  memory: ['overview', 'memory'] as const,
  health: ['overview', 'health'] as const,
};

interface LiveSession {
  id: string;
  title: string;
  directory: string;
  state: 'working' | 'permission';
}

/** Sessions working or waiting for a permission, across the recent projects. */
export const liveSessionsQuery = () =>
  queryOptions({
    queryKey: overviewKeys.sessions,
    refetchInterval: 5000,
    queryFn: async (): Promise<LiveSession[]> => {
      const projects = (await openableProjects()).slice(0, 8);
      const permissions = unwrap(await api.GET('/permission'));
      const waiting = new Set(permissions.map((p) => p.sessionID));
      const out: LiveSession[] = [];
      for (const project of projects) {
        const query = { directory: project.worktree };
        const [status, sessions] = await Promise.all([
          api.GET('/session/status', { params: { query } }).then(unwrap),
          api.GET('/session', { params: { query } }).then(unwrap),
        ]);
        for (const s of sessions) {
          const busy = status[s.id] !== undefined && status[s.id].type !== 'idle';
          const state = waiting.has(s.id) ? 'permission' : busy ? 'working' : undefined;
          if (state) out.push({ id: s.id, title: s.title, directory: project.worktree, state });
        }
      }
      return out;
    },
  });

/** Documents in the pipeline and failed ones (the memory surface; its API key when it needs one). */
export const memoryFiguresQuery = () =>
  queryOptions({
    queryKey: overviewKeys.memory,
    refetchInterval: 10000,
    retry: false,
    queryFn: async () => {
      const headers = { ...memoryHeaders(), 'Content-Type': 'application/json' };
      const list = async (statuses: string[]) => {
        const response = await fetch('/v3/documents/list', {
          method: 'POST',
          headers,
          body: JSON.stringify({ statuses, limit: 5, page: 1, sort: 'createdAt', order: 'desc' }),
        });
        if (response.status === 401) return 'key' as const;
        if (!response.ok) throw new Error(`the memory API answered ${response.status}`);
        return (await response.json()) as components['schemas']['ListDocumentsResponse'];
      };
      const [pipeline, failed] = await Promise.all([
        list(['queued', 'extracting', 'chunking', 'embedding', 'indexing']),
        list(['failed']),
      ]);
      return pipeline === 'key' || failed === 'key' ? ('key' as const) : { pipeline, failed };
    },
  });

export const healthQuery = () =>
  queryOptions({
    queryKey: overviewKeys.health,
    refetchInterval: 15000,
    queryFn: async () => {
      const [health, ready] = await Promise.all([
        api.GET('/global/health').then(unwrap),
        fetch('/global/ready', { headers: authHeaders() }).then(
          async (r) => (await r.json()) as { ready: boolean; database: string; migrations: string },
        ),
      ]);
      return { version: health.version, ...ready };
    },
  });
