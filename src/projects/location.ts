import type { Instance } from './instance.service';

/** opencode 1.18's `Location.Info`: the directory a request resolved to and its project. */
export interface LocationInfo {
  directory: string;
  project: { id: string; directory: string };
}

/** What every list of opencode's v2 API (`/api/*`) answers: the location and the data. */
export interface Located<T> {
  location: LocationInfo;
  data: T;
}

export function locationOf(instance: Instance): LocationInfo {
  return { directory: instance.directory, project: { id: instance.project.id, directory: instance.worktree } };
}

export function located<T>(instance: Instance, data: T): Located<T> {
  return { location: locationOf(instance), data };
}
