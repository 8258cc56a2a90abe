import { api } from '../../api/client';
import type { components } from '../../api/schema';

// The search playground shows each exchange whole (status and body), so these answer as sent.

type DocumentSearchBody = components['schemas']['SearchDocumentsBody'];
type MemorySearchBody = components['schemas']['SearchMemoriesBody'];

export const searchDocuments = (body: DocumentSearchBody) => api.POST('/v3/search', { body });
export const searchMemories = (body: MemorySearchBody) => api.POST('/v4/search', { body });
