import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, errorMessage, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { routingKeys } from './keys';
import { useRoutingMutation } from './mutation';

export type Resource = components['schemas']['ResourceDto'];

export const resourcesQuery = () =>
  queryOptions({
    queryKey: routingKeys.resources,
    queryFn: async () => unwrap(await api.GET('/api/resources')),
  });

/** Resources discovered last first (`?sort=recent`). */
const recentResourcesQuery = () =>
  queryOptions({
    queryKey: routingKeys.recentResources,
    queryFn: async () => unwrap(await api.GET('/api/resources', { params: { query: { sort: 'recent' } } })),
  });

const resourceQuery = (id: string) =>
  queryOptions({
    queryKey: routingKeys.resource(id),
    queryFn: async () => unwrap(await api.GET('/api/resources/{id}', { params: { path: { id } } })),
  });

export const useResources = () => useQuery(resourcesQuery());
export const useRecentResources = () => useQuery(recentResourcesQuery());
export const useResource = (id: string) => useQuery(resourceQuery(id));

/**
 * Deletes resources (the API deletes only disabled ones), four requests at a time; `onDeleted` is
 * called after each answer. The failures are reported together.
 */
export function useDeleteResources(onDeleted: () => void) {
  return useRoutingMutation(
    async (targets: string[]) => {
      const failures: string[] = [];
      let next = 0;
      const worker = async () => {
        while (next < targets.length) {
          const id = targets[next++];
          try {
            unwrap(await api.DELETE('/api/resources/{id}', { params: { path: { id } } }));
          } catch (error) {
            failures.push(`${id}: ${errorMessage(error)}`);
          }
          onDeleted();
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      if (failures.length)
        throw new Error(`${failures.length} not deleted: ${failures.slice(0, 5).join('; ')}`);
    },
    {
      done: (targets) => `${targets.length} disabled resources deleted`,
      failed: 'Some resources were not deleted',
    },
  );
}
