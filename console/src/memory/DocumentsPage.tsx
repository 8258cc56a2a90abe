import { useCallback, useEffect, useState } from 'react';
import { useMediaQuery } from '@mantine/hooks';
import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Pagination,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import {
  documentListQuery,
  useDeleteDocuments,
  useDocumentList,
  useRefreshDocumentLists,
  type STATUSES,
} from './api/documents';
import { useDocumentListStatus } from './api/statusEvents';
import { memoryErrorText } from './memoryText';
import { DocumentRow, EmptyDocuments, FilterBar, RowCheckbox, visuallyHidden } from './DocumentListParts';
import { AddDocuments } from './AddDocuments';

// One formatter for every row (toLocaleString builds a new one per call).
export const dateTime = new Intl.DateTimeFormat('en', { dateStyle: 'short', timeStyle: 'medium' });

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

export interface Filters {
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
  const narrow = useMediaQuery('(max-width: 48em)', undefined, { getInitialValueInEffect: false }) ?? false;
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // The add panel: closed (null), or open with the files dropped on the page to add at once.
  const [adding, setAdding] = useState<{ files?: File[] } | null>(null);
  const body = listBody(filters, page, limit);
  const list = useDocumentList(body);

  useDocumentListStatus(filters.statuses.length > 0);

  const remove = useDeleteDocuments({ onSuccess: () => setSelected(new Set()) });

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
  const filtersActive =
    filters.tags.length + filters.statuses.length + filters.types.length > 0 ||
    !!(filters.from || filters.to || filters.metadata.trim());
  const clearFilters = () => update({ ...NO_FILTERS, sort: filters.sort, order: filters.order });
  const onAdded = useRefreshDocumentLists();
  // The next page is fetched ahead once this one is shown, so "next" shows without a round trip.
  const totalPages = list.data?.pagination.totalPages ?? 0;
  const nextBody = page < totalPages ? listBody(filters, page + 1, limit) : undefined;
  const nextKey = JSON.stringify(nextBody);
  useEffect(() => {
    if (!nextBody || list.isPlaceholderData) return;
    void queryClient.prefetchQuery(documentListQuery(nextBody));
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
      ) : total === 0 ? (
        <EmptyDocuments filtered={filtersActive} onAdd={() => setAdding({})} onClear={clearFilters} />
      ) : (
        <Table.ScrollContainer minWidth={0}>
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
                {!narrow && <Table.Th>Status</Table.Th>}
                <Table.Th visibleFrom="sm">Type</Table.Th>
                <Table.Th visibleFrom="sm">Container tags</Table.Th>
                <Table.Th visibleFrom="sm">Created</Table.Th>
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
                  narrow={narrow}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group justify="space-between" wrap="wrap" display={total === 0 ? 'none' : undefined}>
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
