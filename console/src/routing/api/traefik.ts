import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { routingKeys } from './keys';

/** The dynamic configuration Keel serves Traefik. */
const traefikConfigQuery = () =>
  queryOptions({
    queryKey: routingKeys.traefikConfig,
    queryFn: async () => unwrap(await api.GET('/api/traefik-config')) as Record<string, unknown>,
  });

const traefikHistoryQuery = () =>
  queryOptions({
    queryKey: routingKeys.traefikHistory,
    queryFn: async () =>
      unwrap(await api.GET('/api/traefik-config/history', { params: { query: { limit: '200' } } })),
  });

/** One past generation of the configuration (it never changes once written). */
const traefikGenerationQuery = (id: number | null) =>
  queryOptions({
    queryKey: routingKeys.traefikGeneration(id),
    enabled: id !== null,
    staleTime: Infinity,
    queryFn: async () => unwrap(await api.GET('/api/traefik-config/history/{id}', { params: { path: { id: id! } } })),
  });

/** Traefik's live status (read through the Traefik API data source on every fetch: not refetched on focus). */
const traefikStatusQuery = () =>
  queryOptions({
    queryKey: routingKeys.traefikStatus,
    staleTime: 10_000,
    refetchOnWindowFocus: false,
    queryFn: async () => unwrap(await api.GET('/api/traefik/status')),
  });

export const useTraefikConfig = () => useQuery(traefikConfigQuery());
export const useTraefikHistory = () => useQuery(traefikHistoryQuery());
export const useTraefikGeneration = (id: number | null) => useQuery(traefikGenerationQuery(id));
export const useTraefikStatus = () => useQuery(traefikStatusQuery());
