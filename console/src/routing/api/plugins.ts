import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { routingKeys } from './keys';
import { useRoutingMutation } from './mutation';

export type Plugin = components['schemas']['PluginDto'];

/** The plugin catalogue, with where it came from and what went wrong reading it (response headers). */
const pluginsQuery = () =>
  queryOptions({
    queryKey: routingKeys.plugins,
    queryFn: async () => {
      const answer = await api.GET('/api/plugins');
      return {
        plugins: unwrap(answer),
        source: answer.response.headers.get('X-Plugin-Catalogue-Source'),
        problem: answer.response.headers.get('X-Plugin-Catalogue-Problem'),
      };
    },
  });

const pluginConfigPathQuery = () =>
  queryOptions({
    queryKey: routingKeys.pluginConfigPath,
    queryFn: async () => unwrap(await api.GET('/api/plugins/configpath')),
  });

export const usePlugins = () => useQuery(pluginsQuery());
export const usePluginConfigPath = () => useQuery(pluginConfigPathQuery());

export function useSavePluginConfigPath() {
  return useRoutingMutation(
    async (path: string) => unwrap(await api.PUT('/api/plugins/configpath', { body: { path } })),
    { done: 'Configuration path saved', failed: 'The configuration path was not saved' },
  );
}

/** Installs (or updates to) `version`, or the catalogue's latest when it is empty. */
export function useInstallPlugin(plugin: Plugin) {
  return useRoutingMutation(
    async (version: string) =>
      unwrap(
        await api.POST('/api/plugins/install', {
          body: { moduleName: plugin.import, version: version.trim() || undefined },
        }),
      ),
    { done: `${plugin.displayName} installed`, failed: `${plugin.displayName} was not installed` },
  );
}

export function useRemovePlugin(plugin: Plugin) {
  return useRoutingMutation(
    async () => unwrap(await api.DELETE('/api/plugins/remove', { body: { moduleName: plugin.import } })),
    { done: `${plugin.displayName} removed`, failed: `${plugin.displayName} was not removed` },
  );
}
