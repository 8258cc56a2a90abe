import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Loader,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { switchMemoryApiKey } from '../api/memoryApiKey';
import {
  useCreateApiKey,
  useCreateOrganization,
  useDeleteOrganization,
  useOrganizationKeys,
  useOrganizations,
  useRevokeApiKey,
  type ApiKey,
  type CreatedKey,
  type Organization,
} from './api/organizations';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' }) : 'never');

/**
 * Organizations and their API keys (/keel/organizations): each key reads and writes its
 * organization's memory only. A new key is shown once, in a box to copy; Keel keeps its digest.
 */
export default function ApiKeysPage() {
  const organizations = useOrganizations();
  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>API keys</Title>
      <Text size="sm" c="dimmed">
        Each organization is a memory space of its own: documents, memories, profiles, settings and searches of one are
        invisible to another’s keys. Keys of KEEL_API_KEYS and requests without a key on a server without keys use the
        default organization.
      </Text>
      <NewOrganization />
      {organizations.error && <Alert color="red">{errorMessage(organizations.error)}</Alert>}
      {organizations.isPending && <Loader aria-label="Loading organizations" />}
      {organizations.data?.map((org) => <OrganizationCard key={org.id} org={org} />)}
    </Stack>
  );
}

function NewOrganization() {
  const [name, setName] = useState('');
  const create = useCreateOrganization({ onSuccess: () => setName('') });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name);
  };
  return (
    <form onSubmit={submit} aria-label="New organization">
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label="New organization"
          placeholder="Team or application name"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={create.error ? errorMessage(create.error) : undefined}
          w={{ base: '100%', xs: 320 }}
        />
        <Button type="submit" loading={create.isPending}>
          Create organization
        </Button>
      </Group>
    </form>
  );
}

function OrganizationCard({ org }: { org: Organization }) {
  const client = useQueryClient();
  const keys = useOrganizationKeys(org.id);
  const [keyName, setKeyName] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [deleting, setDeleting] = useState(false);
  const navigate = useNavigate();
  // The new key is what must be read now: brought to the middle of the screen, clear of the notification.
  const createdBox = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (created) createdBox.current?.scrollIntoView({ block: 'center' });
  }, [created]);
  /** The Memory pages then act with this key: they show this organization's documents and memories. */
  const browseWith = (key: string) => {
    switchMemoryApiKey(client, key);
    void navigate('/memory/documents');
  };
  const createKey = useCreateApiKey(org.id, {
    onSuccess: (key) => {
      setCreated(key);
      setKeyName('');
    },
  });
  const revoke = useRevokeApiKey(org.id, { onSuccess: () => setRevoking(null) });
  const remove = useDeleteOrganization(org.id, { onSuccess: () => setDeleting(false) });

  return (
    <Paper withBorder p="md" aria-label={`Organization ${org.name}`} component="section">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Title order={3} size="h4">
              {org.name}
            </Title>
            {org.isDefault && <Badge variant="light">default</Badge>}
            <Code>{org.id}</Code>
          </Group>
          {!org.isDefault && (
            <Button variant="subtle" color="red" size="xs" onClick={() => setDeleting(true)}>
              Delete organization
            </Button>
          )}
        </Group>

        {created && (
          <Alert ref={createdBox} color="green" withCloseButton closeButtonLabel="Dismiss the new key" onClose={() => setCreated(null)}>
            <Text size="sm" fw={600} mb="xs">
              New key “{created.name}”: copy it now, it is not shown again.
            </Text>
            <Code block data-testid="created-key" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
              {created.key}
            </Code>
            <Group gap="xs" mt="xs">
              <CopyButton value={created.key}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="light" onClick={copy} aria-label="Copy key">
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
              <Button size="xs" variant="subtle" onClick={() => browseWith(created.key)}>
                Open in Memory
              </Button>
            </Group>
          </Alert>
        )}

        {keys.error && <Alert color="red">{errorMessage(keys.error)}</Alert>}
        {keys.data && keys.data.length === 0 && (
          <Text size="sm" c="dimmed">
            No keys yet{org.isDefault ? ' (KEEL_API_KEYS also reach this organization)' : ''}.
          </Text>
        )}
        {keys.data && keys.data.length > 0 && (
          <>
            <Table aria-label={`Keys of ${org.name}`} visibleFrom="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Last used</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {keys.data.map((key) => (
                  <Table.Tr key={key.id}>
                    <Table.Td>{key.name}</Table.Td>
                    <Table.Td>
                      <Code style={{ whiteSpace: 'nowrap' }}>{key.prefix}…</Code>
                    </Table.Td>
                    <Table.Td>{when(key.createdAt)}</Table.Td>
                    <Table.Td>{when(key.lastUsedAt)}</Table.Td>
                    <Table.Td>
                      <Button variant="light" color="red" size="xs" onClick={() => setRevoking(key)}>
                        Revoke
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {/* On a phone a five-column table pushes Revoke past the card's edge: one card per key instead. */}
            <Stack gap="xs" hiddenFrom="sm" role="list" aria-label={`Keys of ${org.name}`}>
              {keys.data.map((key) => (
                <Paper key={key.id} withBorder p="sm" role="listitem" aria-label={key.name}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <Stack gap={4} miw={0}>
                      <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                        {key.name}
                      </Text>
                      <Code style={{ whiteSpace: 'nowrap' }}>{key.prefix}…</Code>
                      <Text size="xs" c="dimmed">
                        Created {when(key.createdAt)} · last used {when(key.lastUsedAt)}
                      </Text>
                    </Stack>
                    <Button variant="light" color="red" size="xs" onClick={() => setRevoking(key)} style={{ flexShrink: 0 }}>
                      Revoke
                    </Button>
                  </Group>
                </Paper>
              ))}
            </Stack>
          </>
        )}

        <form
          aria-label={`New key for ${org.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            createKey.mutate(keyName);
          }}
        >
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label="New key"
              placeholder="What the key is for"
              value={keyName}
              onChange={(e) => setKeyName(e.currentTarget.value)}
              error={createKey.error ? errorMessage(createKey.error) : undefined}
              w={{ base: '100%', xs: 320 }}
            />
            <Button type="submit" variant="light" loading={createKey.isPending}>
              Create key
            </Button>
          </Group>
        </form>
      </Stack>

      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title={`Revoke “${revoking?.name ?? ''}”?`}>
        <Stack>
          <Text size="sm">
            Requests with <Code>{revoking?.prefix}…</Code> are refused at once, on every replica. This cannot be undone.
          </Text>
          {revoke.error && <Alert color="red">{errorMessage(revoke.error)}</Alert>}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRevoking(null)}>
              Cancel
            </Button>
            <Button color="red" loading={revoke.isPending} onClick={() => revoking && revoke.mutate(revoking)}>
              Revoke key
            </Button>
          </Group>
        </Stack>
      </Modal>

      <Modal opened={deleting} onClose={() => setDeleting(false)} title={`Delete ${org.name}?`}>
        <Stack>
          <Text size="sm">Its keys and settings go with it. An organization still holding documents or memories is not deleted.</Text>
          {remove.error && <Alert color="red">{errorMessage(remove.error)}</Alert>}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(false)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete organization
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
