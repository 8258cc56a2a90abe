import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { notify } from '../../lib/notify';
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
  return useMutation({
    mutationFn: async (body: SettingsUpdate) => unwrap(await api.PATCH('/v3/settings', { body })),
    onSuccess: (answer) => {
      notify({
        ok: true,
        message: `Settings saved (${Object.keys(answer.updated).join(', ') || 'nothing changed'})`,
      });
      return queryClient.invalidateQueries({ queryKey: memoryKeys.settings });
    },
    onError: (error) => notify({ ok: false, title: 'Settings not saved', message: memoryErrorText(error) }),
  });
}
