import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { routingKeys } from './keys';

/** The two kinds of definition a resource uses: middlewares and services. */
export type DefinitionKind = 'middlewares' | 'services';

export const middlewaresQuery = () =>
  queryOptions({
    queryKey: routingKeys.middlewares,
    queryFn: async () => unwrap(await api.GET('/api/middlewares')),
  });

const servicesQuery = () =>
  queryOptions({
    queryKey: routingKeys.services,
    queryFn: async () => unwrap(await api.GET('/api/services')),
  });

export const useMiddlewares = () => useQuery(middlewaresQuery());
export const useServices = () => useQuery(servicesQuery());
