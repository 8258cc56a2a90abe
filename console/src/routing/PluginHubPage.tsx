import { useEffect, useMemo, useState, useDeferredValue } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Group,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { errorMessage } from '../api/client';
import {
  useInstallPlugin,
  usePluginConfigPath,
  usePlugins,
  useRemovePlugin,
  useSavePluginConfigPath,
  type Plugin,
} from './api/plugins';

const PAGE = 48;
/** The API's field names, as this page labels them. */
const FIELD_LABELS: Record<string, string> = {
  path: 'Static configuration file',
  version: 'Version',
  moduleName: 'Plugin',
};

/** An API error in the words of this page (its fields' labels, no API routes). */
function pluginErrorText(error: unknown): string {
  const text = errorMessage(error);
  if (/set it first with PUT \/api\/plugins\/configpath/.test(text))
    return 'No Traefik static configuration file is set: set it above first.';
  if (/outside the directories this server may use/.test(text))
    return (
      'This file is outside the directories this server may use. Those are decided by KEEL_ALLOWED_DIRECTORIES ' +
      "in the server's environment: choose a file inside one of them, or add its directory there and restart Keel."
    );
  return text.replace(/^(path|version|moduleName): (\1 )?/, (_, field: string) => `${FIELD_LABELS[field]}: `);
}

