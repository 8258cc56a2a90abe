import type { UseMutationOptions } from '@tanstack/react-query';

/**
 * What a page adds to a feature's mutation hook (its own onSuccess, onMutate…): the hook keeps its
 * request, its cache updates and its notification, and runs the page's callbacks after its own.
 */
export type MutationConfig<V, R> = Omit<UseMutationOptions<R, Error, V>, 'mutationFn'>;
