import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { sessionKeys } from './keys';

// What an instance offers a prompt: agents, models and commands change rarely (a minute's staleness).

const agentsQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.agents(directory),
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/agent', { params: { query: { directory } } })),
  });

const providersQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.providers(directory),
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/config/providers', { params: { query: { directory } } })),
  });

const commandsQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.commands(directory),
    staleTime: 60_000,
    queryFn: async () => unwrap(await api.GET('/command', { params: { query: { directory } } })),
  });

export const useAgents = (directory: string) => useQuery(agentsQuery(directory));
export const useProviders = (directory: string) => useQuery(providersQuery(directory));
export const useCommands = (directory: string) => useQuery(commandsQuery(directory));
