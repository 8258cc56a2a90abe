import { Alert, Table, Text } from '@mantine/core';
import { useWebhookDeliveries } from './api/webhooks';
import { memoryErrorText } from './memoryText';

/** The webhook outbox (all of it, or about one document): deliveries waiting, in flight or retrying. */
export function WebhookDeliveries({ documentId }: { documentId?: string }) {
  const outbox = useWebhookDeliveries(documentId);
  if (outbox.error) return <Alert color="red">{memoryErrorText(outbox.error)}</Alert>;
  if (!outbox.data) return null;
  const { receivers, maxAttempts, total, deliveries } = outbox.data;
  if (receivers.length === 0)
    return <Text size="sm">No webhook receiver is configured (KEEL_INGEST_WEBHOOKS).</Text>;
  return (
    <>
      <Text size="sm">
        {total === 0
          ? `Nothing waiting: every delivery was accepted by ${receivers.join(', ')} (or given up after ${maxAttempts} attempts).`
          : `${total} deliver${total === 1 ? 'y' : 'ies'} waiting or retrying (up to ${maxAttempts} attempts each).`}
      </Text>
      {deliveries.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label="Webhook deliveries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Event</Table.Th>
                <Table.Th>Receiver</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Next attempt</Table.Th>
                <Table.Th>Last error</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {deliveries.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    {d.status ?? d.type}
                    {documentId ? '' : ` · ${d.documentId ?? ''}`}
                  </Table.Td>
                  <Table.Td>{d.receiver}</Table.Td>
                  <Table.Td>{d.attempts}</Table.Td>
                  <Table.Td>{new Date(d.nextAttemptAt).toLocaleTimeString('en')}</Table.Td>
                  <Table.Td>{d.lastError ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
