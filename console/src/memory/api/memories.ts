import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useNotifiedMutation } from '../../lib/mutation';
import { memoryErrorText } from '../memoryText';
import { memoryKeys } from './keys';

export type MemoryEntry = components['schemas']['MemoryEntryView'];

/** A container tag's memories, most recently changed first (`limit` of them); off while no tag is chosen. */
const memoryListQuery = (queryKey: readonly unknown[], tag: string, limit: number) =>
  queryOptions({
    queryKey,
    enabled: !!tag,
    queryFn: async () =>
      unwrap(
        await api.POST('/v4/memories/list', {
          body: { containerTags: [tag], limit, page: 1, sort: 'updatedAt', order: 'desc' },
        }),
      ),
  });

const profileQuery = (tag: string) =>
  queryOptions({
    queryKey: memoryKeys.profile(tag),
    enabled: !!tag,
    queryFn: async () => unwrap(await api.POST('/v4/profile', { body: { containerTag: tag } })),
  });

/** The memories drawn in a tag's graph (up to `limit`). */
export const useMemories = (tag: string, limit: number) =>
  useQuery(memoryListQuery(memoryKeys.memories(tag), tag, limit));
/** The ten last changed, beside a profile. */
export const useRecentMemories = (tag: string) =>
  useQuery(memoryListQuery(memoryKeys.recentMemories(tag), tag, 10));
export const useProfile = (tag: string) => useQuery(profileQuery(tag));

/** Forgets a memory, or restores a forgotten one; the tag's memories are refreshed. */
export function useToggleMemory(tag: string) {
  const queryClient = useQueryClient();
  return useNotifiedMutation(
    {
      mutationFn: async (m: MemoryEntry) =>
        m.isForgotten
          ? unwrap(await api.POST('/v4/memories/restore', { body: { containerTag: tag, id: m.id } }))
          : unwrap(await api.DELETE('/v4/memories', { body: { containerTag: tag, id: m.id } })),
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: memoryKeys.memories(tag) }),
    },
    {
      done: (m) => (m.isForgotten ? 'Memory restored' : 'Memory forgotten'),
      failed: (m) => (m.isForgotten ? 'Memory not restored' : 'Memory not forgotten'),
      reason: memoryErrorText,
    },
  );
}

/** The container tags in use, from the server (GET /v3/container-tags). */
const containerTagsQuery = () =>
  queryOptions({
    queryKey: memoryKeys.containerTags,
    queryFn: async () => unwrap(await api.GET('/v3/container-tags')).containerTags,
  });

export const useContainerTags = () => useQuery(containerTagsQuery());
