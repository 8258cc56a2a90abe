import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

// Every routing query key starts with 'routing', so one invalidation refreshes the routing pages.
export function useResources() {
  return useQuery({
    queryKey: ['routing', 'resources'],
    queryFn: async () => unwrap(await api.GET('/api/resources')),
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