function ConfigPathForm() {
  const configPath = usePluginConfigPath();
  const [path, setPath] = useState('');
  useEffect(() => setPath(configPath.data?.path ?? ''), [configPath.data?.path]);
  const save = useSavePluginConfigPath();

  return (
    <Card withBorder component="section" aria-labelledby="config-path-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="config-path-title">
          Traefik static configuration
        </Title>
        <Text size="sm">
          Absolute path of the Traefik static configuration (.yml or .yaml), inside the directories this
          server may use.
        </Text>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate(path.trim());
          }}
        >
          <Group align="end" wrap="wrap">
            <TextInput
              label="Static configuration file"
              placeholder="/path/to/traefik.yml"
              description="Must be inside a directory the server may use (KEEL_ALLOWED_DIRECTORIES)"
              value={path}
              onChange={(event) => {
                setPath(event.currentTarget.value);
                save.reset();
              }}
              error={save.error ? pluginErrorText(save.error) : undefined}
              disabled={configPath.isPending}
              style={{ flex: '1 1 260px' }}
            />
            <Button
              type="submit"
              loading={save.isPending}
              disabled={!path.trim() || path.trim() === configPath.data?.path}
            >
              Save path
            </Button>
          </Group>
        </form>
        {configPath.error && <Alert color="red">{errorMessage(configPath.error)}</Alert>}
        {!configPath.isPending && !configPath.data?.path && !save.isSuccess && (
          <Text size="sm">No file is set yet: plugins cannot be installed until one is.</Text>
        )}
        {save.isSuccess && (
          <Text size="sm" role="status">
            {save.data.message}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function PluginCard({ plugin, configured }: { plugin: Plugin; configured: boolean }) {
  const [version, setVersion] = useState(plugin.installedVersion ?? plugin.version ?? '');
  useEffect(
    () => setVersion(plugin.installedVersion ?? plugin.version ?? ''),
    [plugin.installedVersion, plugin.version],
  );
  const install = useInstallPlugin(plugin);
  const remove = useRemovePlugin(plugin);
  const failed = install.error ?? remove.error;
  const done = install.isSuccess ? install.data.message : remove.isSuccess ? remove.data.message : undefined;
  const busy = install.isPending || remove.isPending;
  const canUpdate =
    plugin.isInstalled && version.trim() !== '' && version.trim() !== (plugin.installedVersion ?? '');

  return (
    <Card withBorder component="article" aria-labelledby={`plugin-${plugin.key}`} data-plugin={plugin.import}>
      <Stack gap="xs" h="100%">
        <Group justify="space-between" align="start" wrap="nowrap">
          <div style={{ minWidth: 0 }}>
            <Title order={3} size="h5" id={`plugin-${plugin.key}`} style={{ overflowWrap: 'anywhere' }}>
              {plugin.displayName}
            </Title>
            {plugin.author && <Text size="xs">by {plugin.author}</Text>}
          </div>
          {plugin.isInstalled ? (
            <Badge color="green" variant="light" c="var(--mantine-color-text)" style={{ flexShrink: 0 }}>
              Installed{plugin.installedVersion ? ` ${plugin.installedVersion}` : ''}
            </Badge>
          ) : null}
        </Group>
        <Text size="sm">{plugin.summary || 'No summary.'}</Text>
        <Code style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>{plugin.import}</Code>
        {plugin.tested_with && <Text size="xs">Tested with {plugin.tested_with}</Text>}
        <Stack gap="xs" mt="auto">
          <TextInput
            id={`version-${plugin.key}`}
            label="Version"
            size="xs"
            placeholder="v1.2.3"
            value={version}
            onChange={(event) => {
              setVersion(event.currentTarget.value);
              install.reset();
            }}
            disabled={busy}
          />
          <Group gap="xs" wrap="wrap">
            {(!plugin.isInstalled || canUpdate) && (
              <Button
                size="xs"
                onClick={() => install.mutate(version)}
                loading={install.isPending}
                disabled={busy || !configured}
                title={configured ? undefined : 'Set the Traefik static configuration file above first'}
                aria-label={plugin.isInstalled ? undefined : `Install ${plugin.displayName}`}
              >
                {plugin.isInstalled ? `Update to ${version.trim()}` : 'Install'}
              </Button>
            )}
            {plugin.isInstalled && (
              <Button
                size="xs"
                color="red"
                variant="outline"
                onClick={() => remove.mutate(undefined)}
                loading={remove.isPending}
                disabled={busy}
                aria-label={`Remove ${plugin.displayName}`}
              >
                Remove
              </Button>
            )}
            {plugin.homepage && (
              <Anchor href={plugin.homepage} target="_blank" rel="noopener noreferrer" size="xs">
                Homepage
              </Anchor>
            )}
          </Group>
          {failed && (
            <Alert color="red" p="xs" role="alert">
              {pluginErrorText(failed)}
            </Alert>
          )}
          {done && !failed && (
            <Text size="xs" role="status">
              {done}
            </Text>
          )}
        </Stack>
      </Stack>
    </Card>
  );
}

/** v3's Plugin Hub: the catalogue with installed state, install/remove with a version, and the file path. */
export default function PluginHubPage() {
  const plugins = usePlugins();
  const configPath = usePluginConfigPath();
  const configured = !!configPath.data?.path;
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState('all');
  const [limit, setLimit] = useState(PAGE);
  const query = useDeferredValue(search.trim().toLowerCase());

  const all = useMemo(() => plugins.data?.plugins ?? [], [plugins.data]);
  const shown = useMemo(
    () =>
      all.filter(
        (p) =>
          (filter === 'all' || (filter === 'installed') === p.isInstalled) &&
          (!query ||
            [p.displayName, p.summary, p.import, p.author ?? ''].some((text) =>
              text.toLowerCase().includes(query),
            )),
      ),
    [all, filter, query],
  );
  const installed = all.filter((p) => p.isInstalled).length;

  return (
    <Stack>
      <div>
        <Title order={1} size="h2">
          Plugin Hub
        </Title>
        <Text size="sm">
          Installing declares the plugin under experimental.plugins of Traefik&apos;s static configuration;
          restart Traefik to load it, then use it in a middleware of type plugin.
        </Text>
      </div>
      <ConfigPathForm />
      {plugins.data?.problem && (
        <Alert color="yellow" title="Catalogue URL unavailable">
          {plugins.data.problem}
        </Alert>
      )}
      <Group align="end" wrap="wrap">
        <TextInput
          label="Search plugins"
          placeholder="Name, module, author, summary"
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            setLimit(PAGE);
          }}
          style={{ flex: '1 1 220px' }}
        />
        <SegmentedControl
          aria-label="Show"
          value={filter}
          onChange={(value) => {
            setFilter(value);
            setLimit(PAGE);
          }}
          data={[
            { label: 'All', value: 'all' },
            { label: `Installed (${installed})`, value: 'installed' },
            { label: 'Available', value: 'available' },
          ]}
        />
      </Group>
      {plugins.isPending && <Loader aria-label="Loading plugins" />}
      {plugins.error && <Alert color="red">{errorMessage(plugins.error)}</Alert>}
      {plugins.data && (
        <Text size="sm" aria-live="polite">
          {shown.length} of {all.length} plugins
          {plugins.data.source === 'bundled' && !plugins.data.problem ? ' (catalogue bundled with Keel)' : ''}
        </Text>
      )}
      {configPath.isSuccess && !configured && (
        <Alert color="yellow" role="note">
          Install is off until the Traefik static configuration file is set above: Keel writes the plugins
          into that file.
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {shown.slice(0, limit).map((plugin) => (
          <PluginCard key={`${plugin.key}|${plugin.import}`} plugin={plugin} configured={configured} />
        ))}
      </SimpleGrid>
      {shown.length > limit && (
        <Button variant="default" onClick={() => setLimit(limit + PAGE)} style={{ alignSelf: 'center' }}>
          Show more ({shown.length - limit} left)
        </Button>
      )}
    </Stack>
  );
}
