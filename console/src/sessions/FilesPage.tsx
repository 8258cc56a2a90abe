import { useDeferredValue, useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Group,
  Loader,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { api, errorMessage, unwrap } from '../api/client';

const STATUS_COLOR = { added: 'teal.9', deleted: 'red.9', modified: 'blue.8' } as const;

/** The project's files (/ui/sessions/files?directory=…): find by name, read, changed files marked. */
export function FilesPage() {
  const [params] = useSearchParams();
  const directory = params.get('directory') ?? '';
  const [search, setSearch] = useState('');
  const query = useDeferredValue(search.trim());
  const [open, setOpen] = useState<string>();
  const status = useQuery({
    queryKey: ['sessions', 'file-status', directory],
    queryFn: async () => unwrap(await api.GET('/file/status', { params: { query: { directory } } })),
  });
  const found = useQuery({
    queryKey: ['sessions', 'find-files', directory, query],
    queryFn: async () =>
      unwrap(await api.GET('/find/file', { params: { query: { directory, query, limit: 100 } } })),
  });
  const content = useQuery({
    queryKey: ['sessions', 'file-content', directory, open],
    enabled: !!open,
    queryFn: async () =>
      unwrap(await api.GET('/file/content', { params: { query: { directory, path: open! } } })),
  });
  const changed = new Map((status.data ?? []).map((f) => [f.path, f]));

  return (
    <Stack gap="md">
      <Anchor component={Link} to={`/sessions?directory=${encodeURIComponent(directory)}`} size="sm">
        ← Sessions
      </Anchor>
      <Title order={1} size="h3">
        Files
      </Title>
      <Text size="sm" className="keel-muted">
        {directory}
      </Text>
      <TextInput
        label="Find a file"
        placeholder="Name or part of a path"
        value={search}
        onChange={(e) => setSearch(e.currentTarget.value)}
      />
      {(found.error ?? status.error) && (
        <Alert color="red">{errorMessage(found.error ?? status.error)}</Alert>
      )}
      {found.isLoading && <Loader aria-label="Loading files" />}
      <Stack gap={2} component="ul" aria-label="Files" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {(found.data ?? []).map((path) => {
          const change = changed.get(path);
          return (
            <li key={path}>
              <UnstyledButton
                onClick={() => setOpen(path)}
                aria-current={open === path}
                style={{ width: '100%' }}
              >
                <Group gap="xs" wrap="nowrap">
                  <Text size="sm" ff="monospace" fw={open === path ? 700 : undefined} truncate>
                    {path}
                  </Text>
                  {change && (
                    <Badge size="xs" variant="filled" color={STATUS_COLOR[change.status]}>
                      {change.status} +{change.added} −{change.removed}
                    </Badge>
                  )}
                </Group>
              </UnstyledButton>
            </li>
          );
        })}
      </Stack>
      {open && (
        <Paper withBorder p="sm" radius="md" component="section" aria-label={`File ${open}`}>
          <Text fw={600} ff="monospace" mb="xs">
            {open}
          </Text>
          {content.isLoading && <Loader size="sm" aria-label="Loading file" />}
          {content.error && <Alert color="red">{errorMessage(content.error)}</Alert>}
          {content.data && (
            <pre className="keel-pre" style={{ maxHeight: '60vh' }}>
              {content.data.content}
            </pre>
          )}
        </Paper>
      )}
    </Stack>
  );
}
