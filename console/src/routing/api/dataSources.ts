import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { routingKeys } from './keys';

export type DataSource = components['schemas']['DataSourceDto'];

const dataSourcesQuery = () =>
  queryOptions({
    queryKey: routingKeys.dataSources,
    queryFn: async () => unwrap(await api.GET('/api/datasource')),
  });

const activeDataSourceQuery = () =>
  queryOptions({
    queryKey: routingKeys.activeDataSource,
    queryFn: async () => unwrap(await api.GET('/api/datasource/active')),
  });

export const useDataSources = () => useQuery(dataSourcesQuery());
export const useActiveDataSource = () => useQuery(activeDataSourceQuery());
