import '@xyflow/react/dist/style.css';
import { useEffect, useMemo } from 'react';
import { Alert, Badge, Button, Group, Loader, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Background,
  Controls,
  MarkerType,
  Position,
  ReactFlow,
  useReactFlow,
  useStore,
  type Edge,
  type Node,
} from '@xyflow/react';
import { useComputedColorScheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { api, unwrap } from '../api/client';
import { ContainerTagForm, useContainerTag } from './ContainerTagForm';
import { memoryErrorText, type MemoryEntry, type MemoryVersion } from './memoryApi';

const RELATION_COLORS: Record<string, string> = {
  updates: '#c92a2a',
  extends: '#1971c2',
  derives: '#2b8a3e',
};

/** Versions of each fact as a row, left to right, with an edge per updates/extends/derives relation. */
function graphOf(entries: MemoryEntry[]): { nodes: Node[]; edges: Edge[] } {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const placed = new Set<string>();
  entries.forEach((entry, row) => {
    const versions: MemoryVersion[] = [...entry.history, entry].sort((a, b) => a.version - b.version);
    versions.forEach((v, column) => {
      if (placed.has(v.id)) return;
      placed.add(v.id);
      nodes.push({
        id: v.id,
        position: { x: column * 280, y: row * 110 },
        sourcePosition: Position.Right,
        targetPosition: Position.Left,
        data: {
          label: `v${v.version}${v.isForgotten ? ' · forgotten' : ''}${v.isLatest ? '' : ' · old'}\n${v.memory}`,
        },
        style: {
          width: 230,
          fontSize: 12,
          whiteSpace: 'pre-wrap',
          opacity: v.isForgotten ? 0.55 : 1,
          borderColor: v.isLatest ? '#1971c2' : undefined,
        },
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
  });
  // A parent outside the fetched versions (a long chain) would leave a dangling edge.
  return { nodes, edges: edges.filter((e) => placed.has(e.source)) };
}

export default function MemoriesPage() {
  const [tag, setTag] = useContainerTag();
  const queryClient = useQueryClient();
  const scheme = useComputedColorScheme('light');
  // The graph fits itself on mount: a new mount when the layout changes width keeps it in view.
  const narrow = useMediaQuery('(max-width: 48em)');
  const list = useQuery({
    queryKey: ['memory', 'memories', tag],
    enabled: !!tag,
    queryFn: async () =>
      unwrap(
        await api.POST('/v4/memories/list', {
          body: { containerTags: [tag], limit: 100, page: 1, sort: 'updatedAt', order: 'desc' },
        }),
      ),
  });
  const entries = useMemo(() => list.data?.memoryEntries ?? [], [list.data]);
  const graph = useMemo(() => graphOf(entries), [entries]);
  const toggle = useMutation({
    mutationFn: async (m: MemoryEntry) =>
      m.isForgotten
        ? unwrap(await api.POST('/v4/memories/restore', { body: { containerTag: tag, id: m.id } }))
        : unwrap(await api.DELETE('/v4/memories', { body: { containerTag: tag, id: m.id } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['memory', 'memories', tag] }),
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        Memories
      </Title>
      <ContainerTagForm tag={tag} onShow={setTag} placeholder="sm_project_default" action="Show memories" />
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
            <Paper
              withBorder
              h={Math.min(560, 120 + entries.length * 110)}
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
                <FitOnResize />
              </ReactFlow>
            </Paper>
          )}
          <Table.ScrollContainer minWidth={560}>
            <Table aria-label="Current memories">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Memory</Table.Th>
                  <Table.Th>Version</Table.Th>
                  <Table.Th>Relation</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>Action</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entries.map((m) => (
                  <Table.Tr key={m.id}>
                    <Table.Td td={m.isForgotten ? 'line-through' : undefined}>{m.memory}</Table.Td>
                    <Table.Td>v{m.version}</Table.Td>
                    <Table.Td>{Object.values(m.memoryRelations)[0] ?? '—'}</Table.Td>
                    <Table.Td>{m.isStatic ? 'static' : 'dynamic'}</Table.Td>
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
function FitOnResize() {
  const { fitView } = useReactFlow();
  const width = useStore((state) => state.width);
  const height = useStore((state) => state.height);
  const nodes = useStore((state) => state.nodes.length);
  useEffect(() => {
    if (width > 0 && height > 0 && nodes > 0) void fitView({ maxZoom: 1 });
  }, [fitView, width, height, nodes]);
  return null;
}
