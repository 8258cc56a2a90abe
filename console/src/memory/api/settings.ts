import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useNotifiedMutation } from '../../lib/mutation';
import { memoryErrorText } from '../memoryText';
import { memoryKeys } from './keys';

export type Settings = components['schemas']['SettingsBody'];
export type SettingsUpdate = components['schemas']['UpdateSettingsBody'];

const settingsQuery = () =>
  queryOptions({
    queryKey: memoryKeys.settings,
    queryFn: async () => unwrap(await api.GET('/v3/settings')),
  });

export const useSettings = () => useQuery(settingsQuery());

/** Saves the changed settings; the notification names what the server updated. */
export function useSaveSettings() {
  const queryClient = useQueryClient();
  return useNotifiedMutation(
    {
      mutationFn: async (body: SettingsUpdate) => unwrap(await api.PATCH('/v3/settings', { body })),
      onSuccess: () => queryClient.invalidateQueries({ queryKey: memoryKeys.settings }),
    },
    {
      done: (_, answer) => `Settings saved (${Object.keys(answer.updated).join(', ') || 'nothing changed'})`,
      failed: 'Settings not saved',
      reason: memoryErrorText,
    },
  );
}
