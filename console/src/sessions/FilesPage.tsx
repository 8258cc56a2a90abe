import { useDeferredValue, useMemo, useState } from 'react';
import { Alert, Anchor, Box, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { useFileStatus } from './api/files';
import { useSessionDiff, useSessionList } from './api/sessions';
import { TreeLevel } from './files/FileTree';
import { FileViewer } from './files/FileViewer';
import { FoundFiles } from './files/FoundFiles';
import type { Marks } from './files/marks';
import { SessionChanges } from './files/SessionChanges';
import '../conversation/parts.css';

/**
 * The project's files (/ui/sessions/files?directory=…[&session=…][&file=…]): a tree from the root
 * (`/file?path=`, each directory read when expanded), find by name, a file's content highlighted, the
 * files git reports changed marked in the tree, and a picked session's changes as a per-file diff.
 */
export default function FilesPage() {
  const [params, setParams] = useSearchParams();
  const directory = params.get('directory') ?? '';
  const sessionID = params.get('session') ?? '';
  const open = params.get('file') ?? undefined;
  const [search, setSearch] = useState('');
  const query = useDeferredValue(search.trim());
  const set = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setParams(next, { replace: true });
  };

  const status = useFileStatus(directory);
  const sessions = useSessionList(directory);
  const sessionDiff = useSessionDiff(directory, sessionID);
  const marks: Marks = useMemo(
    () => ({
      git: new Map((status.data ?? []).map((f) => [f.path, f])),
      session: new Map((sessionDiff.data ?? []).map((d) => [d.file, d])),
    }),
    [status.data, sessionDiff.data],
  );
  const onOpen = (path: string) => set({ file: path });

  return (
    <Stack gap="md">
      <Anchor component={Link} to={`/sessions?directory=${encodeURIComponent(directory)}`} size="sm">
        ← Sessions
      </Anchor>
      <Group justify="space-between" align="end" wrap="wrap" gap="sm">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Title order={1} size="h3">
            Files
          </Title>
          <Text size="sm" className="keel-muted" style={{ overflowWrap: 'anywhere' }}>
            {directory}
          </Text>
        </Stack>
        <Select
          label="Changes of session"
          placeholder="None"
          clearable
          w={{ base: '100%', sm: 300 }}
          data={(sessions.data ?? []).map((s) => ({ value: s.id, label: s.title }))}
          value={sessionID || null}
          onChange={(value) => set({ session: value ?? undefined })}
        />
      </Group>
      {(status.error ?? sessionDiff.error) && (
        <Alert color="red">{errorMessage(status.error ?? sessionDiff.error)}</Alert>
      )}
      <div className="keel-files">
        <Paper withBorder p="xs" radius="md" className="keel-files-tree">
          <TextInput
            label="Find a file"
            placeholder="Name or part of a path"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            mb="xs"
          />
          {sessionID && <SessionChanges marks={marks} open={open} onOpen={onOpen} />}
          {query !== '' ? (
            <FoundFiles directory={directory} query={query} marks={marks} open={open} onOpen={onOpen} />
          ) : (
            <nav aria-label="File tree">
              <TreeLevel directory={directory} path="" depth={0} marks={marks} open={open} onOpen={onOpen} />
            </nav>
          )}
        </Paper>
        <Box style={{ minWidth: 0 }}>
          {open ? (
            <FileViewer
              key={open}
              directory={directory}
              path={open}
              change={marks.git.get(open)}
              sessionChange={marks.session.get(open)}
            />
          ) : (
            <Paper withBorder p="lg" radius="md">
              <Text className="keel-muted">
                Pick a file in the tree to read it
                {sessionID ? ', or one the session changed to see its diff' : ''}.
              </Text>
            </Paper>
          )}
        </Box>
      </div>
    </Stack>
  );
}
