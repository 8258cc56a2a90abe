import { api } from '../../api/client';
import type { paths } from '../../api/schema';

// The search playground shows each exchange whole (status and body), so these answer as sent.

type DocumentSearchBody = NonNullable<
  paths['/v3/search']['post']['requestBody']
>['content']['application/json'];
type MemorySearchBody = NonNullable<
  paths['/v4/search']['post']['requestBody']
>['content']['application/json'];

export const searchDocuments = (body: DocumentSearchBody) => api.POST('/v3/search', { body });
export const searchMemories = (body: MemorySearchBody) => api.POST('/v4/search', { body });
