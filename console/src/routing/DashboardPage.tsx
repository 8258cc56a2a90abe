import { useState } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Card,
  List,
  Loader,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { Link } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { LastSyncText } from './LastSyncText';
import { ResourceLink } from './ResourceLink';
import { useActiveDataSource } from './api/dataSources';
import { useMiddlewares, useServices } from './api/definitions';
import { useRecentResources, useResources } from './api/resources';
import { useTraefikStatus } from './api/traefik';

const UNPROTECTED_SHOWN = 10;

function Figure({ label, value, to }: { label: string; value: number | string; to: string }) {
  return (
    <Card withBorder padding="md" component={Link} to={to}>
      <Text size="sm">{label}</Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
    </Card>
  );
}

/** Whether Traefik has Keel's routers loaded, when a Traefik API data source is configured. */
function TraefikCard() {
  const status = useTraefikStatus();
  if (status.isPending || !status.data?.configured) return null;
  const data = status.data;
  const healthy = data.keel_routers.filter((r) => r.healthy).length;
  return (
    <Card withBorder>
      <Title order={2} size="h4">
        Traefik
      </Title>
      {data.error ? (
        <Text c="var(--mantine-color-error)">{data.error}</Text>
      ) : (
        <Text>
          {healthy} of {data.keel_routers.length} of Keel's routers loaded and healthy in Traefik (
          {data.routers.length} routers, {data.services.length} services, {data.middlewares.length}{' '}
          middlewares in all).{' '}
          <Anchor component={Link} to="/routing/traefik-config?view=status" underline="always">
            Live status
          </Anchor>
        </Text>
      )}
    </Card>
  );
}

export function DashboardPage() {
  const resources = useResources();
  const recent = useRecentResources();
  const middlewares = useMiddlewares();
  const services = useServices();
  const source = useActiveDataSource();
  const [showAll, setShowAll] = useState(false);
  const failure = resources.error ?? middlewares.error ?? services.error;

  if (resources.isPending || middlewares.isPending || services.isPending)
    return <Loader aria-label="Loading" />;
  if (failure) return <Alert color="red">{errorMessage(failure)}</Alert>;

  const all = resources.data ?? [];
  const active = all.filter((r) => r.status === 'active');
  const unprotected = active.filter((r) => r.assigned_middlewares.length === 0);
  const shown = showAll ? unprotected : unprotected.slice(0, UNPROTECTED_SHOWN);

  return (
    <Stack>
      <Title order={1} size="h2">
        Routing dashboard
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Figure label="Active resources" value={active.length} to="/routing/resources?status=active" />
        <Figure
          label="Disabled resources"
          value={all.length - active.length}
          to="/routing/resources?status=disabled"
        />
        <Figure label="Middlewares" value={middlewares.data?.length ?? 0} to="/routing/middlewares" />
        <Figure label="Services" value={services.data?.length ?? 0} to="/routing/services" />
      </SimpleGrid>
      <Card withBorder>
        <Title order={2} size="h4">
          Data source
        </Title>
        {source.error ? (
          <Text c="var(--mantine-color-error)">{errorMessage(source.error)}</Text>
        ) : source.data ? (
          <>
            <Text style={{ wordBreak: 'break-word' }}>
              Active: <strong>{source.data.name}</strong> ({source.data.config.type}, {source.data.config.url}
              ){' '}
              <Anchor component={Link} to="/routing/datasources" underline="always">
                Change
              </Anchor>
            </Text>
            <LastSyncText lastSync={source.data.last_sync} />
          </>
        ) : (
          <Loader size="sm" aria-label="Loading" />
        )}
      </Card>
      <TraefikCard />
      <Card withBorder>
        <Title order={2} size="h4">
          {active.length === 0
            ? 'Protection'
            : `Protection: ${active.length - unprotected.length} of ${active.length} active resources protected`}
        </Title>
        {active.length === 0 ? (
          <Text>
            No active resource yet. Resources come from the active data source:{' '}
            <Anchor component={Link} to="/routing/datasources" underline="always">
              point it at Pangolin or Traefik
            </Anchor>{' '}
            and they appear here after the next sync; then attach middlewares to protect them.
          </Text>
        ) : unprotected.length === 0 ? (
          <Text>Every active resource has at least one middleware.</Text>
        ) : (
          <>
            <Text>
              {unprotected.length} active {unprotected.length === 1 ? 'resource has' : 'resources have'} no
              middleware:
            </Text>
            <List aria-label="Unprotected resources">
              {shown.map((r) => (
                <List.Item key={r.id}>
                  <ResourceLink id={r.id} host={r.host} />
                </List.Item>
              ))}
            </List>
            {unprotected.length > UNPROTECTED_SHOWN && (
              <Button variant="subtle" size="xs" w="fit-content" onClick={() => setShowAll(!showAll)}>
                {showAll ? 'Show fewer' : `Show all ${unprotected.length}`}
              </Button>
            )}
          </>
        )}
      </Card>
      <Card withBorder>
        <Title order={2} size="h4">
          Recent resources
        </Title>
        {all.length === 0 ? (
          <Text>No resource yet: they appear once the active data source is synced.</Text>
        ) : (
          <Table.ScrollContainer minWidth={300}>
            <Table aria-label="Recent resources">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Host</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Middlewares</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {(recent.data ?? all).slice(0, 5).map((r) => (
                  <Table.Tr key={r.id}>
                    <Table.Td style={{ wordBreak: 'break-all' }}>
                      <ResourceLink id={r.id} host={r.host} />
                    </Table.Td>
                    <Table.Td>{r.status}</Table.Td>
                    <Table.Td>
                      {r.assigned_middlewares.length
                        ? r.assigned_middlewares.map((m) => m.name).join(', ')
                        : 'none'}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
    </Stack>
  );
}
