import { api, unwrap } from '../../api/client';
import type { DataSource } from './dataSources';
import { useRoutingMutation } from './mutation';

// The data sources page's changes: which one is active, each one's settings, a connection test.

export function useActivateDataSource() {
  return useRoutingMutation(
    async (name: string) => unwrap(await api.PUT('/api/datasource/active', { body: { name } })),
    {
      done: (name) => `${name} is now the active data source`,
      failed: 'The active data source did not change',
    },
  );
}

export function useSaveDataSource(name: string) {
  return useRoutingMutation(
    async (body: DataSource) =>
      unwrap(await api.PUT('/api/datasource/{name}', { params: { path: { name } }, body })),
    { done: `Data source ${name} saved`, failed: `Data source ${name} not saved` },
  );
}

/** Tries a data source's settings as they are in the form (saved or not). */
export function useTestDataSource(name: string) {
  return useRoutingMutation(
    async (body: DataSource) =>
      unwrap(await api.POST('/api/datasource/{name}/test', { params: { path: { name } }, body })),
    { done: `Connection test of ${name} successful`, failed: `Connection test of ${name} failed` },
  );
}
