import { Alert, Card, List, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { errorMessage } from '../api/client';
import { useMiddlewares, useResources, useServices } from './queries';

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
          Protection
        </Title>
        {unprotected.length === 0 ? (
          <Text>Every active resource has at least one middleware.</Text>
        ) : (
          <>
            <Text>{unprotected.length} active resources have no middleware:</Text>
            <List>
              {unprotected.slice(0, 20).map((r) => (
                <List.Item key={r.id}>{r.host}</List.Item>
              ))}
            </List>
          </>
        )}
      </Card>
    </Stack>
  );
}
