import { memo, useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Loader,
  MultiSelect,
  Pagination,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Table,
  TagsInput,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api, ApiError, unwrap } from '../api/client';
import {
  DOCUMENT_TYPES,
  documentsListKey,
  STATUSES,
  memoryErrorText,
  memoryHeaders,
  useDocumentStatusEvents,
  type DocumentStatusEvent,
  type DocumentSummary,
} from './memoryApi';

// One formatter for every row (toLocaleString builds a new one per call).
const dateTime = new Intl.DateTimeFormat('en', { dateStyle: 'short', timeStyle: 'medium' });

type ListAnswer = { memories: DocumentSummary[]; pagination: { totalItems: number; totalPages: number } };

// Dark shades so the white label stays above WCAG AA contrast (4.5:1) in both themes.
const STATUS_COLORS: Record<string, string> = {
  queued: 'gray.7',
  extracting: 'blue.9',
  chunking: 'blue.9',
  embedding: 'blue.9',
  indexing: 'blue.9',
  done: 'teal.9',
  failed: 'red.9',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? 'gray'} variant="filled" data-status={status}>
      {status}
    </Badge>
  );
}

interface Filters {
  tags: string[];
  statuses: string[];
  types: string[];
  from: string;
  to: string;
  /** `key=value` metadata conditions, all of which must hold. */
  metadata: string;
  sort: 'createdAt' | 'updatedAt';
  order: 'asc' | 'desc';
}

const NO_FILTERS: Filters = {
  tags: [],
  statuses: [],
  types: [],
  from: '',
  to: '',
  metadata: '',
  sort: 'createdAt',
  order: 'desc',
};

/** The list body for /v3/documents/list: the server filters, sorts and cuts the page, so 100,000 documents stay fast. */
function listBody(filters: Filters, page: number, limit: number) {
  const nextDay = (day: string) => new Date(Date.parse(day) + 86_400_000).toISOString();
  const conditions = filters.metadata
    .split(',')
    .map((part) => part.split('='))
    .filter(([key, value]) => key?.trim() && value !== undefined)
    .map(([key, ...value]) => ({ key: key.trim(), value: value.join('=').trim() }));
  // Same key order as FIRST_DOCUMENTS_PAGE, whose answer the memory pages' probe has already cached.
  return {
    page,
    limit,
    sort: filters.sort,
    order: filters.order,
    ...(filters.tags.length ? { containerTags: filters.tags } : {}),
    ...(filters.statuses.length ? { statuses: filters.statuses as (typeof STATUSES)[number][] } : {}),
    ...(filters.types.length ? { types: filters.types } : {}),
    ...(filters.from ? { createdAfter: new Date(filters.from).toISOString() } : {}),
    ...(filters.to ? { createdBefore: nextDay(filters.to) } : {}),
    ...(conditions.length ? { filters: { AND: conditions } } : {}),
  };
}

