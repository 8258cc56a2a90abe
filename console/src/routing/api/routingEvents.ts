import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { serverEvents, type ServerEvent } from '../../hooks/useEventStream';
import { routingKeys } from './keys';

/**
 * Every routing change is announced on the event stream as `routing.<subject>.<verb>`, and each
 * generation of the Traefik configuration the server stores after a burst as
 * `traefik.generation.recorded`: the routing queries are refreshed once per burst (a bulk delete or a
 * sync announces each row).
 */
export function useRoutingEvents(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    let refresh: number | undefined;
    const listener = (event: Event) => {
      const { type } = (event as CustomEvent<ServerEvent>).detail;
      if (!(type.startsWith('routing.') || type === 'traefik.generation.recorded') || refresh !== undefined) return;
      refresh = window.setTimeout(() => {
        refresh = undefined;
        void queryClient.invalidateQueries({ queryKey: routingKeys.all });
      }, 100);
    };
    serverEvents.addEventListener('server-event', listener);
    return () => {
      serverEvents.removeEventListener('server-event', listener);
      window.clearTimeout(refresh);
    };
  }, [queryClient]);
}
