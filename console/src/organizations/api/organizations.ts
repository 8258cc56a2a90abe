import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useNotifiedMutation, type MutationConfig, type MutationWords } from '../../lib/mutation';

export type Organization = components['schemas']['OrganizationView'];
export type ApiKey = components['schemas']['ApiKeyView'];
export type CreatedKey = components['schemas']['CreatedApiKey'];

/** Query keys of the API keys page; a change refreshes everything under `all`. */
const organizationKeys = {
  all: ['organizations'] as const,
  keys: (id: string) => ['organizations', id, 'keys'] as const,
};

const organizationsQuery = () =>
  queryOptions({
    queryKey: organizationKeys.all,
    queryFn: async () => unwrap(await api.GET('/keel/organizations')),
  });

const organizationKeysQuery = (id: string) =>
  queryOptions({
    queryKey: organizationKeys.keys(id),
    queryFn: async () => unwrap(await api.GET('/keel/organizations/{id}/keys', { params: { path: { id } } })),
  });

export const useOrganizations = () => useQuery(organizationsQuery());
export const useOrganizationKeys = (id: string) => useQuery(organizationKeysQuery(id));

/**
 * A mutation of the page: on success the organizations and their keys are asked for again, and a
 * notification says how it went (the reason when it failed).
 */
function useOrganizationMutation<V, R>(
  run: (variables: V) => Promise<R>,
  words: MutationWords<V, R>,
  config: MutationConfig<V, R>,
) {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: organizationKeys.all });
  return useNotifiedMutation({ mutationFn: run, onSuccess: refresh }, words, config);
}

export const useCreateOrganization = (config: MutationConfig<string, Organization> = {}) =>
  useOrganizationMutation(
    async (name: string) => unwrap(await api.POST('/keel/organizations', { body: { name } })),
    { done: (_name, org) => `Organization “${org.name}” created`, failed: 'Organization not created' },
    config,
  );

export const useDeleteOrganization = (id: string, config: MutationConfig<void, unknown> = {}) =>
  useOrganizationMutation(
    async () => unwrap(await api.DELETE('/keel/organizations/{id}', { params: { path: { id } } })),
    { done: () => 'Organization deleted', failed: 'Organization not deleted' },
    config,
  );

/** Creates a key; the answer holds the key itself, shown once. */
export const useCreateApiKey = (id: string, config: MutationConfig<string, CreatedKey> = {}) =>
  useOrganizationMutation(
    async (name: string) =>
      unwrap(await api.POST('/keel/organizations/{id}/keys', { params: { path: { id } }, body: { name } })),
    { done: (_name, key) => `Key “${key.name}” created: copy it now`, failed: 'Key not created' },
    config,
  );

export const useRevokeApiKey = (id: string, config: MutationConfig<ApiKey, unknown> = {}) =>
  useOrganizationMutation(
    async (key: ApiKey) =>
      unwrap(
        await api.DELETE('/keel/organizations/{id}/keys/{keyId}', {
          params: { path: { id, keyId: key.id } },
        }),
      ),
    {
      done: (key) => `Key “${key.name}” revoked: it no longer opens the memory API`,
      failed: 'Key not revoked',
    },
    config,
  );
