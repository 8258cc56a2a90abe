import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Loader,
  Paper,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useChunks, useDeleteDocument, useDocument } from './api/documents';
import { useDocumentTransitions } from './api/statusEvents';
import { StatusBadge } from './DocumentsPage';
import { WebhookDeliveries } from './WebhookDeliveries';
import { memoryErrorText } from './memoryText';

/** One document: content, metadata, chunks, the memories extracted from it, and its transitions. */
export default function DocumentPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const transitions = useDocumentTransitions(id);
  const doc = useDocument(id);
  const chunks = useChunks(id);
  const remove = useDeleteDocument(id, { onSuccess: () => void navigate('/memory/documents') });

  if (doc.isPending) return <Loader aria-label="Loading" />;
  if (doc.error) return <Alert color="red">{memoryErrorText(doc.error)}</Alert>;
  const d = doc.data;
  const memories = (d.memories ?? []) as {
    id: string;
    memory: string;
    version: number;
    isLatest: boolean;
    isForgotten: boolean;
  }[];

  return (
    <Stack>
      <Anchor component={Link} to="/memory/documents" size="sm">
        ← Documents
      </Anchor>
      <Title order={1} size="h2" style={{ wordBreak: 'break-word' }}>
        {d.title || d.url || d.customId || d.id}
      </Title>
      <Group gap="xs" wrap="wrap">
        <StatusBadge status={d.status} />
        <Badge variant="outline" color="gray">
          {d.type}
        </Badge>
        <Badge variant="outline" color="gray">
          memories: {d.dreamingStatus}
        </Badge>
        {d.containerTags.map((t) => (
          <Badge key={t} variant="light" color="grape">
            {t}
          </Badge>
        ))}
      </Group>
      {d.error && (
        <Alert color="red" title="Failed">
          {d.error}
        </Alert>
      )}

      <Section title="Metadata">
        <Table aria-label="Metadata" withRowBorders={false}>
          <Table.Tbody>
            {[
              ['Id', d.id],
              ['Custom id', d.customId ?? '—'],
              ['Source', d.source ?? '—'],
              ['URL', d.url ?? '—'],
              ['Created', new Date(d.createdAt).toLocaleString('en')],
              ['Updated', new Date(d.updatedAt).toLocaleString('en')],
            ].map(([k, v]) => (
              <Table.Tr key={k}>
                <Table.Th w={140}>{k}</Table.Th>
                <Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Code block>{JSON.stringify(d.metadata, null, 2)}</Code>
      </Section>

      <Section title="Content">
        <Code block mah={320} style={{ overflow: 'auto', whiteSpace: 'pre-wrap' }}>
          {d.content ?? ''}
        </Code>
      </Section>

      <Section title={`Chunks (${chunks.data?.total ?? '…'})`}>
        {chunks.error && <Alert color="red">{memoryErrorText(chunks.error)}</Alert>}
        {chunks.data?.chunks.length === 0 && <Text size="sm">No chunks yet.</Text>}
        <Stack gap="xs">
          {chunks.data?.chunks.map((c) => (
            <Paper key={c.id} withBorder p="xs">
              <Text size="xs">
                #{c.position} · characters {String(c.metadata.startOffset)}–{String(c.metadata.endOffset)}
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {c.content}
              </Text>
            </Paper>
          ))}
        </Stack>
      </Section>

      <Section title={`Memories extracted (${memories.length})`}>
        {memories.length === 0 && <Text size="sm">No memories from this document.</Text>}
        <Stack gap={4}>
          {memories.map((m) => (
            <Text key={m.id} size="sm" td={m.isForgotten ? 'line-through' : undefined}>
              v{m.version} {m.isLatest ? '' : '(superseded) '}
              {m.memory}
            </Text>
          ))}
        </Stack>
        {d.containerTags[0] && (
          <Anchor
            component={Link}
            to={`/memory/memories?tag=${encodeURIComponent(d.containerTags[0])}`}
            size="sm"
          >
            See the memory graph of {d.containerTags[0]}
          </Anchor>
        )}
      </Section>

      <Section title="Status history">
        <Text size="xs">
          Transitions published while this console was open (the server keeps the current status only).
        </Text>
        {transitions.length === 0 ? (
          <Text size="sm">
            Current: {d.status} (updated {new Date(d.updatedAt).toLocaleString('en')})
          </Text>
        ) : (
          <Table aria-label="Status history">
            <Table.Tbody>
              {transitions.map((t, i) => (
                <Table.Tr key={i}>
                  <Table.Td>{new Date(t.time).toLocaleTimeString('en')}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={t.status} />
                  </Table.Td>
                  <Table.Td>memories: {t.dreamingStatus}</Table.Td>
                  <Table.Td>{t.error ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Section>
      <Section title="Webhook deliveries">
        <WebhookDeliveries documentId={d.id} />
      </Section>
      {/* Last, away from the title: deleting is the rarest thing done here. */}
      <Section title="Delete">
        <Text size="sm">Deletes the document, its chunks and the memories extracted from it.</Text>
        <Group>
          <Button color="red" variant="light" loading={remove.isPending} onClick={() => remove.mutate()}>
            Delete document
          </Button>
        </Group>
        {remove.error && <Alert color="red">{memoryErrorText(remove.error)}</Alert>}
      </Section>
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}
