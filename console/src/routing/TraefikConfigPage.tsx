import { useMemo } from 'react';
import {
  Alert,
  Button,
  Code,
  Group,
  Loader,
  ScrollArea,
  SegmentedControl,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useSearchParams } from 'react-router-dom';
import { stringify } from 'yaml';
import { errorMessage } from '../api/client';
import { useMiddlewares } from './api/definitions';
import { useTraefikConfig } from './api/traefik';
import { TraefikHistory } from './TraefikHistory';
import { TraefikStatusView } from './TraefikStatusView';

const VIEWS = ['document', 'changes', 'status'];

/** `- "authelia@http"` → `- "authelia@http"  # Authelia`: the YAML read with the middlewares' names. */
function withMiddlewareNames(yaml: string, names: Map<string, string>): string {
  return yaml.replace(/^(\s*- "?)([^"@\s]+)@(http|file)("?)$/gm, (line, _lead, id: string) => {
    const name = names.get(id);
    return name && name !== id ? `${line}  # ${name}` : line;
  });
}

export default function TraefikConfigPage() {
  const config = useTraefikConfig();
  const middlewares = useMiddlewares();
  const [params, setParams] = useSearchParams();
  const view = VIEWS.includes(params.get('view') ?? '') ? params.get('view')! : 'document';
  const text = useMemo(() => (config.data ? stringify(config.data) : ''), [config.data]);
  const annotated = useMemo(
    () => withMiddlewareNames(text, new Map((middlewares.data ?? []).map((m) => [m.id, m.name]))),
    [text, middlewares.data],
  );
  const number = (name: string) => {
    const value = Number(params.get(name));
    return params.get(name) && Number.isInteger(value) ? value : null;
  };

  function update(next: Record<string, string | null>) {
    const merged = new URLSearchParams(params);
    for (const [key, value] of Object.entries(next)) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    setParams(merged, { replace: true });
  }

  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'keel-traefik-dynamic.yml';
    link.click();
    URL.revokeObjectURL(url);
  }

  return (
    <Stack>
      <Title order={1} size="h2">
        Traefik configuration
      </Title>
      <Text size="sm">
        The dynamic configuration Keel generates for Traefik's HTTP provider (<code>/api/traefik-config</code>
        ), the generations the server kept, and what Traefik itself has loaded.
      </Text>
      <Group wrap="wrap">
        <SegmentedControl
          aria-label="View"
          value={view}
          onChange={(value) => update({ view: value === 'document' ? null : value })}
          data={[
            { label: 'Document (YAML)', value: 'document' },
            { label: 'Changes', value: 'changes' },
            { label: 'Live status', value: 'status' },
          ]}
        />
        {view === 'document' && (
          <>
            <Button variant="default" onClick={download} disabled={!text}>
              Download YAML
            </Button>
            <Button variant="subtle" onClick={() => void config.refetch()} loading={config.isFetching}>
              Regenerate
            </Button>
          </>
        )}
      </Group>
      {view === 'changes' ? (
        <TraefikHistory
          selected={number('generation')}
          against={number('against')}
          onSelect={(id, against) =>
            update({
              generation: id === null ? null : String(id),
              against: against === null ? null : String(against),
            })
          }
        />
      ) : view === 'status' ? (
        <TraefikStatusView />
      ) : (
        <>
          {config.isPending && <Loader aria-label="Loading" />}
          {config.error && <Alert color="red">{errorMessage(config.error)}</Alert>}
          <ScrollArea.Autosize mah="70vh" type="auto">
            <Code block aria-label="Generated configuration" tabIndex={0}>
              {annotated}
            </Code>
          </ScrollArea.Autosize>
          {annotated !== text && (
            <Text size="xs" c="dimmed">
              Comments after a middleware give its name; the downloaded file has none.
            </Text>
          )}
        </>
      )}
    </Stack>
  );
}
