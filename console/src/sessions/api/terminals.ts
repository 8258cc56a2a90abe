import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useNotifiedMutation, type MutationConfig } from '../../lib/mutation';
import { sessionKeys } from './keys';

type Terminal = components['schemas']['Pty'];

const terminalsQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.terminals(directory),
    queryFn: async () => unwrap(await api.GET('/pty', { params: { query: { directory } } })),
  });

export const useTerminals = (directory: string) => useQuery(terminalsQuery(directory));

export function useCreateTerminal(directory: string, config: MutationConfig<void, Terminal> = {}) {
  const refresh = useRefreshTerminals(directory);
  return useNotifiedMutation(
    {
      mutationFn: async () => unwrap(await api.POST('/pty', { params: { query: { directory } }, body: {} })),
      onSuccess: refresh,
    },
    { done: 'Terminal opened', failed: 'Terminal not opened' },
    config,
  );
}

export function useCloseTerminal(directory: string, config: MutationConfig<string, boolean> = {}) {
  const refresh = useRefreshTerminals(directory);
  return useNotifiedMutation(
    {
      mutationFn: async (id: string) =>
        unwrap(await api.DELETE('/pty/{ptyID}', { params: { path: { ptyID: id }, query: { directory } } })),
      onSuccess: refresh,
    },
    { done: 'Terminal closed', failed: 'Terminal not closed' },
    config,
  );
}

function useRefreshTerminals(directory: string) {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: sessionKeys.terminals(directory) });
}

/** Tells the terminal its new size (the shell redraws for it); nothing waits for the answer. */
export function resizeTerminal(directory: string, id: string, size: { rows: number; cols: number }): void {
  void api.PUT('/pty/{ptyID}', { params: { path: { ptyID: id }, query: { directory } }, body: { size } });
}
