import { Alert, Loader, Stack, Text } from '@mantine/core';
import { errorMessage } from '../../api/client';
import { useFoundFiles } from '../api/files';
import { FileRow } from './FileTree';
import type { FileListProps } from './marks';

/** The files whose name matches `query` (`/find/file`), in place of the tree while one is typed. */
export function FoundFiles({
  directory,
  query,
  ...list
}: FileListProps & { directory: string; query: string }) {
  const found = useFoundFiles(directory, query);
  return (
    <Stack gap={0} component="ul" aria-label="Found files" className="keel-tree">
      {found.isLoading && <Loader size="sm" aria-label="Finding files" />}
      {found.error && <Alert color="red">{errorMessage(found.error)}</Alert>}
      {found.data?.length === 0 && (
        <Text size="sm" className="keel-muted" px={8}>
          No file matches.
        </Text>
      )}
      {(found.data ?? []).map((path) => (
        <li key={path}>
          <FileRow {...list} path={path} name={path} depth={0} />
        </li>
      ))}
    </Stack>
  );
}
