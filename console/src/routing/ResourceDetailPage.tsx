import { Alert, Anchor, Badge, Card, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { useResource } from './api/resources';
import { MiddlewaresCard } from './resource/MiddlewaresCard';
import { RouterCard } from './resource/RouterSettings';
import { ServiceCard } from './resource/ServiceCard';

export default function ResourceDetailPage() {
  const { id = '' } = useParams();
  const resource = useResource(id);

  if (resource.isPending) return <Loader aria-label="Loading" />;
  if (resource.error)
    return (
      <Stack>
        <Anchor component={Link} to="/routing/resources">
          ← Resources
        </Anchor>
        <Alert color="red">{errorMessage(resource.error)}</Alert>
      </Stack>
    );
  const r = resource.data;
  const disabled = r.status === 'disabled';
  return (
    <Stack>
      <Anchor component={Link} to="/routing/resources">
        ← Resources
      </Anchor>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2" style={{ wordBreak: 'break-all' }}>
          {r.host}
        </Title>
        <Badge color={disabled ? 'gray.8' : 'teal.9'} variant="filled" size="lg">
          {r.status}
        </Badge>
      </Group>
      {disabled && (
        <Alert color="yellow">
          The data source no longer lists this resource: it is read-only until it comes back, or it can be
          deleted from the Resources page.
        </Alert>
      )}
      <Card withBorder>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
          <Fact label="Resource id" value={r.id} />
          <Fact label="Host" value={r.host} />
          <Fact label="Source" value={r.source_type || 'unknown'} />
          <Fact label="Default service" value={r.service_id} />
        </SimpleGrid>
      </Card>
      <MiddlewaresCard resource={r} disabled={disabled} />
      <ServiceCard resource={r} disabled={disabled} />
      <RouterCard resource={r} disabled={disabled} />
    </Stack>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text style={{ wordBreak: 'break-all' }}>{value}</Text>
    </div>
  );
}
