import { useMemo } from 'react';
import { Alert, Badge, Group, Loader, ScrollArea, Select, Stack, Text, UnstyledButton } from '@mantine/core';
import { createTwoFilesPatch } from 'diff';
import { errorMessage } from '../api/client';
import { DiffBlock } from './DiffBlock';
import { useTraefikGeneration, useTraefikHistory } from './api/traefik';

const time = (iso: string) => new Date(iso).toLocaleString();

/**
 * The generations the server kept (GET /api/traefik-config/history): pick one to see what it changed,
 * or compare it with any other kept generation.
 */
export function TraefikHistory({
  selected,
  against,
  onSelect,
}: {
  selected: number | null;
  against: number | null;
  onSelect: (id: number | null, against: number | null) => void;
}) {
  const history = useTraefikHistory();
  const generations = useMemo(() => history.data?.generations ?? [], [history.data]);
  const current = selected ?? generations[0]?.id ?? null;
  const generation = useTraefikGeneration(current);
  const other = useTraefikGeneration(against);
  const compared = useMemo(() => {
    if (against === null || !generation.data || !other.data) return null;
    const [older, newer] =
      other.data.id < generation.data.id ? [other.data, generation.data] : [generation.data, other.data];
    return createTwoFilesPatch(
      `generation ${older.id} (${time(older.created_at)})`,
      `generation ${newer.id} (${time(newer.created_at)})`,
      older.document,
      newer.document,
      '',
      '',
      { context: 3 },
    );
  }, [against, generation.data, other.data]);

  if (history.isPending) return <Loader aria-label="Loading" />;
  if (history.error) return <Alert color="red">{errorMessage(history.error)}</Alert>;
  if (generations.length === 0)
    return <Text>No generation recorded yet: the server records one at start and after every change.</Text>;

  return (
    <Stack>
      <Text size="sm" c="dimmed">
        The server keeps the last {history.data?.retention.max} generations that changed something, for{' '}
        {history.data?.retention.days} days (the latest always).
      </Text>
      <ScrollArea.Autosize mah={280} type="auto">
        <Stack gap={0} role="list" aria-label="Generations">
          {generations.map((g) => (
            <UnstyledButton
              key={g.id}
              role="listitem"
              aria-current={g.id === current ? 'true' : undefined}
              onClick={() => onSelect(g.id, null)}
              px="sm"
              py={6}
              bg={g.id === current ? 'var(--mantine-primary-color-light)' : undefined}
              style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
            >
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Text size="sm" fw={600}>
                  {time(g.created_at)}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                  <Text span c="green" size="sm">
                    +{g.added}
                  </Text>{' '}
                  <Text span c="red" size="sm">
                    −{g.removed}
                  </Text>
                </Text>
              </Group>
              <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {g.trigger.split('; ').join(' · ')}
              </Text>
            </UnstyledButton>
          ))}
        </Stack>
      </ScrollArea.Autosize>
      {generation.error && <Alert color="red">{errorMessage(generation.error)}</Alert>}
      {generation.data && (
        <Stack gap="xs">
          <Group gap="xs" wrap="wrap">
            <Badge variant="light">Generation {generation.data.id}</Badge>
            <Text size="sm">
              {time(generation.data.created_at)}: {generation.data.trigger}
            </Text>
          </Group>
          <Select
            label="Compare with"
            placeholder="the generation before it"
            clearable
            w={{ base: '100%', sm: 360 }}
            value={against === null ? null : String(against)}
            onChange={(value) => onSelect(current, value === null ? null : Number(value))}
            data={generations
              .filter((g) => g.id !== current)
              .map((g) => ({ value: String(g.id), label: `${g.id}: ${time(g.created_at)}` }))}
          />
          {against !== null ? (
            other.isPending ? (
              <Loader size="sm" aria-label="Loading" />
            ) : compared && compared.split('\n').some((l) => /^[+-][^+-]/.test(l)) ? (
              <DiffBlock diff={compared} label="Changes between the two generations" />
            ) : (
              <Text>The two generations are the same.</Text>
            )
          ) : generation.data.diff ? (
            <DiffBlock diff={generation.data.diff} label="Changes since the previous generation" />
          ) : (
            <Text>The first generation kept: nothing earlier to compare with.</Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
