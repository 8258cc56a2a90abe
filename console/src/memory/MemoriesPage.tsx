import '@xyflow/react/dist/style.css';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  Position,
  ReactFlow,
  useReactFlow,
  useStore,
  type Edge,
  type Node,
} from '@xyflow/react';
import { useComputedColorScheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useMemories, useToggleMemory, type MemoryEntry } from './api/memories';
import { ContainerTagForm, useContainerTag } from './ContainerTagForm';
import { memoryErrorText } from './memoryText';

const RELATION_COLORS: Record<string, string> = {
  updates: '#c92a2a',
  extends: '#1971c2',
  derives: '#2b8a3e',
};

const NODE_WIDTH = 280;
const ROW_HEIGHT = 110;
// How many memories the graph draws (the list API allows up to 1,100 per page).
const GRAPH_LIMIT = 500;

/**
 * Versions of each fact left to right, with an edge per updates/extends/derives relation; the facts are
 * packed on shelves about as wide as the whole is tall, so 50 or 500 memories fill a screen-shaped area
 * instead of one column too long to read. `match` dims the nodes that do not contain it.
 */
function graphOf(entries: MemoryEntry[], match: string): { nodes: Node[]; edges: Edge[] } {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const placed = new Set<string>();
  const chains = entries.map((entry) => ({
    entry,
    versions: [...entry.history, entry].sort((a, b) => a.version - b.version),
  }));
  const cells = chains.reduce((n, c) => n + c.versions.length, 0);
  // Shelf width in node columns: a landscape area (about 2:1) for the total number of nodes.
  const shelf = Math.max(1, Math.ceil(Math.sqrt(cells * 2 * (ROW_HEIGHT / NODE_WIDTH))));
  let x = 0;
  let y = 0;
  for (const { entry, versions } of chains) {
    if (x > 0 && x + versions.length > shelf) {
      x = 0;
      y++;
    }
    const startX = x;
    x += versions.length;
    versions.forEach((v, column) => {
      if (placed.has(v.id)) return;
      placed.add(v.id);
      const dimmed = !!match && !v.memory.toLowerCase().includes(match);
      nodes.push({
        id: v.id,
        position: { x: (startX + column) * NODE_WIDTH, y: y * ROW_HEIGHT },
        sourcePosition: Position.Right,
        targetPosition: Position.Left,
        data: {
          label: `v${v.version}${v.isForgotten ? ' · forgotten' : ''}${v.isLatest ? '' : ' · old'}\n${v.memory}`,
        },
        style: {
          width: 230,
          fontSize: 12,
          whiteSpace: 'pre-wrap',
          opacity: dimmed ? 0.2 : v.isForgotten ? 0.55 : 1,
          borderColor: match && !dimmed ? '#e8590c' : v.isLatest ? '#1971c2' : undefined,
          borderWidth: match && !dimmed ? 3 : undefined,
        },
        className: match && !dimmed ? 'memory-match' : undefined,
      });
      if (v.parentMemoryId) {
        const relation = v.relation ?? entry.memoryRelations[v.parentMemoryId] ?? 'updates';
        edges.push({
          id: `${v.parentMemoryId}-${v.id}`,
          source: v.parentMemoryId,
          target: v.id,
          label: relation,
          animated: relation !== 'updates',
          style: { stroke: RELATION_COLORS[relation] },
          markerEnd: { type: MarkerType.ArrowClosed, color: RELATION_COLORS[relation] },
        });
      }
    });
  }
  // A parent outside the fetched versions (a long chain) would leave a dangling edge.
  return { nodes, edges: edges.filter((e) => placed.has(e.source)) };
}