export default function DocumentsPage() {
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // The add panel: closed (null), or open with the files dropped on the page to add at once.
  const [adding, setAdding] = useState<{ files?: File[] } | null>(null);
  const body = listBody(filters, page, limit);
  const list = useQuery({
    queryKey: documentsListKey(body),
    queryFn: async () => unwrap(await api.POST('/v3/documents/list', { body })) as ListAnswer,
    placeholderData: keepPreviousData,
  });

  // Live status: a transition updates the row in place; a document this page does not show yet
  // (just added, or now matching a status filter) refreshes the list, at most once a second.
  const refresh = useRef<number | undefined>(undefined);
  const onStatus = useCallback(
    (event: DocumentStatusEvent) => {
      let shown = false;
      queryClient.setQueriesData<ListAnswer>({ queryKey: ['memory', 'documents', 'list'] }, (old) => {
        if (!old) return old;
        const memories = old.memories.map((d) => {
          if (d.id !== event.id) return d;
          shown = true;
          return { ...d, status: event.status as DocumentSummary['status'], error: event.error };
        });
        return { ...old, memories };
      });
      if ((!shown || filters.statuses.length) && refresh.current === undefined)
        refresh.current = window.setTimeout(() => {
          refresh.current = undefined;
          void queryClient.invalidateQueries({ queryKey: ['memory', 'documents', 'list'] });
        }, 1000);
    },
    [queryClient, filters.statuses.length],
  );
  useDocumentStatusEvents(onStatus);

  const remove = useMutation({
    mutationFn: async (ids: string[]) => unwrap(await api.DELETE('/v3/documents/bulk', { body: { ids } })),
    onSuccess: () => {
      setSelected(new Set());
      void queryClient.invalidateQueries({ queryKey: ['memory'] });
    },
  });

  // Stable callbacks, so the rows, the add form and the filter bar (memoised) render again only when
  // their own data changes (a checkbox ticked re-renders its row, not the page's 25 to 100).
  const toggle = useCallback(
    (id: string) =>
      setSelected((s) => {
        const next = new Set(s);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const { mutate: removeIds } = remove;
  const deleteOne = useCallback((id: string) => removeIds([id]), [removeIds]);
  const update = useCallback((change: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...change }));
    setPage(1);
    setSelected(new Set());
  }, []);
  const onAdded = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: ['memory', 'documents', 'list'] }),
    [queryClient],
  );
  // The next page is fetched ahead once this one is shown, so "next" shows without a round trip.
  const totalPages = list.data?.pagination.totalPages ?? 0;
  const nextBody = page < totalPages ? listBody(filters, page + 1, limit) : undefined;
  const nextKey = JSON.stringify(nextBody);
  useEffect(() => {
    if (!nextBody || list.isPlaceholderData) return;
    void queryClient.prefetchQuery({
      queryKey: documentsListKey(nextBody),
      queryFn: async () => unwrap(await api.POST('/v3/documents/list', { body: nextBody })) as ListAnswer,
    });
    // nextKey stands for nextBody (a new object each render).
  }, [queryClient, nextKey, list.isPlaceholderData]);
  const rows = list.data?.memories ?? [];
  const total = list.data?.pagination.totalItems ?? 0;
  const allSelected = rows.length > 0 && rows.every((d) => selected.has(d.id));

  return (
    <Stack
      // Files dropped anywhere on the page are added (the add panel opens to show each answer).
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes('Files')) event.preventDefault();
      }}
      onDrop={(event) => {
        if (event.dataTransfer.files.length === 0) return;
        event.preventDefault();
        setAdding({ files: [...event.dataTransfer.files] });
      }}
    >
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">
          Documents
        </Title>
        <Button
          variant={adding ? 'default' : 'filled'}
          aria-expanded={!!adding}
          onClick={() => setAdding((open) => (open ? null : {}))}
        >
          {adding ? 'Close' : 'Add documents'}
        </Button>
      </Group>
      {adding && <AddDocuments onAdded={onAdded} dropped={adding.files} />}
      <FilterBar filters={filters} update={update} />
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" aria-live="polite">
          {list.isPending ? 'Loading…' : `${total.toLocaleString('en')} document${total === 1 ? '' : 's'}`}
          {list.isFetching && !list.isPending ? ' · refreshing' : ''}
        </Text>
        <Button
          color="red"
          variant="light"
          disabled={selected.size === 0}
          loading={remove.isPending}
          onClick={() => remove.mutate([...selected])}
        >
          Delete selected ({selected.size})
        </Button>
      </Group>
      {list.error && <Alert color="red">{memoryErrorText(list.error)}</Alert>}
      {remove.error && <Alert color="red">{memoryErrorText(remove.error)}</Alert>}
      {list.isPending ? (
        <Loader aria-label="Loading" />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover aria-label="Documents">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>
                  <RowCheckbox
                    label="Select all documents on this page"
                    checked={allSelected}
                    indeterminate={!allSelected && rows.some((d) => selected.has(d.id))}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((d) => d.id)))}
                  />
                </Table.Th>
                <Table.Th>Document</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Container tags</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>
                  <span className="sr-only" style={visuallyHidden}>
                    Actions
                  </span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((d) => (
                <DocumentRow
                  key={d.id}
                  document={d}
                  selected={selected.has(d.id)}
                  onToggle={toggle}
                  onDelete={deleteOne}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group justify="space-between" wrap="wrap">
        <Pagination
          total={list.data?.pagination.totalPages ?? 0}
          value={page}
          onChange={(p) => {
            setPage(p);
            setSelected(new Set());
          }}
          getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
          siblings={1}
        />
        <Select
          label="Per page"
          data={['10', '25', '50', '100']}
          value={String(limit)}
          onChange={(value) => {
            setLimit(Number(value ?? 25));
            setPage(1);
          }}
          allowDeselect={false}
          w={100}
        />
      </Group>
    </Stack>
  );
}

