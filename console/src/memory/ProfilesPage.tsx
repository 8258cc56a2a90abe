import { Alert, Grid, List, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useProfile, useRecentMemories } from './api/memories';
import { ContainerTagForm, useContainerTag } from './ContainerTagForm';
import { memoryErrorText } from './memoryText';

/** The static and dynamic profile of a container tag, and its most recently changed memories. */
export default function ProfilesPage() {
  const [tag, setTag] = useContainerTag();
  const profile = useProfile(tag);
  const recent = useRecentMemories(tag);

  return (
    <Stack>
      <Title order={1} size="h2">
        Profiles
      </Title>
      <ContainerTagForm tag={tag} onShow={setTag} />
      {profile.isFetching && <Loader aria-label="Loading" />}
      {profile.error && <Alert color="red">{memoryErrorText(profile.error)}</Alert>}
      {tag && profile.data && (
        <Grid>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <Facts title="Static (lasting facts)" facts={profile.data.profile.static ?? []} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <Facts title="Dynamic (recent context)" facts={profile.data.profile.dynamic ?? []} />
          </Grid.Col>
          <Grid.Col span={12}>
            <Paper withBorder p="md">
              <Title order={2} size="h4" mb="xs">
                Recently changed
              </Title>
              {recent.data?.memoryEntries.length === 0 && <Text size="sm">Nothing yet.</Text>}
              <List size="sm" spacing={4}>
                {recent.data?.memoryEntries.map((m) => (
                  <List.Item key={m.id}>
                    {new Date(m.updatedAt).toLocaleString('en')} · v{m.version}
                    {m.isForgotten ? ' · forgotten' : ''} · {m.memory}
                  </List.Item>
                ))}
              </List>
            </Paper>
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}

function Facts({ title, facts }: { title: string; facts: string[] }) {
  return (
    <Paper withBorder p="md" h="100%">
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {facts.length === 0 ? (
        <Text size="sm">No facts.</Text>
      ) : (
        <List size="sm" spacing={4}>
          {facts.map((f, i) => (
            <List.Item key={i}>{f}</List.Item>
          ))}
        </List>
      )}
    </Paper>
  );
}
