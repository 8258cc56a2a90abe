import { Stack, Text } from '@mantine/core';
import { FileRow } from './FileTree';
import type { FileListProps } from './marks';

/** The files the picked session changed, above the tree; nothing when it changed none. */
export function SessionChanges(list: FileListProps) {
  const { marks } = list;
  if (marks.session.size === 0) return null;
  return (
    <Stack gap={0} mb="xs" aria-label="Changed by the session" component="section">
      <Text size="xs" fw={600} className="keel-muted" px={8}>
        Changed by the session ({marks.session.size})
      </Text>
      {[...marks.session.keys()].map((file) => (
        <FileRow key={file} {...list} path={file} name={file} depth={0} />
      ))}
    </Stack>
  );
}
