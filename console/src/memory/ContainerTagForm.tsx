import { useEffect, useMemo } from 'react';
import { Anchor, Group, Select, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router-dom';
import { useContainerTags } from './api/memories';
import { memoryErrorText } from './memoryText';

/** The container tag a page shows, kept in the URL (`?tag=`) so the view can be linked and reloaded. */
export function useContainerTag(): [string, (tag: string) => void] {
  const [params, setParams] = useSearchParams();
  return [params.get('tag') ?? '', (tag) => setParams(tag ? { tag } : {}, { replace: !params.get('tag') })];
}

/**
 * The tag picker of the memory pages: the container tags in use offered with their counts (searchable).
 * With no tag chosen yet, the one with the most memories is shown.
 */
export function ContainerTagForm({ tag, onShow }: { tag: string; onShow: (tag: string) => void }) {
  const tags = useContainerTags();
  const list = useMemo(() => tags.data ?? [], [tags.data]);
  useEffect(() => {
    if (tag || list.length === 0) return;
    const busiest = [...list].sort((a, b) => b.memories - a.memories || b.documents - a.documents)[0];
    onShow(busiest.containerTag);
  }, [tag, list]);
  const counts = new Map(list.map((t) => [t.containerTag, t]));
  // A tag from a link that no document uses (yet) stays shown.
  const data = list.map((t) => t.containerTag);
  if (tag && !counts.has(tag)) data.unshift(tag);
  return (
    <Group align="end" wrap="wrap">
      <Select
        label="Container tag"
        placeholder={
          tags.isPending ? 'Loading tags…' : list.length ? 'Choose a tag' : 'No tag yet: add a document first'
        }
        data={data}
        value={tag || null}
        onChange={(value) => value && onShow(value)}
        searchable
        allowDeselect={false}
        nothingFoundMessage="No container tag by that name"
        renderOption={({ option }) => {
          const t = counts.get(option.value);
          return (
            <Group justify="space-between" wrap="nowrap" w="100%" gap="xs">
              <Text size="sm">{option.value}</Text>
              {t && (
                <Text size="xs" c="dimmed">
                  {t.memories} memories · {t.documents} documents
                </Text>
              )}
            </Group>
          );
        }}
        limit={100}
        maxDropdownHeight={280}
        style={{ flex: '1 1 260px' }}
        maw={480}
      />
      {tags.error && (
        <Text size="sm" c="var(--mantine-color-error)">
          The tags could not be listed: {memoryErrorText(tags.error)}
        </Text>
      )}
      {tags.isSuccess && list.length === 0 && !tag && (
        <Text size="sm" style={{ flex: '1 1 100%' }}>
          Memories and profiles are kept per container tag, which documents carry.{' '}
          <Anchor component={Link} to="/memory/documents">
            Add documents
          </Anchor>{' '}
          with a container tag; once they are processed their tag is offered here.
        </Text>
      )}
    </Group>
  );
}
