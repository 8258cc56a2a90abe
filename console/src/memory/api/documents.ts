import { useCallback } from 'react';
import {
  keepPreviousData,
  queryOptions,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { memoryHeaders } from '../../api/memoryApiKey';
import type { components } from '../../api/schema';
import { useNotifiedMutation, type MutationConfig } from '../../lib/mutation';
import { memoryErrorText } from '../memoryText';
import { memoryKeys } from './keys';

export type DocumentSummary = components['schemas']['DocumentSummary'];
type DocumentListBody = components['schemas']['ListDocumentsBody'];
export type DocumentListAnswer = components['schemas']['ListDocumentsResponse'];

export const STATUSES = [
  'queued',
  'extracting',
  'chunking',
  'embedding',
  'indexing',
  'done',
  'failed',
] as const;
export const DOCUMENT_TYPES = ['text', 'webpage', 'pdf'] as const;

/** One page of documents: the server filters, sorts and cuts it, so 100,000 documents stay fast. */
export const documentListQuery = (body: DocumentListBody) =>
  queryOptions({
    queryKey: memoryKeys.documentList(body),
    queryFn: async () => unwrap(await api.POST('/v3/documents/list', { body })),
  });

/** A page of the list; changing the page or the filters keeps the rows shown until the next arrive. */
export const useDocumentList = (body: DocumentListBody) =>
  useQuery({ ...documentListQuery(body), placeholderData: keepPreviousData });

/** The documents page's first request (newest first, 25 a page): the probe below asks exactly it. */
const FIRST_DOCUMENTS_PAGE = { page: 1, limit: 25, sort: 'createdAt', order: 'desc' } as const;

const listFirstPage = () => api.POST('/v3/documents/list', { body: FIRST_DOCUMENTS_PAGE });
let earlyProbe: ReturnType<typeof listFirstPage> | undefined;

/** Sends the probe below now (the tab was opened on a memory page), for the next probe to take its answer. */
export function probeMemoryEarly(): void {
  earlyProbe ??= listFirstPage();
}

/**
 * Whether the memory surface accepts the console's credentials as they are. The probe is the documents
 * page's first request, and its answer goes into the cache, so the default page shows without another round trip.
 */
export async function probeMemory(queryClient: QueryClient): Promise<'ok' | 'unauthorized'> {
  const asked = earlyProbe ?? listFirstPage();
  earlyProbe = undefined;
  const { data, response } = await asked;
  if (data) queryClient.setQueryData(memoryKeys.documentList(FIRST_DOCUMENTS_PAGE), data);
  return response.status === 401 ? 'unauthorized' : 'ok';
}

const documentQuery = (id: string) =>
  queryOptions({
    queryKey: memoryKeys.document(id),
    queryFn: async () => unwrap(await api.GET('/v3/documents/{id}', { params: { path: { id } } })),
  });

const chunksQuery = (id: string) =>
  queryOptions({
    queryKey: memoryKeys.chunks(id),
    queryFn: async () => unwrap(await api.GET('/v3/documents/{id}/chunks', { params: { path: { id } } })),
  });

/** The pipeline's queue (polled every two seconds). */
const processingQuery = () =>
  queryOptions({
    queryKey: memoryKeys.processing,
    queryFn: async () => unwrap(await api.GET('/v3/documents/processing')),
    refetchInterval: 2000,
  });

export const useDocument = (id: string) => useQuery(documentQuery(id));
export const useChunks = (id: string) => useQuery(chunksQuery(id));
export const useProcessing = () => useQuery(processingQuery());

/** Deletes documents (with their chunks and memories): every memory page is refreshed. */
export function useDeleteDocuments(config: MutationConfig<string[], unknown> = {}) {
  const queryClient = useQueryClient();
  return useNotifiedMutation(
    {
      mutationFn: async (ids: string[]) => unwrap(await api.DELETE('/v3/documents/bulk', { body: { ids } })),
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: memoryKeys.all }),
    },
    {
      done: (ids) => (ids.length === 1 ? 'Document deleted' : `${ids.length} documents deleted`),
      failed: 'Nothing deleted',
      reason: memoryErrorText,
    },
    config,
  );
}

/** Deletes one document (from its own page): the lists are refreshed. */
export function useDeleteDocument(id: string, config: MutationConfig<void, unknown> = {}) {
  const queryClient = useQueryClient();
  return useNotifiedMutation(
    {
      mutationFn: async () => unwrap(await api.DELETE('/v3/documents/{id}', { params: { path: { id } } })),
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: memoryKeys.documentLists }),
    },
    { done: 'Document deleted', failed: 'Document not deleted', reason: memoryErrorText },
    config,
  );
}

/** Refreshes the document lists (a document was added). */
export function useRefreshDocumentLists(): () => void {
  const queryClient = useQueryClient();
  // Stable, so the memoised add form it is given does not render again with the page.
  return useCallback(
    () => void queryClient.invalidateQueries({ queryKey: memoryKeys.documentLists }),
    [queryClient],
  );
}

type AddDocumentBody = components['schemas']['AddDocumentBody'];

/** Adds a document from text or a URL; the answer is returned whole (the form shows its error). */
export const addDocument = (body: AddDocumentBody) => api.POST('/v3/documents', { body });

type UploadAnswer = { id?: string; error?: string; details?: string };

/** Uploads a file as a document (multipart, so with fetch); the answer's status and body. */
export async function uploadDocumentFile(form: FormData): Promise<{ ok: boolean; answer: UploadAnswer }> {
  const response = await fetch('/v3/documents/file', {
    method: 'POST',
    headers: memoryHeaders(),
    body: form,
  });
  const answer = (await response.json().catch(() => ({}))) as UploadAnswer;
  return { ok: response.ok, answer };
}
