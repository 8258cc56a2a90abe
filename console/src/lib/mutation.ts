import { useMutation, type UseMutationOptions } from '@tanstack/react-query';
import { errorMessage } from '../api/client';
import { notify } from './notify';

/**
 * What a page adds to a feature's mutation hook (its own onSuccess, onMutate…): the hook keeps its
 * request, its cache updates and its notification, and runs the page's callbacks after its own.
 */
export type MutationConfig<V, R> = Omit<UseMutationOptions<R, Error, V>, 'mutationFn'>;

/** What a mutation's notification says; each may depend on the variables (and `done` on the answer). */
export interface MutationWords<V, R> {
  /** None when the change shows itself (a sent prompt is in the conversation). */
  done?: string | ((variables: V, answer: R) => string);
  failed: string | ((variables: V) => string);
  /** The reason as the feature words it (the API's message by default). */
  reason?: (error: unknown) => string;
}

/**
 * A feature's mutation hook: its request and its cache updates (`mutation`), a notification saying how
 * it went (every mutation of the console says), then the page's own callbacks (`config`). A promise the
 * cache update returns (a refetch) holds the mutation pending until it settles.
 */
export function useNotifiedMutation<V, R>(
  mutation: { mutationFn: (variables: V) => Promise<R>; onSuccess?: (answer: R, variables: V) => unknown },
  words: MutationWords<V, R>,
  config: MutationConfig<V, R> = {},
) {
  return useMutation<R, Error, V>({
    ...config,
    mutationFn: mutation.mutationFn,
    onSuccess: async (answer, variables, ...rest) => {
      const updated = mutation.onSuccess?.(answer, variables);
      const { done } = words;
      if (done) notify({ ok: true, message: typeof done === 'function' ? done(variables, answer) : done });
      await updated;
      return config.onSuccess?.(answer, variables, ...rest);
    },
    onError: (error, variables, ...rest) => {
      const { failed, reason = errorMessage } = words;
      notify({
        ok: false,
        title: typeof failed === 'function' ? failed(variables) : failed,
        message: reason(error),
      });
      return config.onError?.(error, variables, ...rest);
    },
  });
}
