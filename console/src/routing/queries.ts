import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

// Every routing query key starts with 'routing', so one invalidation refreshes the routing pages.
export function useResources() {
  return useQuery({
    queryKey: ['routing', 'resources'],
    queryFn: async () => unwrap(await api.GET('/api/resources')),
  });
}

export function useResource(id: string) {
  return useQuery({
    queryKey: ['routing', 'resources', id],
    queryFn: async () => unwrap(await api.GET('/api/resources/{id}', { params: { path: { id } } })),
  });
}

export function useMiddlewares() {
  return useQuery({
    queryKey: ['routing', 'middlewares'],
    queryFn: async () => unwrap(await api.GET('/api/middlewares')),
  });
}

export function useServices() {
  return useQuery({
    queryKey: ['routing', 'services'],
    queryFn: async () => unwrap(await api.GET('/api/services')),
  });
}

export function useDataSources() {
  return useQuery({
    queryKey: ['routing', 'datasources'],
    queryFn: async () => unwrap(await api.GET('/api/datasource')),
  });
}

export function useActiveDataSource() {
  return useQuery({
    queryKey: ['routing', 'datasources', 'active'],
    queryFn: async () => unwrap(await api.GET('/api/datasource/active')),
  });
}

export function useTraefikConfig() {
  return useQuery({
    queryKey: ['routing', 'traefik-config'],
    queryFn: async () => unwrap(await api.GET('/api/traefik-config')) as Record<string, unknown>,
  });
}

/** A routing change: on success every routing query is refreshed (the event stream would too, a moment later). */
export function useRoutingMutation<V, R>(run: (variables: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['routing'] }),
  });
}
