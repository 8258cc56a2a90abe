import { useMemo, useState } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Group,
  List,
  Loader,
  Modal,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { Link } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { EmptyState } from '../components/EmptyState';
import { useDeleteDefinition } from './api/definition';
import { useMiddlewares, useServices, type DefinitionKind as Kind } from './api/definitions';
import { useResources } from './api/resources';

type Definition = { id: string; name: string; type: string };

/** Middlewares or services: search, type filter, and delete that names the resources still using one. */
export default function DefinitionsPage({ kind }: { kind: Kind }) {
  const middlewares = useMiddlewares();
  const services = useServices();
  const list = kind === 'middlewares' ? middlewares : services;
  const resources = useResources();
  const [search, setSearch] = useState('');
  const [type, setType] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Definition | null>(null);
  const title = kind === 'middlewares' ? 'Middlewares' : 'Services';
  const singular = kind === 'middlewares' ? 'middleware' : 'service';

  const all = useMemo(() => list.data ?? [], [list.data]);
  const types = useMemo(() => [...new Set(all.map((d) => d.type))].sort(), [all]);
  // Who uses what, from the resources the console already has: the 409 only gives a count.
  const users = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const r of resources.data ?? []) {
      const ids =
        kind === 'middlewares'
          ? r.assigned_middlewares.map((m) => m.id)
          : r.assigned_service
            ? [(r.assigned_service as { id: string }).id]
            : [];
      for (const id of ids) map.set(id, [...(map.get(id) ?? []), r.host]);
    }
    return map;
  }, [resources.data, kind]);
  const needle = search.trim().toLowerCase();
  const shown = all.filter(
    (d) =>
      (!type || d.type === type) &&
      (!needle || d.name.toLowerCase().includes(needle) || d.id.toLowerCase().includes(needle)),
  );

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          {title}
        </Title>
        <Button component={Link} to={`/routing/${kind}/new`}>
          New {singular}
        </Button>
      </Group>
      {list.isPending && <Loader aria-label="Loading" />}
      {list.error && <Alert color="red">{errorMessage(list.error)}</Alert>}
      {list.isSuccess && all.length === 0 ? (
        <EmptyState
          title={`No ${singular} yet.`}
          action={
            <Button component={Link} to={`/routing/${kind}/new`}>
              Create the first {singular}
            </Button>
          }
        >
          {kind === 'middlewares'
            ? 'A middleware (authentication, headers, rate limits, redirects…) runs on the requests of the resources it is attached to. Create one from a template, then attach it on a resource’s page.'
            : 'A service says where a resource’s requests go (load-balanced servers, weighted or mirrored services). Create one from a template, then assign it on a resource’s page.'}
        </EmptyState>
      ) : (
        <>
          <Group align="end" wrap="wrap">
            <TextInput
              label="Search"
              placeholder="Name or id"
              value={search}
              onChange={(e) => setSearch(e.currentTarget.value)}
              style={{ flex: '1 1 200px' }}
            />
            <Select
              label="Type"
              placeholder="Any type"
              clearable
              data={types}
              value={type}
              onChange={setType}
            />
          </Group>
          <Text size="sm" aria-live="polite">
            {shown.length} of {all.length} {title.toLowerCase()}
          </Text>
          {shown.length === 0 ? (
            <EmptyState
              title={`No ${singular} matches this search.`}
              action={
                <Button
                  variant="default"
                  onClick={() => {
                    setSearch('');
                    setType(null);
                  }}
                >
                  Clear the search
                </Button>
              }
            />
          ) : (
            <Table.ScrollContainer minWidth={0}>
              <Table striped aria-label={title}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th visibleFrom="sm">Type</Table.Th>
                    <Table.Th visibleFrom="sm">Used by</Table.Th>
                    <Table.Th w={90}>Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {shown.map((d) => (
                    <Table.Tr key={d.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/routing/${kind}/${encodeURIComponent(d.id)}`}>
                          {d.name}
                        </Anchor>
                        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                          {d.id}
                        </Text>
                        {/* On a narrow screen the type and the use count fold under the name. */}
                        <Text size="xs" c="dimmed" hiddenFrom="sm">
                          {d.type} · used by {users.get(d.id)?.length ?? 0}
                        </Text>
                      </Table.Td>
                      <Table.Td visibleFrom="sm">{d.type}</Table.Td>
                      <Table.Td visibleFrom="sm">{users.get(d.id)?.length ?? 0}</Table.Td>
                      <Table.Td>
                        <Button
                          size="xs"
                          variant="light"
                          color="red"
                          aria-label={`Delete ${d.name}`}
                          onClick={() => setDeleting(d)}
                        >
                          Delete
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
      {deleting && (
        <DeleteModal
          kind={kind}
          definition={deleting}
          users={users.get(deleting.id) ?? []}
          onClose={() => setDeleting(null)}
        />
      )}
    </Stack>
  );
}

function DeleteModal({
  kind,
  definition,
  users,
  onClose,
}: {
  kind: Kind;
  definition: Definition;
  users: string[];
  onClose: () => void;
}) {
  const remove = useDeleteDefinition(kind, definition);
  return (
    <Modal opened onClose={onClose} title={`Delete ${definition.name}?`}>
      <Stack>
        {users.length > 0 && (
          <Text>
            Still used by {users.length} resource{users.length === 1 ? '' : 's'}; remove it from them first.
          </Text>
        )}
        {remove.error ? (
          <Alert color="red" role="alert">
            {errorMessage(remove.error)}
          </Alert>
        ) : null}
        {(users.length > 0 || remove.error) && (
          <List size="sm" aria-label="Resources using it">
            {users.slice(0, 50).map((host) => (
              <List.Item key={host}>{host}</List.Item>
            ))}
          </List>
        )}
        <Group justify="end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => remove.mutate(undefined, { onSuccess: onClose })}
          >
            Delete
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
