import { useState } from 'react';
import { Button, Group, TextInput } from '@mantine/core';
import { useSearchParams } from 'react-router-dom';

/** The container tag a page shows, kept in the URL (`?tag=`) so the view can be linked and reloaded. */
export function useContainerTag(): [string, (tag: string) => void] {
  const [params, setParams] = useSearchParams();
  return [params.get('tag') ?? '', (tag) => setParams(tag ? { tag } : {})];
}

/** A container tag field and the button that shows it. */
export function ContainerTagForm({
  tag,
  onShow,
  placeholder,
  action,
}: {
  tag: string;
  onShow: (tag: string) => void;
  placeholder: string;
  action: string;
}) {
  const [draft, setDraft] = useState(tag);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onShow(draft.trim());
      }}
    >
      <Group align="end" wrap="wrap">
        <TextInput
          label="Container tag"
          placeholder={placeholder}
          value={draft}
          onChange={(e) => setDraft(e.currentTarget.value)}
          style={{ flex: '1 1 220px' }}
        />
        <Button type="submit">{action}</Button>
      </Group>
    </form>
  );
}