/** The list's filters and sort (memoised: it renders only when they change). */
const FilterBar = memo(function FilterBar({
  filters,
  update,
}: {
  filters: Filters;
  update: (change: Partial<Filters>) => void;
}) {
  return (
    <Group align="end" wrap="wrap" gap="sm">
      <TagsInput
        label="Container tags"
        placeholder="Any tag"
        value={filters.tags}
        onChange={(tags) => update({ tags })}
        style={{ flex: '1 1 200px' }}
      />
      <MultiSelect
        label="Status"
        placeholder="Any status"
        data={[...STATUSES]}
        value={filters.statuses}
        onChange={(statuses) => update({ statuses })}
        clearable
        style={{ flex: '1 1 160px' }}
      />
      <MultiSelect
        label="Type"
        placeholder="Any type"
        data={[...DOCUMENT_TYPES]}
        value={filters.types}
        onChange={(types) => update({ types })}
        clearable
        style={{ flex: '1 1 140px' }}
      />
      <TextInput
        label="Metadata"
        placeholder="key=value, …"
        value={filters.metadata}
        onChange={(e) => update({ metadata: e.currentTarget.value })}
        style={{ flex: '1 1 160px' }}
      />
      <TextInput
        type="date"
        label="Created from"
        value={filters.from}
        onChange={(e) => update({ from: e.currentTarget.value })}
      />
      <TextInput
        type="date"
        label="Created to"
        value={filters.to}
        onChange={(e) => update({ to: e.currentTarget.value })}
      />
      <Select
        label="Sort by"
        data={[
          { value: 'createdAt:desc', label: 'Newest first' },
          { value: 'createdAt:asc', label: 'Oldest first' },
          { value: 'updatedAt:desc', label: 'Recently updated' },
          { value: 'updatedAt:asc', label: 'Least recently updated' },
        ]}
        value={`${filters.sort}:${filters.order}`}
        onChange={(value) => {
          const [sort, order] = (value ?? 'createdAt:desc').split(':') as [Filters['sort'], Filters['order']];
          update({ sort, order });
        }}
        allowDeselect={false}
        w={200}
      />
    </Group>
  );
});

/**
 * One document of the list. Mantine's components cost about 0.1 ms each to render, so a row keeps to
 * the table's own cells and a few: 25 rows of them were a quarter of the page's first render.
 */
