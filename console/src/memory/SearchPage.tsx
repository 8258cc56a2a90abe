import { Fragment, useEffect, useState, type ReactNode } from 'react';
import {
  ActionIcon,
  Alert,
  Button,
  Code,
  CopyButton,
  Grid,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Tabs,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { api, ApiError } from '../api/client';
import { curlCommand, memoryErrorText, sdkCommand } from './memoryApi';

interface Condition {
  key: string;
  value: string;
  filterType: 'metadata' | 'numeric' | 'array_contains' | 'string_contains';
  numericOperator: string;
  negate: boolean;
}

interface Exchange {
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

/** Runs a search when `runs` changes, keeping the exchange for the raw view. */
function useExchange() {
  const [exchange, setExchange] = useState<Exchange | null>(null);
  const [busy, setBusy] = useState(false);
  async function run(
    call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>,
    request: unknown,
  ) {
    setBusy(true);
    const started = performance.now();
    const answer = await call();
    setExchange({
      request,
      response: answer.error ?? answer.data,
      status: answer.response.status,
      ms: Math.round(performance.now() - started),
    });
    setBusy(false);
  }
  return { exchange, busy, run };
}

/** Runs the panel's search each time the shared "Search both" is pressed (not on its first render). */
function useRunOn(runs: number, run: () => void) {
  useEffect(() => {
    if (runs > 0) run();
    // Only a new press runs: the parameters changing alone must not send a request.
  }, [runs]);
}

function DocumentsSearch({
  q,
  filters,
  runs,
}: {
  q: string;
  filters?: Record<string, unknown>;
  runs: number;
}) {
  const [containerTags, setContainerTags] = useState<string[]>([]);
  const [limit, setLimit] = useState<number | string>(10);
  const [chunkThreshold, setChunkThreshold] = useState<number | string>(0);
  const [documentThreshold, setDocumentThreshold] = useState<number | string>(0);
  const [docId, setDocId] = useState('');
  const [flags, setFlags] = useState({
    onlyMatchingChunks: true,
    includeFullDocs: false,
    includeSummary: false,
    rerank: false,
    rewriteQuery: false,
  });
  const { exchange, busy, run } = useExchange();
  const body = {
    q,
    ...(containerTags.length ? { containerTags } : {}),
    limit: Number(limit) || 10,
    chunkThreshold: Number(chunkThreshold) || 0,
    documentThreshold: Number(documentThreshold) || 0,
    ...(docId ? { docId } : {}),
    ...(filters ? { filters } : {}),
    ...flags,
  };
  const go = () => void run(() => api.POST('/v3/search', { body }), body);
  useRunOn(runs, go);
  const results =
    (exchange?.status === 200 ? (exchange.response as { results: DocumentHitView[] }).results : []) ?? [];

  return (
    <Panel
      title="/v3/search · documents"
      busy={busy}
      onRun={go}
      canRun={!!q.trim()}
      exchange={exchange}
      path="/v3/search"
      sdk="search.documents"
    >
      <TagsInput label="Container tags" value={containerTags} onChange={setContainerTags} />
      <Group grow wrap="wrap">
        <LimitInput value={limit} onChange={setLimit} />
        <ThresholdInput label="Chunk threshold" value={chunkThreshold} onChange={setChunkThreshold} />
        <ThresholdInput
          label="Document threshold"
          value={documentThreshold}
          onChange={setDocumentThreshold}
        />
      </Group>
      <TextInput
        label="Document id (docId)"
        value={docId}
        onChange={(e) => setDocId(e.currentTarget.value)}
      />
      <Flags flags={flags} setFlags={setFlags} />
      <ResultCount exchange={exchange} count={results.length} />
      {results.map((r) => (
        <Paper key={r.documentId} withBorder p="xs" data-testid="v3-result">
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" fw={600} lineClamp={1}>
              {r.title || r.documentId}
            </Text>
            <Score value={r.score} />
          </Group>
          {r.chunks.map((c, i) => (
            <Text key={i} size="sm" fs={c.isRelevant ? undefined : 'italic'}>
              <Score value={c.score} /> <Highlighted text={c.content} q={q} />
            </Text>
          ))}
        </Paper>
      ))}
    </Panel>
  );
}

interface DocumentHitView {
  documentId: string;
  title: string | null;
  score: number;
  chunks: { content: string; score: number; isRelevant: boolean }[];
}

interface MemoryHitView {
  id: string;
  memory?: string;
  chunk?: string;
  similarity: number;
  version?: number | null;
}

function MemoriesSearch({
  q,
  filters,
  runs,
}: {
  q: string;
  filters?: Record<string, unknown>;
  runs: number;
}) {
  const [containerTag, setContainerTag] = useState('');
  const [searchMode, setSearchMode] = useState<'memories' | 'hybrid' | 'documents'>('memories');
  const [limit, setLimit] = useState<number | string>(10);
  const [threshold, setThreshold] = useState<number | string>(0);
  const [include, setInclude] = useState({
    documents: false,
    relatedMemories: false,
    summaries: false,
    forgottenMemories: false,
    chunks: false,
  });
  const [flags, setFlags] = useState({ aggregate: false, rerank: false, rewriteQuery: false });
  const { exchange, busy, run } = useExchange();
  const body = {
    q,
    ...(containerTag ? { containerTag } : {}),
    searchMode,
    limit: Number(limit) || 10,
    threshold: Number(threshold) || 0,
    ...(filters ? { filters } : {}),
    include,
    ...flags,
  };
  const go = () => void run(() => api.POST('/v4/search', { body }), body);
  useRunOn(runs, go);
  const results =
    (exchange?.status === 200 ? (exchange.response as { results: MemoryHitView[] }).results : []) ?? [];

  return (
    <Panel
      title="/v4/search · memories"
      busy={busy}
      onRun={go}
      canRun={!!q.trim()}
      exchange={exchange}
      path="/v4/search"
      sdk="search"
    >
      <Group grow wrap="wrap">
        <TextInput
          label="Container tag"
          value={containerTag}
          onChange={(e) => setContainerTag(e.currentTarget.value)}
        />
        <Select
          label="Search mode"
          allowDeselect={false}
          value={searchMode}
          onChange={(v) => setSearchMode(v ?? 'memories')}
          data={['memories', 'hybrid', 'documents']}
        />
      </Group>
      <Group grow wrap="wrap">
        <LimitInput value={limit} onChange={setLimit} />
        <ThresholdInput label="Threshold" value={threshold} onChange={setThreshold} />
      </Group>
      <Text size="sm" fw={500}>
        Include
      </Text>
      <Flags flags={include} setFlags={setInclude} />
      <Flags flags={flags} setFlags={setFlags} />
      <ResultCount exchange={exchange} count={results.length} />
      {results.map((r) => (
        <Paper key={r.id} withBorder p="xs" data-testid="v4-result">
          <Group justify="space-between" wrap="nowrap" align="start">
            <Text size="sm">
              <Highlighted text={r.memory ?? r.chunk ?? ''} q={q} />
            </Text>
            <Score value={r.similarity} />
          </Group>
          {r.version ? <Text size="xs">version {r.version}</Text> : null}
        </Paper>
      ))}
    </Panel>
  );
}

type NumberField = { value: number | string; onChange: (value: number | string) => void };

/** Results to return, 1 to 100 (both APIs). */
function LimitInput(props: NumberField) {
  return <NumberInput label="Limit" min={1} max={100} {...props} />;
}

/** A score threshold, 0 (everything) to 1. */
function ThresholdInput({ label, ...props }: NumberField & { label: string }) {
  return <NumberInput label={label} min={0} max={1} step={0.05} decimalScale={2} {...props} />;
}

function Flags<T extends Record<string, boolean>>({
  flags,
  setFlags,
}: {
  flags: T;
  setFlags: (f: T) => void;
}) {
  return (
    <Group gap="md" wrap="wrap">
      {Object.entries(flags).map(([name, value]) => (
        <Switch
          key={name}
          label={name}
          size="xs"
          checked={value}
          onChange={(e) => setFlags({ ...flags, [name]: e.currentTarget.checked })}
        />
      ))}
    </Group>
  );
}

function ResultCount({ exchange, count }: { exchange: Exchange | null; count: number }) {
  if (!exchange) return null;
  if (exchange.status !== 200)
    return <Alert color="red">{memoryErrorText(new ApiError(exchange.response))}</Alert>;
  return (
    <Text size="sm" aria-live="polite">
      {count} result{count === 1 ? '' : 's'} in {exchange.ms} ms
    </Text>
  );
}

function Score({ value }: { value: number }) {
  return (
    <Code aria-label={`score ${value.toFixed(3)}`} style={{ whiteSpace: 'nowrap' }}>
      {value.toFixed(3)}
    </Code>
  );
}

/** The query's words marked in the matched text. */
function Highlighted({ text, q }: { text: string; q: string }): ReactNode {
  const words = q
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu)
    ?.filter((w) => w.length > 1);
  if (!words?.length) return text;
  const pattern = new RegExp(
    `(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
    'giu',
  );
  return text
    .split(pattern)
    .map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : <Fragment key={i}>{part}</Fragment>));
}

function Panel(props: {
  title: string;
  busy: boolean;
  canRun: boolean;
  onRun: () => void;
  exchange: Exchange | null;
  path: string;
  sdk: 'search.documents' | 'search';
  children: ReactNode;
}) {
  const { exchange } = props;
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {props.title}
          </Title>
          <Button size="xs" onClick={props.onRun} loading={props.busy} disabled={!props.canRun}>
            Search
          </Button>
        </Group>
        {props.children}
        {exchange && (
          <Tabs defaultValue="curl">
            <Tabs.List>
              <Tabs.Tab value="curl">curl</Tabs.Tab>
              <Tabs.Tab value="sdk">SDK</Tabs.Tab>
              <Tabs.Tab value="response">Response ({exchange.status})</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="curl" pt="xs">
              <Raw text={curlCommand(props.path, exchange.request)} label="curl command" />
            </Tabs.Panel>
            <Tabs.Panel value="sdk" pt="xs">
              <Raw text={sdkCommand(props.sdk, exchange.request)} label="SDK code" />
            </Tabs.Panel>
            <Tabs.Panel value="response" pt="xs">
              <Raw text={JSON.stringify(exchange.response, null, 2)} label="response" />
            </Tabs.Panel>
          </Tabs>
        )}
      </Stack>
    </Paper>
  );
}

function Raw({ text, label }: { text: string; label: string }) {
  return (
    <Stack gap={4}>
      <CopyButton value={text}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="light" onClick={copy} w="fit-content">
            {copied ? 'Copied' : `Copy ${label}`}
          </Button>
        )}
      </CopyButton>
      <Code block mah={300} style={{ overflow: 'auto' }}>
        {text}
      </Code>
    </Stack>
  );
}
