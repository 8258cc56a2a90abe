import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { sessionKeys } from './keys';

type Project = components['schemas']['Project'];

/**
 * The projects the server knows and may still open (inside an allowed root: a project made under
 * other KEEL_ALLOWED_DIRECTORIES would only answer 400), most recently used first.
 */
export async function openableProjects(): Promise<Project[]> {
  const [projects, roots] = await Promise.all([
    api.GET('/project').then(unwrap),
    api.GET('/keel/directories', { params: { query: {} } }).then(unwrap),
  ]);
  const inside = (path: string) =>
    roots.directories.some((r) => path === r.path || path.startsWith(`${r.path === '/' ? '' : r.path}/`));
  return projects
    .filter((p) => p.worktree !== '/' && inside(p.worktree))
    .sort((a, b) => b.time.updated - a.time.updated);
}

const openableProjectsQuery = () =>
  queryOptions({ queryKey: sessionKeys.openableProjects, queryFn: openableProjects });

export const useOpenableProjects = () => useQuery(openableProjectsQuery());

/** A directory's subdirectories (the allowed roots when `path` is null), to pick a project from. */
const directoriesQuery = (path: string | null) =>
  queryOptions({
    queryKey: sessionKeys.directories(path),
    queryFn: async () =>
      unwrap(await api.GET('/keel/directories', { params: { query: path ? { path } : {} } })),
  });

export const useDirectories = (path: string | null) => useQuery(directoriesQuery(path));
