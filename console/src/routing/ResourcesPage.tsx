import { memo, useDeferredValue, useMemo, useRef, useState } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Group,
  Modal,
  Loader,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Link, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { useDeleteResources, useResources, type Resource } from './api/resources';
import { ResourceLink } from './ResourceLink';

const ROW_HEIGHT = 44;
const MIDDLEWARES_WIDTH = '35%';

/** All resources, filtered in the browser; only the rows in view are rendered, so thousands stay fast. */
export function ResourcesPage() {
  const resources = useResources();
  const [search, setSearch] = useState('');
  const [params] = useSearchParams();
  const [status, setStatus] = useState(() =>
    ['active', 'disabled'].includes(params.get('status') ?? '') ? params.get('status')! : 'all',
  );
  const [source, setSource] = useState<string | null>(null);
  const query = useDeferredValue(search.trim().toLowerCase());
  const scroller = useRef<HTMLDivElement>(null);

  const all = useMemo(() => resources.data ?? [], [resources.data]);
  const sources = useMemo(() => [...new Set(all.map((r) => r.source_type))].sort(), [all]);
  // Lowercased once per answer, not once per keystroke: filtering 5,000 rows stays a few milliseconds.
  const keys = useMemo(() => all.map((r) => `${r.host}\n${r.id}`.toLowerCase()), [all]);
  const shown = useMemo(
    () =>
      all.filter(
        (r, i) =>
          (status === 'all' || r.status === status) &&
          (!source || r.source_type === source) &&
          (!query || keys[i].includes(query)),
      ),
    [all, keys, status, source, query],
  );
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">
          Resources
        </Title>
        <BulkDelete ids={all.filter((r) => r.status === 'disabled').map((r) => r.id)} />
      </Group>
      <Group align="end" wrap="wrap">
        <TextInput
          label="Search"
          placeholder="Host or id"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          style={{ flex: '1 1 200px' }}
        />
        <SegmentedControl
          aria-label="Status"
          value={status}
          onChange={setStatus}
          data={[
            { label: 'All', value: 'all' },
            { label: 'Active', value: 'active' },
            { label: 'Disabled', value: 'disabled' },
          ]}
        />
        <Select
          label="Source"
          placeholder="Any source"
          clearable
          data={sources}
          value={source}
          onChange={setSource}
        />
      </Group>
      {resources.isPending && <Loader aria-label="Loading" />}
      {resources.error && <Alert color="red">{errorMessage(resources.error)}</Alert>}
      <Text size="sm" aria-live="polite">
        {shown.length} of {all.length} resources
      </Text>
      {!resources.isPending && all.length === 0 ? (
        <Paper withBorder p="md">
          <Text>
            No resource yet. Resources come from the active data source:{' '}
            <Anchor component={Link} to="/routing/datasources">
              point it at Pangolin or Traefik
            </Anchor>{' '}
            and they appear here after the next sync.
          </Text>
        </Paper>
      ) : (
        <div
          ref={scroller}
          role="table"
          tabIndex={0}
          aria-label="Resources"
          aria-rowcount={shown.length}
          style={{
            height: 'min(70vh, 640px)',
            overflow: 'auto',
            border: '1px solid var(--mantine-color-default-border)',
          }}
        >
          <Group
            role="row"
            wrap="nowrap"
            justify="space-between"
            px="sm"
            h={36}
            style={{
              position: 'sticky',
              top: 0,
              zIndex: 1,
              background: 'var(--mantine-color-body)',
              borderBottom: '1px solid var(--mantine-color-default-border)',
            }}
          >
            <Text role="columnheader" size="sm" fw={700} style={{ flex: 1 }}>
              Host
            </Text>
            <Text role="columnheader" size="sm" fw={700} w={80} visibleFrom="sm">
              Source
            </Text>
            <Text role="columnheader" size="sm" fw={700} w={MIDDLEWARES_WIDTH}>
              Middlewares
            </Text>
            <Text role="columnheader" size="sm" fw={700} w={70}>
              Status
            </Text>
          </Group>
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((row) => (
              <ResourceRow
                key={shown[row.index].id}
                resource={shown[row.index]}
                index={row.index}
                start={row.start}
              />
            ))}
          </div>
        </div>
      )}
    </Stack>
  );
}

/** One table row; memoized, so a keystroke re-renders only the rows that moved or appeared. */
const ResourceRow = memo(function ResourceRow({
  resource: r,
  index,
  start,
}: {
  resource: Resource;
  index: number;
  start: number;
}) {
  return (
    <Group
      role="row"
      aria-rowindex={index + 1}
      wrap="nowrap"
      justify="space-between"
      px="sm"
      style={{
        position: 'absolute',
        top: 0,
        left: 0,
        right: 0,
        height: ROW_HEIGHT,
        transform: `translateY(${start}px)`,
        borderBottom: '1px solid var(--mantine-color-default-border)',
      }}
    >
      <Text role="cell" truncate style={{ flex: 1 }}>
        <ResourceLink id={r.id} host={r.host} />
      </Text>
      <Text role="cell" size="sm" w={80} visibleFrom="sm">
        {r.source_type}
      </Text>
      <Text
        role="cell"
        size="sm"
        w={MIDDLEWARES_WIDTH}
        truncate
        title={r.assigned_middlewares.map((m) => m.name).join(', ')}
        c={r.assigned_middlewares.length ? undefined : 'dimmed'}
      >
        {r.assigned_middlewares.length ? r.assigned_middlewares.map((m) => m.name).join(', ') : 'none'}
      </Text>
      <Text role="cell" size="sm" fw={700} w={70}>
        {r.status}
      </Text>
    </Group>
  );
});

/** Deletes every disabled resource (the API deletes only disabled ones), a few requests at a time. */
function BulkDelete({ ids }: { ids: string[] }) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState(0);
  const remove = useDeleteResources(() => setDone((n) => n + 1));
  if (!ids.length && !open) return null;
  return (
    <>
      <Button variant="light" color="red" onClick={() => setOpen(true)}>
        Delete disabled resources ({ids.length})
      </Button>
      <Modal
        opened={open}
        onClose={() => {
          setOpen(false);
          remove.reset();
        }}
        title="Delete disabled resources?"
      >
        <Stack>
          <Text>
            {ids.length} resources are no longer listed by their data source. Deleting them also drops their
            middleware and service assignments.
          </Text>
          {remove.isPending && (
            <Text aria-live="polite">
              Deleted {done} of {remove.variables?.length ?? ids.length}…
            </Text>
          )}
          {remove.error && (
            <Alert color="red" role="alert">
              {errorMessage(remove.error)}
            </Alert>
          )}
          <Group justify="end">
            <Button variant="default" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              disabled={!ids.length}
              onClick={() => {
                setDone(0);
                remove.mutate(ids, { onSuccess: () => setOpen(false) });
              }}
            >
              Delete {ids.length}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
