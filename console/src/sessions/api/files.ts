import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { sessionKeys } from './keys';

/** Files of the instance matching `query` (for `@` mentions); off while `query` is undefined. */
const mentionFilesQuery = (directory: string, query: string | undefined) =>
  queryOptions({
    queryKey: sessionKeys.mentionFiles(directory, query),
    enabled: query !== undefined,
    staleTime: 10_000,
    queryFn: async () =>
      unwrap(await api.GET('/find/file', { params: { query: { directory, query: query ?? '', limit: 8 } } })),
  });

/** The files browser's search (up to 100 paths); off while `query` is empty. */
const findFilesQuery = (directory: string, query: string) =>
  queryOptions({
    queryKey: sessionKeys.findFiles(directory, query),
    enabled: query !== '',
    queryFn: async () =>
      unwrap(await api.GET('/find/file', { params: { query: { directory, query, limit: 100 } } })),
  });

/** Git's view of the working tree's changed files. */
const fileStatusQuery = (directory: string) =>
  queryOptions({
    queryKey: sessionKeys.fileStatus(directory),
    queryFn: async () => unwrap(await api.GET('/file/status', { params: { query: { directory } } })),
  });

/** One directory's entries (`path` relative to the project, '' for its top). */
const fileListQuery = (directory: string, path: string) =>
  queryOptions({
    queryKey: sessionKeys.fileList(directory, path),
    queryFn: async () => unwrap(await api.GET('/file', { params: { query: { directory, path } } })),
  });

const fileContentQuery = (directory: string, path: string) =>
  queryOptions({
    queryKey: sessionKeys.fileContent(directory, path),
    queryFn: async () => unwrap(await api.GET('/file/content', { params: { query: { directory, path } } })),
  });

export const useFileMatches = (directory: string, query: string | undefined) =>
  useQuery(mentionFilesQuery(directory, query));
export const useFoundFiles = (directory: string, query: string) => useQuery(findFilesQuery(directory, query));
export const useFileStatus = (directory: string) => useQuery(fileStatusQuery(directory));
export const useFileList = (directory: string, path: string) => useQuery(fileListQuery(directory, path));
export const useFileContent = (directory: string, path: string) =>
  useQuery(fileContentQuery(directory, path));
