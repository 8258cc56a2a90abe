import { useEffect, useMemo, useState } from 'react';
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
import { diffLines } from 'diff';
import { stringify } from 'yaml';
import { errorMessage } from '../api/client';
import { useTraefikConfig } from './queries';

// The API keeps no history of generations, so the browser keeps the last one it showed.
const PREVIOUS_KEY = 'keel.traefik-config.previous';
const SHOWN_KEY = 'keel.traefik-config.shown';

export function TraefikConfigPage() {
  const config = useTraefikConfig();
  const [view, setView] = useState('document');
  const text = useMemo(() => (config.data ? stringify(config.data) : ''), [config.data]);
  const [previous, setPrevious] = useState<string | null>(null);

  // When the document differs from the one last shown, that one becomes "previous".
  useEffect(() => {
    if (!text) return;
    const shown = localStorage.getItem(SHOWN_KEY);
    if (shown !== null && shown !== text) {
      localStorage.setItem(PREVIOUS_KEY, shown);
    }
    localStorage.setItem(SHOWN_KEY, text);
    setPrevious(localStorage.getItem(PREVIOUS_KEY));
  }, [text]);

  const changes = useMemo(() => (previous === null ? [] : diffLines(previous, text)), [previous, text]);
  const changed = changes.some((part) => part.added || part.removed);

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
        ).
      </Text>
      <Group wrap="wrap">
        <SegmentedControl
          aria-label="View"
          value={view}
          onChange={setView}
          data={[
            { label: 'Document (YAML)', value: 'document' },
            { label: 'Changes', value: 'changes' },
          ]}
        />
        <Button variant="default" onClick={download} disabled={!text}>
          Download YAML
        </Button>
        <Button variant="subtle" onClick={() => void config.refetch()} loading={config.isFetching}>
          Regenerate
        </Button>
      </Group>
      {config.isPending && <Loader aria-label="Loading" />}
      {config.error && <Alert color="red">{errorMessage(config.error)}</Alert>}
      {view === 'document' ? (
        <ScrollArea.Autosize mah="70vh" type="auto">
          <Code block aria-label="Generated configuration" tabIndex={0}>
            {text}
          </Code>
        </ScrollArea.Autosize>
      ) : previous === null ? (
        <Text>No earlier generation seen in this browser yet: changes show from the next change on.</Text>
      ) : !changed ? (
        <Text>No change since the previous generation.</Text>
      ) : (
        <ScrollArea.Autosize mah="70vh" type="auto">
          <Code block aria-label="Changes since the previous generation" tabIndex={0}>
            {changes.map((part, index) => (
              <span
                key={index}
                style={{
                  display: 'block',
                  background: part.added
                    ? 'var(--mantine-color-green-light)'
                    : part.removed
                      ? 'var(--mantine-color-red-light)'
                      : undefined,
                }}
              >
                {part.value
                  .replace(/\n$/, '')
                  .split('\n')
                  .map((line) => `${part.added ? '+ ' : part.removed ? '- ' : '  '}${line}`)
                  .join('\n')}
              </span>
            ))}
          </Code>
        </ScrollArea.Autosize>
      )}
    </Stack>
  );
}
