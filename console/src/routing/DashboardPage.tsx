import { Alert, Anchor, Card, List, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { LastSyncText } from './LastSyncText';
import { useActiveDataSource, useMiddlewares, useResources, useServices } from './queries';

function ResourceLink({ id, host }: { id: string; host: string }) {
  return (
    <Anchor component={Link} to={`/routing/resources/${encodeURIComponent(id)}`}>
      {host}
    </Anchor>
  );
}

function Figure({ label, value }: { label: string; value: number | string }) {
  return (
    <Card withBorder padding="md">
      <Text size="sm">{label}</Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
    </Card>
  );
}

export function DashboardPage() {
  const resources = useResources();
  const middlewares = useMiddlewares();
  const services = useServices();
  const source = useActiveDataSource();
  const failure = resources.error ?? middlewares.error ?? services.error;

  if (resources.isPending || middlewares.isPending || services.isPending)
    return <Loader aria-label="Loading" />;
  if (failure) return <Alert color="red">{errorMessage(failure)}</Alert>;

  const all = resources.data ?? [];
  const active = all.filter((r) => r.status === 'active');
  const unprotected = active.filter((r) => r.assigned_middlewares.length === 0);

  return (
    <Stack>
      <Title order={1} size="h2">
        Routing dashboard
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Figure label="Active resources" value={active.length} />
        <Figure label="Disabled resources" value={all.length - active.length} />
        <Figure label="Middlewares" value={middlewares.data?.length ?? 0} />
        <Figure label="Services" value={services.data?.length ?? 0} />
      </SimpleGrid>
      <Card withBorder>
        <Title order={2} size="h4">
          Data source
        </Title>
        {source.error ? (
          <Text c="var(--mantine-color-error)">{errorMessage(source.error)}</Text>
        ) : source.data ? (
          <>
            <Text>
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
      <Card withBorder>
        <Title order={2} size="h4">
          Protection: {active.length - unprotected.length} of {active.length} active resources protected
        </Title>
        {unprotected.length === 0 ? (
          <Text>Every active resource has at least one middleware.</Text>
        ) : (
          <>
            <Text>{unprotected.length} active resources have no middleware:</Text>
            <List>
              {unprotected.slice(0, 20).map((r) => (
                <List.Item key={r.id}>
                  <ResourceLink id={r.id} host={r.host} />
                </List.Item>
              ))}
            </List>
            {unprotected.length > 20 && <Text size="sm">and {unprotected.length - 20} more.</Text>}
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
                {all.slice(0, 5).map((r) => (
                  <Table.Tr key={r.id}>
                    <Table.Td>
                      <ResourceLink id={r.id} host={r.host} />
                    </Table.Td>
                    <Table.Td>{r.status}</Table.Td>
                    <Table.Td>{r.assigned_middlewares.length}</Table.Td>
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