const DocumentRow = memo(function DocumentRow({
  document: d,
  selected,
  onToggle,
  onDelete,
}: {
  document: DocumentSummary;
  selected: boolean;
  onToggle: (id: string) => void;
  onDelete: (id: string) => void;
}) {
  return (
    <Table.Tr data-document-id={d.id}>
      <Table.Td>
        <RowCheckbox label={`Select ${d.title ?? d.id}`} checked={selected} onChange={() => onToggle(d.id)} />
      </Table.Td>
      <Table.Td maw={320}>
        <Anchor component={Link} to={`/memory/documents/${d.id}`} size="sm" lineClamp={1}>
          {d.title || d.url || d.customId || d.id}
        </Anchor>
      </Table.Td>
      <Table.Td miw={110}>
        <StatusBadge status={d.status} />
        {d.status === 'failed' && d.error && (
          <Text size="xs" c="red.8" maw={240}>
            {d.error}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{d.type}</Table.Td>
      <Table.Td style={oneLine}>{d.containerTags.join(', ')}</Table.Td>
      <Table.Td>{dateTime.format(new Date(d.createdAt))}</Table.Td>
      <Table.Td>
        <Anchor
          component="button"
          type="button"
          size="xs"
          fw={600}
          c="var(--mantine-color-error)"
          aria-label={`Delete ${d.title ?? d.id}`}
          onClick={() => onDelete(d.id)}
        >
          Delete
        </Anchor>
      </Table.Td>
    </Table.Tr>
  );
});

/**
 * The browser's own checkbox in the theme's colour. A page of 25 to 100 rows draws one per row, and
 * Mantine's Checkbox (about 1 ms each to render) was a quarter of the list's first render.
 */
function RowCheckbox({
  label,
  checked,
  indeterminate = false,
  onChange,
}: {
  label: string;
  checked: boolean;
  indeterminate?: boolean;
  onChange: () => void;
}) {
  return (
    <input
      type="checkbox"
      aria-label={label}
      checked={checked}
      ref={(input) => {
        if (input) input.indeterminate = indeterminate;
      }}
      onChange={onChange}
      style={rowCheckbox}
    />
  );
}

const rowCheckbox = {
  width: 18,
  height: 18,
  margin: 0,
  verticalAlign: 'middle',
  accentColor: 'var(--mantine-primary-color-filled)',
  cursor: 'pointer',
} as const;

// Container tags on one line, cut with an ellipsis.
const oneLine = {
  whiteSpace: 'nowrap',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  maxWidth: 240,
} as const;

const visuallyHidden = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
} as const;

type Mode = 'text' | 'url' | 'files';
interface Upload {
  name: string;
  state: 'sending' | 'added' | 'refused';
  message?: string;
  id?: string;
}

/**
 * Text, a URL or files (several at once, dropped or picked), each answered with the API's own message.
 * `dropped`: files dropped on the page (this panel's drop zone included), added as soon as they arrive.
 */
const AddDocuments = memo(function AddDocuments({
  onAdded,
  dropped,
}: {
  onAdded: () => void;
  dropped?: File[];
}) {
  const [mode, setMode] = useState<Mode>('text');
  const [content, setContent] = useState('');
  const [containerTag, setContainerTag] = useState('');
  const [metadata, setMetadata] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  function parsedMetadata(): Record<string, string | number | boolean | string[]> | undefined | null {
    if (!metadata.trim()) return undefined;
    try {
      return JSON.parse(metadata) as Record<string, string | number | boolean | string[]>;
    } catch {
      setError('metadata: must be a JSON object');
      return null;
    }
  }

  async function addContent() {
    setError(null);
    const meta = parsedMetadata();
    if (meta === null) return;
    setBusy(true);
    const answer = await api.POST('/v3/documents', {
      body: {
        content,
        ...(containerTag ? { containerTag } : {}),
        ...(meta ? { metadata: meta } : {}),
      },
    });
    setBusy(false);
    if (answer.error !== undefined) return setError(memoryErrorText(new ApiError(answer.error)));
    setContent('');
    onAdded();
  }

  async function addFiles(files: File[]) {
    setError(null);
    const meta = parsedMetadata();
    if (meta === null || files.length === 0) return;
    setUploads((u) =>
      [...files.map((f) => ({ name: f.name, state: 'sending' as const })), ...u].slice(0, 50),
    );
    await Promise.all(
      files.map(async (file) => {
        const form = new FormData();
        form.append('file', file);
        if (containerTag) form.append('containerTag', containerTag);
        if (meta) form.append('metadata', JSON.stringify(meta));
        let result: Upload;
        try {
          const response = await fetch('/v3/documents/file', {
            method: 'POST',
            headers: memoryHeaders(),
            body: form,
          });
          const answer = (await response.json().catch(() => ({}))) as {
            id?: string;
            error?: string;
            details?: string;
          };
          result = response.ok
            ? { name: file.name, state: 'added', id: answer.id }
            : { name: file.name, state: 'refused', message: memoryErrorText(answer) };
        } catch (e) {
          result = { name: file.name, state: 'refused', message: (e as Error).message };
        }
        setUploads((u) => u.map((x) => (x.name === file.name && x.state === 'sending' ? result : x)));
      }),
    );
    onAdded();
  }

  // Each dropped set once (a ref, so React's development double effects do not send it twice).
  const added = useRef<File[] | undefined>(undefined);
  const addDropped = useEffectEvent((files: File[]) => {
    setMode('files');
    void addFiles(files);
  });
  useEffect(() => {
    if (!dropped || dropped === added.current) return;
    added.current = dropped;
    addDropped(dropped);
  }, [dropped]);

  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h4">
            Add documents
          </Title>
          <SegmentedControl
            aria-label="What to add"
            value={mode}
            onChange={(value) => {
              setMode(value);
              setError(null);
            }}
            data={[
              { label: 'Text', value: 'text' },
              { label: 'URL', value: 'url' },
              { label: 'Files', value: 'files' },
            ]}
          />
        </Group>
        {mode === 'text' && (
          <Textarea
            label="Content"
            placeholder="Text, markdown, HTML or JSON (up to 1 MB)"
            // A fixed height the person can drag: autosize measures the text area (a forced layout of
            // the whole page) on every render, a large share of the list's first render.
            rows={3}
            resize="vertical"
            value={content}
            onChange={(e) => setContent(e.currentTarget.value)}
          />
        )}
        {mode === 'url' && (
          <TextInput
            label="URL"
            placeholder="https://example.com/article"
            value={content}
            onChange={(e) => setContent(e.currentTarget.value)}
          />
        )}
        {mode === 'files' && (
          <div
            role="button"
            tabIndex={0}
            aria-label="Drop files here or press to choose files"
            onClick={() => fileInput.current?.click()}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') fileInput.current?.click();
            }}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            // The drop itself goes on to the page, which adds dropped files wherever they land.
            onDrop={() => setDragging(false)}
            style={{
              border: '2px dashed var(--mantine-color-default-border)',
              borderColor: dragging ? 'var(--mantine-primary-color-filled)' : undefined,
              borderRadius: 8,
              padding: 24,
              textAlign: 'center',
              cursor: 'pointer',
            }}
          >
            <Text size="sm">Drop files here, or press to choose (text, markdown, HTML, JSON, PDF, DOCX)</Text>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              data-testid="file-input"
              onChange={(e) => {
                void addFiles([...(e.currentTarget.files ?? [])]);
                e.currentTarget.value = '';
              }}
            />
          </div>
        )}
        <Group align="start" wrap="wrap" gap="sm">
          <TextInput
            label="Container tag"
            placeholder="sm_project_default"
            value={containerTag}
            onChange={(e) => setContainerTag(e.currentTarget.value)}
            style={{ flex: '1 1 180px' }}
          />
          <TextInput
            label="Metadata (JSON)"
            placeholder='{"source": "console"}'
            value={metadata}
            onChange={(e) => setMetadata(e.currentTarget.value)}
            style={{ flex: '2 1 240px' }}
          />
        </Group>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {mode !== 'files' && (
          <Group>
            <Button onClick={() => void addContent()} loading={busy}>
              Add {mode === 'url' ? 'URL' : 'text'}
            </Button>
          </Group>
        )}
        {mode === 'files' && uploads.length > 0 && (
          <Stack gap={4} aria-label="Uploads">
            {uploads.map((u, i) => (
              <Text key={`${u.name}-${i}`} size="sm" c={u.state === 'refused' ? 'red.8' : undefined}>
                {u.name}: {u.state === 'sending' ? 'sending…' : u.state === 'added' ? 'added' : u.message}
              </Text>
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
});
