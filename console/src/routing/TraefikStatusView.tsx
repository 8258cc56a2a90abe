import { Alert, Anchor, Badge, Button, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { errorMessage } from '../api/client';
import type { components } from '../api/schema';
import { useTraefikStatus } from './api/traefik';
import { ResourceLink } from './ResourceLink';

type TraefikObject = components['schemas']['TraefikObjectDto'];

/** A status and the errors Traefik reports with it. */
function StatusCell({ status, errors }: { status: string | null; errors: string[] }) {
  const color = status === 'enabled' ? 'green' : status === 'warning' ? 'yellow' : 'red';
  return (
    <Table.Td>
      <Badge color={color} variant="light">
        {status ?? 'not loaded'}
      </Badge>
      {errors.map((e) => (
        <Text key={e} size="xs" c="var(--mantine-color-error)">
          {e}
        </Text>
      ))}
    </Table.Td>
  );
}

function Objects({
  title,
  rows,
  detail,
}: {
  title: string;
  rows: TraefikObject[];
  detail: (o: TraefikObject) => string;
}) {
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {title} ({rows.length})
      </Title>
      {rows.length === 0 ? (
        <Text size="sm">None.</Text>
      ) : (
        <Table.ScrollContainer minWidth={320} mah={320} type="native">
          <Table aria-label={`Traefik ${title.toLowerCase()}`} stickyHeader>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th visibleFrom="sm">Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((o) => (
                <Table.Tr key={o.name}>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{o.name}</Table.Td>
                  <StatusCell status={o.status} errors={o.errors} />
                  <Table.Td visibleFrom="sm" style={{ wordBreak: 'break-word' }}>
                    <Text size="sm">{detail(o)}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

/** What Traefik has loaded (GET /api/traefik/status), and whether each of Keel's routers is there and healthy. */
export function TraefikStatusView() {
  const status = useTraefikStatus();
  if (status.isPending) return <Loader aria-label="Loading" />;
  if (status.error) return <Alert color="red">{errorMessage(status.error)}</Alert>;
  const data = status.data;
  if (!data.configured)
    return (
      <Text>
        No Traefik API data source is configured, so Keel cannot ask Traefik what it loaded.{' '}
        <Anchor component={Link} to="/routing/datasources" underline="always">
          Configure the traefik data source
        </Anchor>{' '}
        (its URL is Traefik's API, e.g. http://traefik:8080).
      </Text>
    );
  const healthy = data.keel_routers.filter((r) => r.healthy).length;
  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Text size="sm">
          Read from <strong>{data.source}</strong> ({data.url}).
        </Text>
        <Button variant="default" size="xs" onClick={() => void status.refetch()} loading={status.isFetching}>
          Refresh status
        </Button>
      </Group>
      {data.error ? (
        <Alert color="red" title="Traefik could not be read">
          {data.error}
        </Alert>
      ) : (
        <>
          <Stack gap="xs">
            <Title order={3} size="h5">
              Keel's routers: {healthy} of {data.keel_routers.length} loaded and healthy
            </Title>
            {data.keel_routers.length === 0 ? (
              <Text size="sm">No active resource, so Keel generates no router.</Text>
            ) : (
              <Table.ScrollContainer minWidth={320} mah={360} type="native">
                <Table aria-label="Keel's routers in Traefik" stickyHeader>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Resource</Table.Th>
                      <Table.Th>In Traefik</Table.Th>
                      <Table.Th visibleFrom="sm">Router</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.keel_routers.map((r) => (
                      <Table.Tr key={r.resource_id}>
                        <Table.Td style={{ wordBreak: 'break-all' }}>
                          <ResourceLink id={r.resource_id} host={r.host} />
                        </Table.Td>
                        <StatusCell status={r.status} errors={r.errors} />
                        <Table.Td visibleFrom="sm" style={{ wordBreak: 'break-all' }}>
                          {r.router}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </Stack>
          <Objects
            title="Routers"
            rows={data.routers}
            detail={(o) =>
              [
                o.rule,
                o.service && `→ ${o.service}`,
                o.middlewares?.length && `via ${o.middlewares.join(', ')}`,
              ]
                .filter(Boolean)
                .join(' ')
            }
          />
          <Objects title="Services" rows={data.services} detail={(o) => o.type ?? ''} />
          <Objects title="Middlewares" rows={data.middlewares} detail={(o) => o.type ?? ''} />
        </>
      )}
    </Stack>
  );
}
