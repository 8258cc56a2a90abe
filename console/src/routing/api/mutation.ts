import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api/client';
import { notify } from '../../lib/notify';
import { routingKeys } from './keys';

/** What a mutation's notification says; `done` may depend on the variables and the answer. */
interface MutationWords<V, R> {
  done: string | ((variables: V, answer: R) => string);
  failed: string;
}

/** A mutation's outcome as a notification (every mutation of the console says how it went). */
function notifyOutcome<V, R>(words: MutationWords<V, R>) {
  return {
    onSuccess: (answer: R, variables: V) =>
      notify({
        ok: true,
        message: typeof words.done === 'function' ? words.done(variables, answer) : words.done,
      }),
    onError: (error: unknown) => notify({ ok: false, title: words.failed, message: errorMessage(error) }),
  };
}

/**
 * A routing change: on success every routing query is refreshed (the event stream would too, a moment
 * later), and a notification says how it went. The routing API's mutation hooks are made with it.
 */
export function useRoutingMutation<V, R>(run: (variables: V) => Promise<R>, words: MutationWords<V, R>) {
  const queryClient = useQueryClient();
  const notify = notifyOutcome(words);
  return useMutation<R, Error, V>({
    mutationFn: run,
    onSuccess: (answer: R, variables: V) => {
      notify.onSuccess(answer, variables);
      return queryClient.invalidateQueries({ queryKey: routingKeys.all });
    },
    onError: notify.onError,
  });
}
