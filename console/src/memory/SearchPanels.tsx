import { useEffect, useState } from 'react';
import { Group, Paper, Select, TagsInput, Text, TextInput } from '@mantine/core';
import type { components } from '../api/schema';
import { searchDocuments, searchMemories } from './api/search';
import { type Exchange } from './SearchPage';
import { SearchControls, switchSet, ResultCount, Score, Highlighted, Panel } from './SearchParts';

/** What both panels are given: the shared query and filter, and how many times "Search both" was pressed. */
interface SearchProps {
  q: string;
  filters?: Record<string, unknown>;
  runs: number;
}

/**
 * A panel's search (`call`, sending `request`): run from the panel, and each time the shared "Search both"
 * is pressed (not on its first render); the exchange is kept for the raw view and its results.
 */
function useExchange<Hit>(
  runs: number,
  call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>,
  request: unknown,
) {
  const [exchange, setExchange] = useState<Exchange | null>(null);
  const [busy, setBusy] = useState(false);
  async function send() {
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
  const run = () => void send();
  useEffect(() => {
    if (runs > 0) run();
    // Only a new press runs: the parameters changing alone must not send a request.
  }, [runs]);
  const results = (exchange?.status === 200 ? (exchange.response as { results: Hit[] }).results : []) ?? [];
  return { exchange, busy, run, results };
}

export function DocumentsSearch({ q, filters, runs }: SearchProps) {
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
  const search = useExchange<components['schemas']['DocumentHit']>(runs, () => searchDocuments(body), body);

  return (
    <Panel title="/v3/search · documents" search={search} q={q} path="/v3/search" sdk="search.documents">
      <TagsInput label="Container tags" value={containerTags} onChange={setContainerTags} />
      <TextInput
        label="Document id (docId)"
        value={docId}
        onChange={(e) => setDocId(e.currentTarget.value)}
      />
      <SearchControls
        limit={{ value: limit, onChange: setLimit }}
        thresholds={[
          { label: 'Chunk threshold', value: chunkThreshold, onChange: setChunkThreshold },
          { label: 'Document threshold', value: documentThreshold, onChange: setDocumentThreshold },
        ]}
        switches={[switchSet(flags, setFlags)]}
      />
      <ResultCount exchange={search.exchange} count={search.results.length} />
      {search.results.map((r) => (
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

export function MemoriesSearch({ q, filters, runs }: SearchProps) {
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
  const search = useExchange<components['schemas']['MemoryHit']>(runs, () => searchMemories(body), body);

  return (
    <Panel title="/v4/search · memories" search={search} q={q} path="/v4/search" sdk="search">
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
      <SearchControls
        limit={{ value: limit, onChange: setLimit }}
        thresholds={[{ label: 'Threshold', value: threshold, onChange: setThreshold }]}
        switches={[switchSet(include, setInclude, 'Include'), switchSet(flags, setFlags)]}
      />
      <ResultCount exchange={search.exchange} count={search.results.length} />
      {search.results.map((r) => (
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
