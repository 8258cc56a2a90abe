import { useState } from 'react';
import {
  ActionIcon,
  Button,
  Code,
  Grid,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  TextInput,
  Title,
} from '@mantine/core';
import { DocumentsSearch, MemoriesSearch } from './SearchPanels';

interface Condition {
  key: string;
  value: string;
  filterType: 'metadata' | 'numeric' | 'array_contains' | 'string_contains';
  numericOperator: string;
  negate: boolean;
}

export interface Exchange {
  request: unknown;
  response?: unknown;
  status?: number;
  ms?: number;
}

/** `{AND|OR: [...]}` from the builder's rows (the filter grammar of both search APIs). */
function filterOf(join: 'AND' | 'OR', conditions: Condition[]): Record<string, unknown> | undefined {
  const rows = conditions.filter((c) => c.key);
  if (!rows.length) return undefined;
  return {
    [join]: rows.map((c) => ({
      key: c.key,
      value: c.value,
      ...(c.filterType !== 'metadata' ? { filterType: c.filterType } : {}),
      ...(c.filterType === 'numeric' ? { numericOperator: c.numericOperator } : {}),
      ...(c.negate ? { negate: true } : {}),
    })),
  };
}

/** /v3/search and /v4/search side by side on one query, each with all its parameters. */
export default function SearchPage() {
  const [q, setQ] = useState('');
  const [join, setJoin] = useState<'AND' | 'OR'>('AND');
  const [conditions, setConditions] = useState<Condition[]>([]);
  const [runs, setRuns] = useState(0);
  const filters = filterOf(join, conditions);

  return (
    <Stack>
      <Title order={1} size="h2">
        Search playground
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setRuns((n) => n + 1);
        }}
      >
        <Group align="end" wrap="wrap">
          <TextInput
            label="Query"
            value={q}
            onChange={(e) => setQ(e.currentTarget.value)}
            style={{ flex: '1 1 260px' }}
          />
          <Button type="submit" disabled={!q.trim()}>
            Search both
          </Button>
        </Group>
      </form>
      <FilterBuilder join={join} setJoin={setJoin} conditions={conditions} setConditions={setConditions} />
      <Grid>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <DocumentsSearch q={q} filters={filters} runs={runs} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <MemoriesSearch q={q} filters={filters} runs={runs} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function FilterBuilder(props: {
  join: 'AND' | 'OR';
  setJoin: (j: 'AND' | 'OR') => void;
  conditions: Condition[];
  setConditions: (c: Condition[]) => void;
}) {
  const { conditions, setConditions } = props;
  const change = (i: number, patch: Partial<Condition>) =>
    setConditions(conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h5">
            Metadata filter (both searches)
          </Title>
          <Group gap="xs">
            <SegmentedControl
              size="xs"
              aria-label="Combine conditions with"
              value={props.join}
              onChange={(v) => props.setJoin(v)}
              data={['AND', 'OR']}
            />
            <Button
              size="xs"
              variant="light"
              onClick={() =>
                setConditions([
                  ...conditions,
                  { key: '', value: '', filterType: 'metadata', numericOperator: '>=', negate: false },
                ])
              }
            >
              Add condition
            </Button>
          </Group>
        </Group>
        {conditions.map((c, i) => (
          <Group key={i} align="end" gap="xs" wrap="wrap">
            <TextInput
              label="Key"
              size="xs"
              value={c.key}
              onChange={(e) => change(i, { key: e.currentTarget.value })}
            />
            <Select
              label="Match"
              size="xs"
              w={150}
              allowDeselect={false}
              value={c.filterType}
              onChange={(v) => change(i, { filterType: v ?? 'metadata' })}
              data={[
                { value: 'metadata', label: 'equals' },
                { value: 'string_contains', label: 'contains text' },
                { value: 'array_contains', label: 'array contains' },
                { value: 'numeric', label: 'number' },
              ]}
            />
            {c.filterType === 'numeric' && (
              <Select
                label="Operator"
                size="xs"
                w={80}
                allowDeselect={false}
                value={c.numericOperator}
                onChange={(v) => change(i, { numericOperator: v ?? '>=' })}
                data={['=', '>', '>=', '<', '<=']}
              />
            )}
            <TextInput
              label="Value"
              size="xs"
              value={c.value}
              onChange={(e) => change(i, { value: e.currentTarget.value })}
            />
            <Switch
              label="Not"
              size="xs"
              checked={c.negate}
              onChange={(e) => change(i, { negate: e.currentTarget.checked })}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove condition ${i + 1}`}
              onClick={() => setConditions(conditions.filter((_, j) => j !== i))}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        {conditions.length > 0 && (
          <Code block>{JSON.stringify(filterOf(props.join, conditions) ?? {}, null, 2)}</Code>
        )}
      </Stack>
    </Paper>
  );
}
