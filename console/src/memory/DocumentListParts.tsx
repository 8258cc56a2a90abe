import { memo } from 'react';
import {
  Anchor,
  Box,
  Button,
  Group,
  MultiSelect,
  Select,
  Table,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { Link } from 'react-router-dom';
import { EmptyState } from '../components/EmptyState';
import { DOCUMENT_TYPES, STATUSES, type DocumentSummary } from './api/documents';
import { dateTime, StatusBadge, type Filters } from './DocumentsPage';

/** What an empty list says: how to add the first documents, or that the filters match none. */
export function EmptyDocuments({
  filtered,
  onAdd,
  onClear,
}: {
  filtered: boolean;
  onAdd: () => void;
  onClear: () => void;
}) {
  return filtered ? (
    <EmptyState
      title="No document matches these filters."
      action={
        <Button variant="default" onClick={onClear}>
          Clear filters
        </Button>
      }
    />
  ) : (
    <EmptyState title="No document yet." action={<Button onClick={onAdd}>Add the first documents</Button>}>
      Add text, a web page or files (PDF, Markdown, text…): Keel splits them into chunks, indexes them for
      search and extracts memories. Files can also be dropped anywhere on this page.
    </EmptyState>
  );
}

/** The list's filters and sort (memoised: it renders only when they change). */
export const FilterBar = memo(function FilterBar({
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
      {(['from', 'to'] as const).map((end) => (
        <TextInput
          key={end}
          type="date"
          label={`Created ${end}`}
          value={filters[end]}
          onChange={(e) => update({ [end]: e.currentTarget.value })}
        />
      ))}
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

function DocumentStatus({ document: d }: { document: DocumentSummary }) {
  return (
    <>
      <StatusBadge status={d.status} />
      {d.status === 'failed' && d.error && (
        <Text size="xs" c="red.8" maw={240} style={{ overflowWrap: 'anywhere' }}>
          {d.error}
        </Text>
      )}
    </>
  );
}

/**
 * One document of the list. Mantine's components cost about 0.1 ms each to render, so a row keeps to
 * the table's own cells and a few: 25 rows of them were a quarter of the page's first render.
 */
export const DocumentRow = memo(function DocumentRow({
  document: d,
  selected,
  onToggle,
  onDelete,
  narrow,
}: {
  document: DocumentSummary;
  selected: boolean;
  onToggle: (id: string) => void;
  onDelete: (id: string) => void;
  /** Below sm: the status goes under the title rather than in a column of its own (one badge either way). */
  narrow: boolean;
}) {
  return (
    <Table.Tr data-document-id={d.id}>
      <Table.Td>
        <RowCheckbox label={`Select ${d.title ?? d.id}`} checked={selected} onChange={() => onToggle(d.id)} />
      </Table.Td>
      <Table.Td maw={320}>
        {/* A title with no space (an address) breaks anywhere: its width no longer sets the table's. */}
        <Anchor
          component={Link}
          to={`/memory/documents/${d.id}`}
          size="sm"
          lineClamp={1}
          style={{ overflowWrap: 'anywhere' }}
        >
          {d.title || d.url || d.customId || d.id}
        </Anchor>
        {/* On a narrow screen the columns below, status included, are under the title: Delete stays on the screen. */}
        <Text size="xs" c="dimmed" hiddenFrom="sm">
          {[d.type, d.containerTags.join(', '), dateTime.format(new Date(d.createdAt))]
            .filter(Boolean)
            .join(' · ')}
        </Text>
        {narrow && (
          <Box mt={4}>
            <DocumentStatus document={d} />
          </Box>
        )}
      </Table.Td>
      {!narrow && (
        <Table.Td miw={110}>
          <DocumentStatus document={d} />
        </Table.Td>
      )}
      <Table.Td visibleFrom="sm">{d.type}</Table.Td>
      <Table.Td visibleFrom="sm" style={oneLine}>
        {d.containerTags.join(', ')}
      </Table.Td>
      <Table.Td visibleFrom="sm">{dateTime.format(new Date(d.createdAt))}</Table.Td>
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
export function RowCheckbox({
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

export const visuallyHidden = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
} as const;