export default function MemoriesPage() {
  const [tag, setTag] = useContainerTag();
  const scheme = useComputedColorScheme('light');
  // The graph fits itself on mount: a new mount when the layout changes width keeps it in view.
  const narrow = useMediaQuery('(max-width: 48em)');
  const list = useMemories(tag, GRAPH_LIMIT);
  const entries = useMemo(() => list.data?.memoryEntries ?? [], [list.data]);
  const [search, setSearch] = useState('');
  const match = useDeferredValue(search.trim().toLowerCase());
  const graph = useMemo(() => graphOf(entries, match), [entries, match]);
  const matches = match ? graph.nodes.filter((n) => n.className === 'memory-match').map((n) => n.id) : [];
  const toggle = useToggleMemory(tag);

  return (
    <Stack>
      <Title order={1} size="h2">
        Memories
      </Title>
      <ContainerTagForm tag={tag} onShow={setTag} />
      {list.isFetching && <Loader aria-label="Loading" />}
      {list.error && <Alert color="red">{memoryErrorText(list.error)}</Alert>}
      {toggle.error && <Alert color="red">{memoryErrorText(toggle.error)}</Alert>}
      {tag && list.data && (
        <>
          <Text size="sm">
            {list.data.pagination.totalItems} current memor
            {list.data.pagination.totalItems === 1 ? 'y' : 'ies'} in {tag}
            {list.data.pagination.totalItems > entries.length
              ? ` (the ${entries.length} most recently updated shown)`
              : ''}
          </Text>
          <Group gap="xs">
            {Object.entries(RELATION_COLORS).map(([relation, color]) => (
              <Badge key={relation} variant="outline" style={{ borderColor: color }} color="gray">
                {relation}
              </Badge>
            ))}
          </Group>
          {entries.length > 0 && (
            <TextInput
              label="Find in the graph"
              placeholder="A word of a memory"
              value={search}
              onChange={(e) => setSearch(e.currentTarget.value)}
              description={match ? `${matches.length} matching: the view zooms to them` : undefined}
              maw={420}
            />
          )}
          {entries.length > 0 && (
            <Paper
              withBorder
              h={Math.min(620, 160 + graph.nodes.length * 60)}
              aria-label="Memory graph"
              role="region"
            >
              <ReactFlow
                key={narrow ? 'narrow' : 'wide'}
                nodes={graph.nodes}
                edges={graph.edges}
                colorMode={scheme}
                fitView
                fitViewOptions={{ maxZoom: 1 }}
                nodesConnectable={false}
                proOptions={{ hideAttribution: true }}
              >
                <Background />
                <Controls showInteractive={false} />
                {graph.nodes.length > 40 && <MiniMap pannable zoomable ariaLabel="Graph overview" />}
                <FitOnResize focus={matches} />
              </ReactFlow>
            </Paper>
          )}
          {/* Below sm the relation and kind fold into a line under the memory: Forget stays on the screen. */}
          <Table.ScrollContainer minWidth={0}>
            <Table aria-label="Current memories">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Memory</Table.Th>
                  <Table.Th>Version</Table.Th>
                  <Table.Th visibleFrom="sm">Relation</Table.Th>
                  <Table.Th visibleFrom="sm">Kind</Table.Th>
                  <Table.Th>Action</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entries.map((m) => (
                  <Table.Tr key={m.id}>
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>
                      <Text span inherit td={m.isForgotten ? 'line-through' : undefined}>
                        {m.memory}
                      </Text>
                      <Text size="xs" c="dimmed" hiddenFrom="sm">
                        {[Object.values(m.memoryRelations)[0], m.isStatic ? 'static' : 'dynamic'].filter(Boolean).join(' · ')}
                      </Text>
                    </Table.Td>
                    <Table.Td>v{m.version}</Table.Td>
                    <Table.Td visibleFrom="sm">{Object.values(m.memoryRelations)[0] ?? '—'}</Table.Td>
                    <Table.Td visibleFrom="sm">{m.isStatic ? 'static' : 'dynamic'}</Table.Td>
                    <Table.Td>
                      <Button
                        size="compact-xs"
                        variant="light"
                        color={m.isForgotten ? 'blue' : 'red'}
                        aria-label={`${m.isForgotten ? 'Restore' : 'Forget'} ${m.memory}`}
                        onClick={() => toggle.mutate(m)}
                      >
                        {m.isForgotten ? 'Restore' : 'Forget'}
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Stack>
  );
}

/**
 * Fits the graph again whenever its box changes size (a window resized or turned, a phone's 360 px) or
 * its nodes change: ReactFlow's `fitView` prop fits only once, when the graph first shows.
 */
function FitOnResize({ focus }: { focus: string[] }) {
  const { fitView } = useReactFlow();
  const width = useStore((state) => state.width);
  const height = useStore((state) => state.height);
  const nodes = useStore((state) => state.nodes.length);
  const key = focus.join(',');
  useEffect(() => {
    const ids = key ? key.split(',').slice(0, 12) : [];
    const zoomTo = ids.length ? { nodes: ids.map((id) => ({ id })), duration: 300 } : {};
    if (width > 0 && height > 0 && nodes > 0) void fitView({ maxZoom: 1, ...zoomTo });
  }, [fitView, width, height, nodes, key]);
  return null;
}
