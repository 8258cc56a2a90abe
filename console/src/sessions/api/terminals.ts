import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { notify } from '../../lib/notify';
import type { MutationConfig } from '../../lib/reactQuery';
import { sessionKeys } from './keys';

type Terminal = components['schemas']['Pty'];

const terminalsQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.terminals(directory),
    queryFn: async () => unwrap(await api.GET('/pty', { params: { query: { directory } } })),
  });

export const useTerminals = (directory: string) => useQuery(terminalsQuery(directory));

export function useCreateTerminal(directory: string, config: MutationConfig<void, Terminal> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    ...config,
    mutationFn: async () => unwrap(await api.POST('/pty', { params: { query: { directory } }, body: {} })),
    onSuccess: (...args) => {
      void queryClient.invalidateQueries({ queryKey: sessionKeys.terminals(directory) });
      notify({ ok: true, message: 'Terminal opened' });
      return config.onSuccess?.(...args);
    },
    onError: (error, ...rest) => {
      notify({ ok: false, title: 'Terminal not opened', message: errorMessage(error) });
      return config.onError?.(error, ...rest);
    },
  });
}

export function useCloseTerminal(directory: string, config: MutationConfig<string, boolean> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    ...config,
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/pty/{ptyID}', { params: { path: { ptyID: id }, query: { directory } } })),
    onSuccess: (...args) => {
      void queryClient.invalidateQueries({ queryKey: sessionKeys.terminals(directory) });
      notify({ ok: true, message: 'Terminal closed' });
      return config.onSuccess?.(...args);
    },
    onError: (error, ...rest) => {
      notify({ ok: false, title: 'Terminal not closed', message: errorMessage(error) });
      return config.onError?.(error, ...rest);
    },
  });
}

/** Tells the terminal its new size (the shell redraws for it); nothing waits for the answer. */
export function resizeTerminal(directory: string, id: string, size: { rows: number; cols: number }): void {
  void api.PUT('/pty/{ptyID}', { params: { path: { ptyID: id }, query: { directory } }, body: { size } });
}
