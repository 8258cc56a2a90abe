import { useCallback, useEffect, useRef, useState } from 'react';
import {
  Alert,
  Anchor,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  Title,
  useComputedColorScheme,
} from '@mantine/core';
import { Link } from 'react-router-dom';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useProcessing } from './api/documents';
import { useDocumentStatusEvents, type DocumentStatusEvent } from './api/statusEvents';
import { StatusBadge } from './DocumentsPage';
import { WebhookDeliveries } from './WebhookDeliveries';
import { memoryErrorText } from './memoryText';

const BUCKET_MS = 5000;
const BUCKETS = 60;

const LINES = [
  { dataKey: 'queued', name: 'in pipeline', stroke: '#1971c2' },
  { dataKey: 'done', name: 'done', stroke: '#2b8a3e' },
  { dataKey: 'failed', name: 'failed', stroke: '#c92a2a' },
];

interface Sample {
  time: string;
  queued: number;
  done: number;
  failed: number;
}

/** Queue depth (polled), throughput and failures (counted from status events) over the last five minutes. */
export default function PipelinePage() {
  const scheme = useComputedColorScheme('light');
  const processing = useProcessing();
  const [samples, setSamples] = useState<Sample[]>([]);
  const counts = useRef({ done: 0, failed: 0 });
  const [failures, setFailures] = useState<DocumentStatusEvent[]>([]);
  const depth = useRef(0);
  depth.current = processing.data?.totalCount ?? depth.current;

  const onStatus = useCallback((event: DocumentStatusEvent) => {
    if (event.status === 'done' && event.dreamingStatus !== 'done') counts.current.done++;
    if (event.status === 'failed') {
      counts.current.failed++;
      setFailures((f) => [event, ...f].slice(0, 20));
    }
  }, []);
  useDocumentStatusEvents(onStatus);

  useEffect(() => {
    const tick = () => {
      const sample = {
        time: new Date().toLocaleTimeString('en', { hour12: false }),
        queued: depth.current,
        ...counts.current,
      };
      counts.current = { done: 0, failed: 0 };
      setSamples((s) => [...s, sample].slice(-BUCKETS));
    };
    tick();
    const timer = window.setInterval(tick, BUCKET_MS);
    return () => window.clearInterval(timer);
  }, []);

  const axis = scheme === 'dark' ? '#ced4da' : '#495057';
  const lastFiveMinutes = (key: 'done' | 'failed') =>
    samples.reduce((n, s) => n + s[key], 0) + counts.current[key];
  return (
    <Stack>
      <Title order={1} size="h2">
        Pipeline
      </Title>
      {processing.error && <Alert color="red">{memoryErrorText(processing.error)}</Alert>}
      <Group wrap="wrap">
        <Stat label="In the pipeline now" value={processing.data?.totalCount ?? '…'} />
        <Stat label="Done (last 5 min)" value={lastFiveMinutes('done')} />
        <Stat label="Failed (last 5 min)" value={lastFiveMinutes('failed')} />
      </Group>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="xs">
          Queue depth and throughput (per {BUCKET_MS / 1000} s)
        </Title>
        <div
          style={{ width: '100%', height: 260 }}
          role="img"
          aria-label="Chart of queue depth, documents done and failures over time"
        >
          <ResponsiveContainer>
            <LineChart data={samples}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="time" stroke={axis} fontSize={11} />
              <YAxis allowDecimals={false} stroke={axis} fontSize={11} />
              <Tooltip />
              <Legend />
              {LINES.map((line) => (
                <Line key={line.dataKey} type="monotone" {...line} dot={false} isAnimationActive={false} />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </div>
        <Text size="xs">Counted from the event stream while this page is open.</Text>
      </Paper>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="xs">
          Oldest unfinished documents
        </Title>
        {processing.data?.documents.length === 0 && <Text size="sm">The pipeline is idle.</Text>}
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label="Unfinished documents">
            <Table.Tbody>
              {processing.data?.documents.slice(0, 20).map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/memory/documents/${d.id}`} size="sm">
                      {d.title || d.customId || d.id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={d.status} />
                  </Table.Td>
                  <Table.Td>{new Date(d.createdAt).toLocaleString('en')}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="xs">
          Webhook outbox
        </Title>
        <WebhookDeliveries />
      </Paper>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="xs">
          Recent failures
        </Title>
        {failures.length === 0 && <Text size="sm">No failure since this page opened.</Text>}
        {failures.map((f, i) => (
          <Text key={i} size="sm">
            {new Date(f.time).toLocaleTimeString('en')} ·{' '}
            <Anchor component={Link} to={`/memory/documents/${f.id}`}>
              {f.customId ?? f.id}
            </Anchor>{' '}
            · {f.error}
          </Text>
        ))}
      </Paper>
    </Stack>
  );
}

function Stat({ label, value }: { label: string; value: number | string }) {
  return (
    <Paper withBorder p="sm" miw={160}>
      <Text size="xs">{label}</Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
    </Paper>
  );
}
