import { useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Group,
  Loader,
  Modal,
  ScrollArea,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { errorMessage } from '../api/client';
import { useDirectories, useOpenableProjects } from './api/projects';
import '../conversation/parts.css';

/** A list without bullets or indent (its items are rows). */
export const bareList = { listStyle: 'none', padding: 0, margin: 0 } as const;

/** Recent projects first (the ones /project knows, latest used first), then any allowed directory. */
export function OpenProjectButton({
  onOpen,
  variant = 'default',
}: {
  onOpen: (directory: string) => void;
  variant?: 'default' | 'filled';
}) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button variant={variant} onClick={() => setOpened(true)}>
        Open project…
      </Button>
      <Modal
        opened={opened}
        onClose={() => setOpened(false)}
        title="Open a project"
        size="lg"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {opened && (
          <OpenProject
            onOpen={(directory) => {
              setOpened(false);
              onOpen(directory);
            }}
          />
        )}
      </Modal>
    </>
  );
}

function OpenProject({ onOpen }: { onOpen: (directory: string) => void }) {
  const projects = useOpenableProjects();
  const recent = (projects.data ?? []).slice(0, 8);
  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Title order={2} size="h5">
          Recent projects
        </Title>
        {projects.isLoading && <Loader size="sm" aria-label="Loading projects" />}
        {projects.data && recent.length === 0 && (
          <Text size="sm" className="keel-muted">
            None yet: pick a directory below.
          </Text>
        )}
        <Stack gap={0} component="ul" style={bareList} aria-label="Recent projects">
          {recent.map((p) => (
            <li key={p.id}>
              <UnstyledButton onClick={() => onOpen(p.worktree)} className="keel-row-button">
                <Group justify="space-between" wrap="nowrap" gap="xs">
                  <Text size="sm" truncate ff="monospace">
                    {p.worktree}
                  </Text>
                  <Text size="xs" className="keel-muted" style={{ flexShrink: 0 }}>
                    {new Date(p.time.updated).toLocaleDateString()}
                  </Text>
                </Group>
              </UnstyledButton>
            </li>
          ))}
        </Stack>
      </Stack>
      <DirectoryBrowser onOpen={onOpen} />
    </Stack>
  );
}

function DirectoryBrowser({ onOpen }: { onOpen: (directory: string) => void }) {
  const [path, setPath] = useState<string | null>(null);
  const listing = useDirectories(path);
  const data = listing.data;
  // Breadcrumbs: the top level (the allowed roots), the root the listing is in, then each directory below it.
  const crumbs: { label: string; path: string | null }[] = [{ label: 'Allowed directories', path: null }];
  if (data?.path && data.root) {
    crumbs.push({ label: data.root, path: data.root });
    let at = data.root;
    for (const segment of data.path.slice(data.root.length).split('/').filter(Boolean)) {
      at = `${at === '/' ? '' : at}/${segment}`;
      crumbs.push({ label: segment, path: at });
    }
  }
  return (
    <Stack gap={4}>
      <Title order={2} size="h5">
        Browse
      </Title>
      <Breadcrumbs separatorMargin={4} style={{ flexWrap: 'wrap' }}>
        {crumbs.map((c, i) =>
          i === crumbs.length - 1 ? (
            <Text key={c.path ?? 'top'} size="sm" fw={500}>
              {c.label}
            </Text>
          ) : (
            <Anchor
              key={c.path ?? 'top'}
              size="sm"
              component="button"
              type="button"
              onClick={() => setPath(c.path)}
            >
              {c.label}
            </Anchor>
          ),
        )}
      </Breadcrumbs>
      {listing.error && <Alert color="red">{errorMessage(listing.error)}</Alert>}
      <ScrollArea.Autosize mah={320} type="auto">
        {listing.isLoading && <Loader size="sm" aria-label="Loading directories" />}
        {data && data.directories.length === 0 && (
          <Text size="sm" className="keel-muted" py={4}>
            No subdirectories.
          </Text>
        )}
        <Stack gap={0} component="ul" style={bareList} aria-label="Directories">
          {data?.directories.map((d) => (
            <li key={d.path}>
              <UnstyledButton className="keel-row-button" onClick={() => setPath(d.path)}>
                <Group gap="xs" wrap="nowrap">
                  <Text size="sm" aria-hidden>
                    📁
                  </Text>
                  <Text size="sm" truncate>
                    {data.path === null ? d.path : d.name}
                  </Text>
                  {d.git && (
                    <Badge size="xs" variant="light" color="gray">
                      git
                    </Badge>
                  )}
                </Group>
              </UnstyledButton>
            </li>
          ))}
        </Stack>
        {data?.truncated && (
          <Text size="xs" className="keel-muted">
            Only the first entries are listed.
          </Text>
        )}
      </ScrollArea.Autosize>
      <Group justify="flex-end" mt="xs">
        <Button onClick={() => data?.path && onOpen(data.path)} disabled={!data?.path}>
          {data?.path ? `Open ${data.path.split('/').pop() || '/'}` : 'Pick a directory'}
        </Button>
      </Group>
    </Stack>
  );
}
