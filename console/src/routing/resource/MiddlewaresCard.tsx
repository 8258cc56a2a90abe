import { useState } from 'react';
import { Anchor, Button, Group, MultiSelect, NumberInput, Table, Text, VisuallyHidden } from '@mantine/core';
import { Link } from 'react-router-dom';
import { useMiddlewares } from '../api/definitions';
import type { Resource } from '../api/resources';
import { useAttachMiddlewares, useDetachMiddleware, useSaveMiddlewarePriority } from '../api/resourceSettings';
import { failureText, Outcome, Section } from './SettingForm';
import { useServerValue } from './useServerValue';

export function MiddlewaresCard({ resource, disabled }: { resource: Resource; disabled: boolean }) {
  const middlewares = useMiddlewares();
  const [chosen, setChosen] = useState<string[]>([]);
  const [priority, setPriority] = useState<number | string>(200);
  const add = useAttachMiddlewares(resource);
  const assigned = new Set(resource.assigned_middlewares.map((m) => m.id));
  const options = (middlewares.data ?? [])
    .filter((m) => !assigned.has(m.id))
    .map((m) => ({ value: m.id, label: `${m.name} (${m.type})` }));

  return (
    <Section title="Middlewares">
      {resource.assigned_middlewares.length === 0 ? (
        <Text>No middleware: this resource is not protected.</Text>
      ) : (
        <Table.ScrollContainer minWidth={320}>
          <Table aria-label="Attached middlewares">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Middleware</Table.Th>
                <Table.Th>Priority</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {resource.assigned_middlewares.map((m) => (
                <AttachedMiddleware key={m.id} resourceId={resource.id} link={m} disabled={disabled} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Text size="sm">Higher priority runs first (1–1000). Default: 200.</Text>
      {!disabled && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen.length)
              add.mutate({ ids: chosen, priority: Number(priority) }, { onSuccess: () => setChosen([]) });
          }}
        >
          <Group align="end" wrap="wrap">
            <MultiSelect
              label="Add middlewares"
              placeholder={options.length ? 'Choose one or more' : 'All middlewares attached'}
              data={options}
              value={chosen}
              onChange={setChosen}
              searchable
              style={{ flex: '1 1 240px' }}
            />
            <NumberInput
              label="Priority"
              value={priority}
              onChange={setPriority}
              min={1}
              max={1000}
              w={110}
            />
            <Button type="submit" disabled={!chosen.length} loading={add.isPending}>
              Add
            </Button>
          </Group>
          <Outcome failed={failureText(add.error)} />
        </form>
      )}
    </Section>
  );
}

function AttachedMiddleware({
  resourceId,
  link,
  disabled,
}: {
  resourceId: string;
  link: { id: string; name: string; priority: number };
  disabled: boolean;
}) {
  const [priority, setPriority, submitted] = useServerValue<number | string>(link.priority);
  const save = useSaveMiddlewarePriority(resourceId, link);
  const remove = useDetachMiddleware(resourceId, link);
  return (
    <Table.Tr>
      <Table.Td>
        <Anchor component={Link} to={`/routing/middlewares/${encodeURIComponent(link.id)}`}>
          {link.name}
        </Anchor>
        <Outcome failed={failureText(save.error ?? remove.error)} />
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <NumberInput
            aria-label={`Priority of ${link.name}`}
            value={priority}
            onChange={setPriority}
            min={1}
            max={1000}
            w={90}
            disabled={disabled}
          />
          {!disabled && Number(priority) !== link.priority && (
            <Button
              size="xs"
              onClick={() => {
                submitted();
                save.mutate(Number(priority));
              }}
              loading={save.isPending}
            >
              Save
            </Button>
          )}
        </Group>
      </Table.Td>
      <Table.Td>
        {!disabled && (
          <Button
            size="xs"
            variant="light"
            color="red"
            aria-label={`Remove ${link.name}`}
            onClick={() => remove.mutate(undefined)}
            loading={remove.isPending}
          >
            Remove
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
