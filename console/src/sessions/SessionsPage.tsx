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
import { Link, Route, Routes, useNavigate, useSearchParams } from 'react-router-dom';
import { NotFoundPage } from '../components/NotFoundPage';
import { errorMessage } from '../api/client';
import { preloadable } from '../lib/preloadable';
import type { Session } from '../conversation/model';
import { usePermissions } from './api/permissions';
import { useOpenableProjects } from './api/projects';
import { useCreateSession } from './api/sessionActions';
import { useSessionList, useSessionStatus } from './api/sessions';
import { SessionView } from './SessionView';
import { bareList, OpenProjectButton } from './OpenProject';
import { useSessionEvents } from './api/useSessionEvents';

// The terminal (xterm.js) and the file browser load when opened, not with every session page.
const TerminalPage = preloadable(() => import('./TerminalPage'), /^\/sessions\/terminal/);
const FilesPage = preloadable(() => import('./FilesPage'), /^\/sessions\/files/);

/** /sessions (projects and their sessions) and /sessions/:id (one session), lazy-loaded by App. */
export default function SessionsRoutes() {
  return (
    <Routes>
      <Route index element={<SessionsPage />} />
      <Route path="terminal" element={<TerminalPage />} />
      <Route path="files" element={<FilesPage />} />
      <Route path=":sessionID" element={<SessionView />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

function sessionPath(id: string, directory: string): string {
  return `/sessions/${id}?directory=${encodeURIComponent(directory)}`;
}

function SessionsPage() {
  const [params, setParams] = useSearchParams();
  // Only projects the server may still open (a project made under other allowed directories would answer 400), latest first.
  const projects = useOpenableProjects();
  const directory = params.get('directory') ?? projects.data?.[0]?.worktree;
  const sessions = useSessionList(directory);
  const status = useSessionStatus(directory ?? '');
  const permissions = usePermissions(directory ?? '');
  const waiting = new Set((permissions.data ?? []).map((p) => p.sessionID));
  const [search, setSearch] = useState('');
  const [archived, setArchived] = useState(false);
  const navigate = useNavigate();
  useSessionEvents(directory);

  const create = useCreateSession(directory, {
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
          <OpenProjectButton onOpen={(value) => setParams({ directory: value })} />
          {(['Files', 'Terminal'] as const).map((page) => (
            <Button
              key={page}
              variant="default"
              component={Link}
              to={`/sessions/${page.toLowerCase()}?directory=${encodeURIComponent(directory ?? '')}`}
              disabled={!directory}
            >
              {page}
            </Button>
          ))}
          <Button onClick={() => create.mutate()} loading={create.isPending} disabled={!directory}>
            New session
          </Button>
        </Group>
      </Group>
      {create.error && <Alert color="red">{errorMessage(create.error)}</Alert>}
      <Group wrap="wrap" align="end">
        <Select
          label="Project"
          w={{ base: '100%', sm: 440 }}
          data={[
            ...new Set([...(directory ? [directory] : []), ...(projects.data ?? []).map((p) => p.worktree)]),
          ].map((worktree) => ({ value: worktree, label: worktree }))}
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
      {!directory && projects.data && (
        <Paper withBorder p="lg" radius="md">
          <Stack gap="xs" align="flex-start">
            <Text fw={600}>No project open yet</Text>
            <Text size="sm" className="keel-muted">
              Open a directory under the allowed directories to list its sessions and start one there.
            </Text>
            <OpenProjectButton variant="filled" onOpen={(value) => setParams({ directory: value })} />
          </Stack>
        </Paper>
      )}
      {sessions.data && tree.length === 0 && (
        <Text className="keel-muted">No sessions{search ? ' match' : ' yet'}.</Text>
      )}
      <Stack gap={6} component="ul" style={bareList} aria-label="Sessions">
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
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Text fw={500} truncate>
                  {depth > 0 ? '↳ ' : ''}
                  {session.title}
                </Text>
                <Group gap={6} wrap="nowrap">
                  {waiting.has(session.id) ? (
                    <Badge color="red.9" variant="filled">
                      waiting for permission
                    </Badge>
                  ) : (
                    status.data?.[session.id] &&
                    status.data[session.id].type !== 'idle' && (
                      <Badge color="blue.8" variant="filled">
                        working
                      </Badge>
                    )
                  )}
                  {session.share && <Badge variant="filled">shared</Badge>}
                  {session.time.archived !== undefined && <Badge color="gray.7">archived</Badge>}
                </Group>
              </Group>
              <Group gap="xs" wrap="nowrap" mt={2}>
                <Text size="xs" className="keel-muted" ff="monospace" truncate style={{ minWidth: 0 }}>
                  {session.directory}
                </Text>
                <Text size="xs" className="keel-muted" style={{ flexShrink: 0, marginLeft: 'auto' }}>
                  {session.summary && session.summary.files > 0
                    ? `${session.summary.files} file${session.summary.files === 1 ? '' : 's'} +${session.summary.additions} −${session.summary.deletions} · `
                    : ''}
                  last activity {relativeTime(session.time.updated)}
                </Text>
              </Group>
            </Paper>
          </Box>
        ))}
      </Stack>
    </Stack>
  );
}

/** "3 min ago", "yesterday", or the date past a week (the exact time in the list's title attribute is not needed). */
function relativeTime(time: number): string {
  const seconds = Math.round((Date.now() - time) / 1000);
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return format.format(-Math.round(seconds / 60), 'minute');
  if (seconds < 86400) return format.format(-Math.round(seconds / 3600), 'hour');
  if (seconds < 7 * 86400) return format.format(-Math.round(seconds / 86400), 'day');
  return new Date(time).toLocaleDateString();
}
