import { useQueryClient } from '@tanstack/react-query';
import { useNotifiedMutation, type MutationWords } from '../../lib/mutation';
import { routingKeys } from './keys';

/**
 * A routing change: on success every routing query is refreshed (the event stream would too, a moment
 * later), and a notification says how it went. The routing API's mutation hooks are made with it.
 */
export function useRoutingMutation<V, R>(run: (variables: V) => Promise<R>, words: MutationWords<V, R>) {
  const queryClient = useQueryClient();
  return useNotifiedMutation(
    { mutationFn: run, onSuccess: () => queryClient.invalidateQueries({ queryKey: routingKeys.all }) },
    words,
  );
}
