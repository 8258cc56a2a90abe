import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import type { DefinitionKind } from './definitions';
import { routingKeys } from './keys';
import { useRoutingMutation } from './mutation';

// One middleware or service: read, saved or created, deleted.

const definitionQuery = (kind: DefinitionKind, id: string) =>
  queryOptions({
    queryKey: routingKeys.definition(kind, id),
    queryFn: async () =>
      kind === 'middlewares'
        ? unwrap(await api.GET('/api/middlewares/{id}', { params: { path: { id } } }))
        : unwrap(await api.GET('/api/services/{id}', { params: { path: { id } } })),
  });

/** One definition; off while `id` is undefined (a new one). */
export const useDefinition = (kind: DefinitionKind, id: string | undefined) =>
  useQuery({ ...definitionQuery(kind, id ?? ''), enabled: id !== undefined });

type DefinitionBody = components['schemas']['SaveDefinitionDto'];

/**
 * Saves definition `id`, or creates one when `id` is undefined; a service created for a resource
 * (`forResource`) is assigned to it at once.
 */
export function useSaveDefinition(kind: DefinitionKind, id: string | undefined, forResource: string | null) {
  const singular = kind === 'middlewares' ? 'middleware' : 'service';
  return useRoutingMutation(
    async (body: DefinitionBody) => {
      const saved =
        kind === 'middlewares'
          ? id
            ? unwrap(await api.PUT('/api/middlewares/{id}', { params: { path: { id } }, body }))
            : unwrap(await api.POST('/api/middlewares', { body }))
          : id
            ? unwrap(await api.PUT('/api/services/{id}', { params: { path: { id } }, body }))
            : unwrap(await api.POST('/api/services', { body }));
      if (forResource && !id)
        unwrap(
          await api.POST('/api/resources/{id}/service', {
            params: { path: { id: forResource } },
            body: { service_id: saved.id },
          }),
        );
      return saved;
    },
    {
      done: (_, saved) =>
        id ? `${saved.name} saved` : `${singular[0].toUpperCase()}${singular.slice(1)} ${saved.name} created`,
      failed: id ? `The ${singular} was not saved` : `The ${singular} was not created`,
    },
  );
}

export function useDeleteDefinition(kind: DefinitionKind, definition: { id: string; name: string }) {
  return useRoutingMutation(
    async () => {
      const path = { params: { path: { id: definition.id } } };
      return kind === 'middlewares'
        ? unwrap(await api.DELETE('/api/middlewares/{id}', path))
        : unwrap(await api.DELETE('/api/services/{id}', path));
    },
    { done: `${definition.name} deleted`, failed: `${definition.name} was not deleted` },
  );
}
