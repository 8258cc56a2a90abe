import {
  Alert,
  Anchor,
  Badge,
  Card,
  Group,
  List,
  Loader,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { useResources } from '../routing/api/resources';
import { healthQuery, liveSessionsQuery, memoryFiguresQuery } from './api/overview';

function Section({ title, to, children }: { title: string; to?: string; children: ReactNode }) {
  return (
    <Card withBorder padding="md" component="section" aria-label={title}>
      <Group justify="space-between" mb="xs" wrap="nowrap">
        <Title order={2} size="h4">
          {title}
        </Title>
        {to && (
          <Anchor component={Link} to={to} size="sm" aria-label={`Open ${title}`}>
            Open
          </Anchor>
        )}
      </Group>
      {children}
    </Card>
  );
}

/** One item of a section's list, on one line. */
function ItemLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Anchor component={Link} to={to} size="sm" pl="sm" truncate>
      {children}
    </Anchor>
  );
}

/** /ui/: what needs a look on each of Keel's three surfaces, each item a link to where it is handled. */
export function OverviewPage() {
  const sessions = useQuery(liveSessionsQuery());
  const memory = useQuery(memoryFiguresQuery());
  const resources = useResources();
  const health = useQuery(healthQuery());
  const active = (resources.data ?? []).filter((r) => r.status === 'active');
  const unprotected = active.filter((r) => r.assigned_middlewares.length === 0);
  const waiting = (sessions.data ?? []).filter((s) => s.state === 'permission');
  const working = (sessions.data ?? []).filter((s) => s.state === 'working');

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Overview
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Section title="Sessions" to="/sessions">
          {sessions.isLoading && <Loader size="sm" aria-label="Loading sessions" />}
          {sessions.error && <Text c="var(--mantine-color-error)">{errorMessage(sessions.error)}</Text>}
          {sessions.data && sessions.data.length === 0 && (
            <Text size="sm" className="keel-muted">
              Nothing running and nothing waiting for a permission.{' '}
              <Anchor component={Link} to="/sessions">
                Open a project
              </Anchor>{' '}
              to start a session.
            </Text>
          )}
          <List spacing={4} listStyleType="none" ml={0} pl={0}>
            {[...waiting, ...working].map((s) => (
              <List.Item key={s.id}>
                <Group gap="xs" wrap="nowrap">
                  <Badge
                    size="sm"
                    variant="filled"
                    color={s.state === 'permission' ? 'red.9' : 'blue.8'}
                    style={{ flexShrink: 0 }}
                  >
                    {s.state === 'permission' ? 'waiting for permission' : 'working'}
                  </Badge>
                  <Anchor
                    component={Link}
                    to={`/sessions/${s.id}?directory=${encodeURIComponent(s.directory)}`}
                    truncate
                  >
                    {s.title}
                  </Anchor>
                </Group>
              </List.Item>
            ))}
          </List>
        </Section>
        <Section title="Memory" to="/memory">
          {memory.isLoading && <Loader size="sm" aria-label="Loading memory figures" />}
          {memory.error && <Text c="var(--mantine-color-error)">{errorMessage(memory.error)}</Text>}
          {memory.data === 'key' && (
            <Text size="sm">
              The memory API wants an API key:{' '}
              <Anchor component={Link} to="/memory">
                enter it on the Memory pages
              </Anchor>
              .
            </Text>
          )}
          {memory.data && memory.data !== 'key' && (
            <Stack gap={4}>
              <Anchor component={Link} to="/memory/pipeline">
                {memory.data.pipeline.pagination.totalItems} document
                {memory.data.pipeline.pagination.totalItems === 1 ? '' : 's'} in the pipeline
              </Anchor>
              <Anchor
                component={Link}
                to="/memory/documents"
                c={memory.data.failed.pagination.totalItems ? 'var(--mantine-color-error)' : undefined}
              >
                {memory.data.failed.pagination.totalItems} failed
              </Anchor>
              {memory.data.failed.memories.map((d) => (
                <ItemLink key={d.id} to={`/memory/documents/${encodeURIComponent(d.id)}`}>
                  {d.title || d.id}
                </ItemLink>
              ))}
            </Stack>
          )}
        </Section>
        <Section title="Routing" to="/routing">
          {resources.isLoading && <Loader size="sm" aria-label="Loading resources" />}
          {resources.error && <Text c="var(--mantine-color-error)">{errorMessage(resources.error)}</Text>}
          {resources.data && (
            <Stack gap={4}>
              <Text size="sm">
                {active.length === 0
                  ? 'No active resource yet: add a data source to sync them.'
                  : unprotected.length === 0
                    ? `All ${active.length} active resources have a middleware.`
                    : `${unprotected.length} of ${active.length} active resources have no middleware:`}
              </Text>
              {unprotected.slice(0, 6).map((r) => (
                <ItemLink key={r.id} to={`/routing/resources/${encodeURIComponent(r.id)}`}>
                  {r.host}
                </ItemLink>
              ))}
              {unprotected.length > 6 && (
                <Anchor component={Link} to="/routing/resources" size="sm" pl="sm">
                  and {unprotected.length - 6} more
                </Anchor>
              )}
            </Stack>
          )}
        </Section>
        <Section title="Server">
          {health.isLoading && <Loader size="sm" aria-label="Loading health" />}
          {health.error && <Alert color="red">{errorMessage(health.error)}</Alert>}
          {health.data && (
            <Stack gap={4}>
              <Group gap="xs">
                <Badge color={health.data.ready ? 'teal.9' : 'red.9'} variant="filled">
                  {health.data.ready ? 'ready' : 'not ready'}
                </Badge>
                <Text size="sm">Keel {health.data.version}</Text>
              </Group>
              <Text size="sm" className="keel-muted">
                Database {health.data.database}, migrations {health.data.migrations}.
              </Text>
              <Anchor href="/docs" size="sm">
                API reference (/docs)
              </Anchor>
            </Stack>
          )}
        </Section>
      </SimpleGrid>
    </Stack>
  );
}
