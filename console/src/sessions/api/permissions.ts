import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Permission } from '../../conversation/model';
import { useNotifiedMutation } from '../../lib/mutation';
import { sessionKeys } from './keys';

/** The permissions waiting for an answer (the event stream adds and removes them). */
const permissionsQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.permissions,
    enabled: !!directory,
    queryFn: async (): Promise<Permission[]> =>
      unwrap(await api.GET('/permission', { params: { query: { directory } } })),
  });

export const usePermissions = (directory: string) => useQuery(permissionsQuery(directory));

const ANSWER_WORDS = { once: 'Allowed once', always: 'Always allowed', reject: 'Rejected' } as const;

/** Answers a permission; it leaves the waiting list at once. */
export function useRespondToPermission(directory: string, sessionID: string) {
  const queryClient = useQueryClient();
  return useNotifiedMutation(
    {
      mutationFn: async ({
        permission,
        response,
      }: {
        permission: Permission;
        response: 'once' | 'always' | 'reject';
      }) =>
        unwrap(
          await api.POST('/session/{sessionID}/permissions/{permissionID}', {
            params: { path: { sessionID, permissionID: permission.id }, query: { directory } },
            body: { response },
          }),
        ),
      onSuccess: (_result, { permission }) =>
        queryClient.setQueryData<Permission[]>(sessionKeys.permissions, (old) =>
          (old ?? []).filter((p) => p.id !== permission.id),
        ),
    },
    {
      done: ({ permission, response }) => `${ANSWER_WORDS[response]}: ${permission.title}`,
      failed: 'Permission not answered',
    },
  );
}
