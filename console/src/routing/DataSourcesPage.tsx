import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Loader,
  PasswordInput,
  SimpleGrid,
  Select,
  Stack,
  TextInput,
  Title,
} from '@mantine/core';
import { errorMessage } from '../api/client';
import { fieldErrors } from './fieldErrors';
import { useActiveDataSource, useDataSources, type DataSource as Source } from './api/dataSources';
import { useActivateDataSource, useSaveDataSource, useTestDataSource } from './api/dataSourceSettings';
import { LastSyncText } from './LastSyncText';
import { Outcome } from './resource/SettingForm';

export default function DataSourcesPage() {
  const sources = useDataSources();
  const active = useActiveDataSource();
  const activate = useActivateDataSource();

  if (sources.isPending) return <Loader aria-label="Loading" />;
  if (sources.error) return <Alert color="red">{errorMessage(sources.error)}</Alert>;
  const names = Object.keys(sources.data.sources);

  return (
    <Stack>
      <Title order={1} size="h2">
        Data sources
      </Title>
      <Card withBorder>
        <Stack gap="xs">
          <Group align="end" wrap="wrap">
            <Select
              label="Active data source"
              description="Where Keel discovers resources (Pangolin or the Traefik API)"
              data={names}
              value={sources.data.active_source}
              onChange={(name) => name && activate.mutate(name)}
              allowDeselect={false}
              disabled={activate.isPending}
            />
          </Group>
          <Outcome failed={activate.error && errorMessage(activate.error)} />
          {active.data && <LastSyncText lastSync={active.data.last_sync} />}
        </Stack>
      </Card>
      {names.map((name) => (
        <SourceForm
          key={`${name}:${JSON.stringify(sources.data.sources[name])}`}
          name={name}
          source={sources.data.sources[name]}
          active={name === sources.data.active_source}
        />
      ))}
    </Stack>
  );
}

function SourceForm({ name, source, active }: { name: string; source: Source; active: boolean }) {
  const [url, setUrl] = useState(source.url);
  const [username, setUsername] = useState(source.basic_auth?.username ?? '');
  // The stored password is never sent to the browser: empty here means "keep it" when one is stored.
  const hasPassword = !!source.basic_auth?.password;
  const [password, setPassword] = useState('');
  const body = (): Source => ({
    type: source.type,
    url,
    basic_auth: { username, password: password || (hasPassword ? (source.basic_auth?.password ?? '') : '') },
  });
  // Save is for a change: enabled once a field differs from what is stored (a typed password is one).
  const changed = url !== source.url || username !== (source.basic_auth?.username ?? '') || password !== '';
  const save = useSaveDataSource(name);
  const test = useTestDataSource(name);
  const errors = fieldErrors(save.error);

  return (
    <Card withBorder>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!changed) return;
          test.reset();
          save.mutate(body(), { onSuccess: () => setPassword('') });
        }}
      >
        <Stack gap="sm">
          <Group gap="xs">
            <Title order={2} size="h4">
              {name}
            </Title>
            <Badge variant="light">{source.type}</Badge>
            {active && (
              <Badge color="teal.9" variant="filled">
                active
              </Badge>
            )}
          </Group>
          <TextInput
            label="URL"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={errors.url}
            required
          />
          {/* One column on a phone: a wrapped Group grow would keep each field at half the width. */}
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label="Username"
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
              error={errors['basic_auth.username']}
              autoComplete="off"
            />
            <PasswordInput
              label="Password"
              description={hasPassword ? 'A password is stored; leave empty to keep it' : 'None stored'}
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={errors['basic_auth.password']}
              autoComplete="new-password"
            />
          </SimpleGrid>
          <Group wrap="wrap">
            <Button type="submit" loading={save.isPending} disabled={!changed}>
              Save
            </Button>
            <Button
              variant="default"
              loading={test.isPending}
              onClick={() => {
                save.reset();
                test.mutate(body());
              }}
            >
              Test connection
            </Button>
            <Outcome
              failed={test.error && errorMessage(test.error)}
              done={test.isSuccess && test.data.message}
            />
            <Outcome failed={errors['']} done={save.isSuccess && 'Saved.'} />
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
