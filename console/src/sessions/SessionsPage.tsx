import { useMemo, useState } from 'react';
import {
  Alert,
  Badge,
  Box,
  Button,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { Link, Route, Routes, useNavigate, useSearchParams } from 'react-router-dom';
import { api, errorMessage, unwrap } from '../api/client';
import { preloadable } from '../share/preloadable';
import type { Session } from './conversation';
import { useProjects, useSessionList } from './queries';
import { SessionView } from './SessionView';
import { useSessionEvents } from './useSessionEvents';

// The terminal (xterm.js) and the file browser load when opened, not with every session page.
const TerminalPage = preloadable(
  async () => ({ default: (await import('./TerminalPage')).TerminalPage }),
  /^\/sessions\/terminal/,
);
const FilesPage = preloadable(
  async () => ({ default: (await import('./FilesPage')).FilesPage }),
  /^\/sessions\/files/,
);

/** /sessions (projects and their sessions) and /sessions/:id (one session), lazy-loaded by App. */
export default function SessionsRoutes() {
  return (
    <Routes>
      <Route index element={<SessionsPage />} />
      <Route path="terminal" element={<TerminalPage />} />
      <Route path="files" element={<FilesPage />} />
      <Route path=":sessionID" element={<SessionView />} />
    </Routes>
  );
}

export function sessionPath(id: string, directory: string): string {
  return `/sessions/${id}?directory=${encodeURIComponent(directory)}`;
}

function SessionsPage() {
  const [params, setParams] = useSearchParams();
  const projects = useProjects();
  const directory = params.get('directory') ?? projects.data?.[0]?.worktree;
  const sessions = useSessionList(directory);
  const [search, setSearch] = useState('');
  const [archived, setArchived] = useState(false);
  const navigate = useNavigate();
  useSessionEvents(directory);

  const create = useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/session', { params: { query: { directory } }, body: {} })),
    onSuccess: (session) => void navigate(sessionPath(session.id, directory!)),
  });

  const tree = useMemo(() => {
    const all = (sessions.data ?? []).filter((s) => archived || s.time.archived === undefined);
    const needle = search.trim().toLowerCase();
    const children = new Map<string, Session[]>();
    for (const s of all) if (s.parentID) children.set(s.parentID, [...(children.get(s.parentID) ?? []), s]);
    const matches = (s: Session): boolean =>
      !needle || s.title.toLowerCase().includes(needle) || (children.get(s.id) ?? []).some(matches);
    const rows: { session: Session; depth: number }[] = [];
    const walk = (s: Session, depth: number) => {
      rows.push({ session: s, depth });
      for (const c of children.get(s.id) ?? []) if (matches(c)) walk(c, depth + 1);
    };
    const ids = new Set(all.map((s) => s.id));
    for (const s of all) if ((!s.parentID || !ids.has(s.parentID)) && matches(s)) walk(s, 0);
    return rows;
  }, [sessions.data, search, archived]);

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">
          Sessions
        </Title>
        <Group gap="xs">
          <Button
            variant="default"
            component={Link}
            to={`/sessions/files?directory=${encodeURIComponent(directory ?? '')}`}
            disabled={!directory}
          >
            Files
          </Button>
          <Button
            variant="default"
            component={Link}
            to={`/sessions/terminal?directory=${encodeURIComponent(directory ?? '')}`}
            disabled={!directory}
          >
            Terminal
          </Button>
          <Button onClick={() => create.mutate()} loading={create.isPending} disabled={!directory}>
            New session
          </Button>
        </Group>
      </Group>
      {create.error && <Alert color="red">{errorMessage(create.error)}</Alert>}
      <Group wrap="wrap" align="end">
        <Select
          label="Project"
          w={{ base: '100%', sm: 320 }}
          data={(projects.data ?? []).map((p) => ({ value: p.worktree, label: p.worktree }))}
          value={directory ?? null}
          onChange={(value) => value && setParams({ directory: value })}
          placeholder={projects.isLoading ? 'Loading…' : 'No project yet'}
          allowDeselect={false}
        />
        <TextInput
          label="Search"
          placeholder="Title"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={{ base: '100%', sm: 240 }}
        />
        <Switch
          label="Show archived"
          checked={archived}
          onChange={(e) => setArchived(e.currentTarget.checked)}
          mb={8}
        />
      </Group>
      {sessions.isLoading && <Loader aria-label="Loading sessions" />}
      {sessions.error && <Alert color="red">{errorMessage(sessions.error)}</Alert>}
      {sessions.data && tree.length === 0 && (
        <Text className="keel-muted">No sessions{search ? ' match' : ' yet'}.</Text>
      )}
      <Stack
        gap={6}
        component="ul"
        style={{ listStyle: 'none', padding: 0, margin: 0 }}
        aria-label="Sessions"
      >
        {tree.map(({ session, depth }) => (
          <Box component="li" key={session.id} ml={depth * 24} style={{ contentVisibility: 'auto' }}>
            <Paper
              withBorder
              p="xs"
              radius="md"
              component={Link}
              to={sessionPath(session.id, directory!)}
              style={{ display: 'block', textDecoration: 'none', color: 'inherit' }}
            >
              <Group justify="space-between" wrap="nowrap">
                <Text fw={500} truncate>
                  {depth > 0 ? '↳ ' : ''}
                  {session.title}
                </Text>
                <Group gap={6} wrap="nowrap">
                  {session.share && <Badge variant="filled">shared</Badge>}
                  {session.time.archived !== undefined && <Badge color="gray.7">archived</Badge>}
                  <Text size="xs" className="keel-muted" visibleFrom="xs">
                    {new Date(session.time.updated).toLocaleString()}
                  </Text>
                </Group>
              </Group>
            </Paper>
          </Box>
        ))}
      </Stack>
    </Stack>
  );
}
