import { memoryQueryRoot } from '../../api/memoryApiKey';

/** Query keys of the memory pages, all under the root that a change of API key drops. */
export const memoryKeys = {
  all: memoryQueryRoot,
  documentLists: ['memory', 'documents', 'list'] as const,
  documentList: (body: object) => ['memory', 'documents', 'list', body] as const,
  document: (id: string) => ['memory', 'documents', 'detail', id] as const,
  chunks: (id: string) => ['memory', 'documents', 'chunks', id] as const,
  processing: ['memory', 'processing'] as const,
  memories: (tag: string) => ['memory', 'memories', tag] as const,
  recentMemories: (tag: string) => ['memory', 'memories', tag, 'recent'] as const,
  profile: (tag: string) => ['memory', 'profile', tag] as const,
  containerTags: ['memory', 'container-tags'] as const,
  settings: ['memory', 'settings'] as const,
  webhooks: (documentId: string | undefined) => ['memory', 'webhooks', documentId ?? null] as const,
};
