import { api, unwrap } from '../../api/client';
import { useServices } from './definitions';
import { useRoutingMutation } from './mutation';

// One resource's settings, middlewares and service (the resource page's changes).

/** A resource's entry points (`/config/http`) or extra certificate domains (`/config/tls`). */
export function useSaveResourceText(id: string, field: 'entrypoints' | 'tls_domains', label: string) {
  const path = { params: { path: { id } } };
  return useRoutingMutation(
    async (value: string) =>
      field === 'entrypoints'
        ? unwrap(await api.PUT('/api/resources/{id}/config/http', { ...path, body: { entrypoints: value } }))
        : unwrap(await api.PUT('/api/resources/{id}/config/tls', { ...path, body: { tls_domains: value } })),
    { done: `${label} saved`, failed: `${label} not saved` },
  );
}

export function useSaveTcpRouting(id: string) {
  return useRoutingMutation(
    async (body: { tcp_enabled: boolean; tcp_entrypoints: string; tcp_sni_rule: string }) =>
      unwrap(await api.PUT('/api/resources/{id}/config/tcp', { params: { path: { id } }, body })),
    { done: 'TCP routing saved', failed: 'TCP routing not saved' },
  );
}

export function useSaveCustomHeaders(id: string) {
  const path = { params: { path: { id } } };
  return useRoutingMutation(
    async (custom_headers: Record<string, string>) =>
      unwrap(await api.PUT('/api/resources/{id}/config/headers', { ...path, body: { custom_headers } })),
    { done: 'Custom headers saved', failed: 'Custom headers not saved' },
  );
}

export function useSaveRouterPriority(id: string) {
  const path = { params: { path: { id } } };
  return useRoutingMutation(
    async (router_priority: number) =>
      unwrap(await api.PUT('/api/resources/{id}/config/priority', { ...path, body: { router_priority } })),
    { done: 'Router priority saved', failed: 'Router priority not saved' },
  );
}

/** Attaches middlewares to a resource at one priority. */
export function useAttachMiddlewares(resource: { id: string; host: string }) {
  return useRoutingMutation(
    async ({ ids, priority }: { ids: string[]; priority: number }) =>
      unwrap(
        await api.POST('/api/resources/{id}/middlewares/bulk', {
          params: { path: { id: resource.id } },
          body: { middlewares: ids.map((middleware_id) => ({ middleware_id, priority })) },
        }),
      ),
    {
      done: (_, answer) =>
        `${answer.middlewares.length} ${answer.middlewares.length === 1 ? 'middleware' : 'middlewares'} attached to ${resource.host}`,
      failed: 'The middlewares were not attached',
    },
  );
}

/** An attached middleware's priority. */
export function useSaveMiddlewarePriority(resourceId: string, link: { id: string; name: string }) {
  return useRoutingMutation(
    async (priority: number) =>
      unwrap(
        await api.POST('/api/resources/{id}/middlewares', {
          params: { path: { id: resourceId } },
          body: { middleware_id: link.id, priority },
        }),
      ),
    { done: `Priority of ${link.name} saved`, failed: `The priority of ${link.name} was not saved` },
  );
}

export function useDetachMiddleware(resourceId: string, link: { id: string; name: string }) {
  return useRoutingMutation(
    async () =>
      unwrap(
        await api.DELETE('/api/resources/{id}/middlewares/{middlewareId}', {
          params: { path: { id: resourceId, middlewareId: link.id } },
        }),
      ),
    { done: `${link.name} removed`, failed: `${link.name} was not removed` },
  );
}

/** Sends a resource's traffic to a service. */
export function useAssignService(resourceId: string) {
  const services = useServices();
  const path = { params: { path: { id: resourceId } } };
  return useRoutingMutation(
    async (service_id: string) =>
      unwrap(await api.POST('/api/resources/{id}/service', { ...path, body: { service_id } })),
    {
      done: (serviceId) =>
        `Service ${services.data?.find((s) => s.id === serviceId)?.name ?? serviceId} assigned`,
      failed: 'The service was not assigned',
    },
  );
}

export function useUnassignService(resourceId: string) {
  return useRoutingMutation(
    async () =>
      unwrap(await api.DELETE('/api/resources/{id}/service', { params: { path: { id: resourceId } } })),
    {
      done: 'Service assignment removed: traffic goes to the default service',
      failed: 'The assignment was not removed',
    },
  );
}
