import { useDeferredValue, useMemo, useRef, useState } from 'react';
import {
  Alert,
  Group,
  Loader,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { errorMessage } from '../api/client';
import { useResources } from './queries';

const ROW_HEIGHT = 44;

/** All resources, filtered in the browser; only the rows in view are rendered, so thousands stay fast. */
export function ResourcesPage() {
  const resources = useResources();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('all');
  const [source, setSource] = useState<string | null>(null);
  const query = useDeferredValue(search.trim().toLowerCase());
  const scroller = useRef<HTMLDivElement>(null);

  const all = useMemo(() => resources.data ?? [], [resources.data]);
  const sources = useMemo(() => [...new Set(all.map((r) => r.source_type))].sort(), [all]);
  const shown = useMemo(
    () =>
      all.filter(
        (r) =>
          (status === 'all' || r.status === status) &&
          (!source || r.source_type === source) &&
          (!query || r.host.toLowerCase().includes(query) || r.id.toLowerCase().includes(query)),
      ),
    [all, status, source, query],
  );
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        Resources
      </Title>
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
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((row) => {
            const r = shown[row.index];
            return (
              <Group
                key={r.id}
                role="row"
                aria-rowindex={row.index + 1}
                wrap="nowrap"
                justify="space-between"
                px="sm"
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  height: ROW_HEIGHT,
                  transform: `translateY(${row.start}px)`,
                  borderBottom: '1px solid var(--mantine-color-default-border)',
                }}
              >
                <Text role="cell" truncate style={{ flex: 1 }}>
                  {r.host}
                </Text>
                <Text role="cell" size="sm" visibleFrom="sm">
                  {r.source_type}
                </Text>
                <Text role="cell" size="sm">
                  {r.assigned_middlewares.length} mw
                </Text>
                <Text role="cell" size="sm" fw={700} w={70}>
                  {r.status}
                </Text>
              </Group>
            );
          })}
        </div>
      </div>
    </Stack>
  );
}
