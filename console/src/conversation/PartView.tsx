import { memo, type ReactNode } from 'react';
import { Badge, Box, Group, Paper, Stack, Text } from '@mantine/core';
import type { AssistantMessage, MessageEntry, Part } from './model';
import { DiffView } from './DiffView';
import { Markdown } from './Markdown';
import './parts.css';

type ToolPart = Extract<Part, { type: 'tool' }>;

const STATUS_COLOR: Record<string, string> = {
  pending: 'gray.7',
  running: 'blue.8',
  completed: 'teal.9',
  error: 'red.9',
};

function json(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function duration(start?: number, end?: number): string | undefined {
  if (start === undefined || end === undefined) return undefined;
  const ms = end - start;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function Details({ summary, children, open }: { summary: ReactNode; children: ReactNode; open?: boolean }) {
  return (
    <details className="keel-details" open={open}>
      {/* The arrow is ours, beside the summary in a row: the browser's marker is an inline box of its
          own, left alone on a line when the summary after it wraps (390 px). */}
      <summary className="keel-summary">
        {/* Drawn, not a text glyph: ▸ sits above the middle of its line box, so it read higher than the name. */}
        <span className="keel-summary-arrow" aria-hidden>
          <svg viewBox="0 0 16 16" width="12" height="12">
            <path d="M6 3.5 10.5 8 6 12.5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </span>
        <span className="keel-summary-text">{summary}</span>
      </summary>
      <Stack gap={6} mt={6}>
        {children}
      </Stack>
    </details>
  );
}

function ToolView({ part }: { part: ToolPart }) {
  const state = part.state;
  const input = state.input as Record<string, unknown>;
  const time = 'time' in state ? (state.time as { start?: number; end?: number }) : undefined;
  const took = duration(time?.start, time?.end);
  const title = 'title' in state && typeof state.title === 'string' ? state.title : undefined;
  const editDiff =
    part.tool === 'edit' && typeof input.oldString === 'string' && typeof input.newString === 'string'
      ? {
          file: typeof input.filePath === 'string' ? input.filePath : 'file',
          before: input.oldString,
          after: input.newString,
        }
      : undefined;
  return (
    <Paper withBorder p="xs" radius="md" data-part="tool" data-status={state.status}>
      <Details
        open={state.status === 'running' || state.status === 'error'}
        summary={
          <Group gap="xs" wrap="wrap" component="span">
            <Text span fw={600} ff="monospace" size="sm">
              {part.tool}
            </Text>
            <Badge size="sm" variant="filled" color={STATUS_COLOR[state.status] ?? 'gray.7'}>
              {state.status}
            </Badge>
            {title && (
              <Text span size="sm" className="keel-muted">
                {title}
              </Text>
            )}
            {took && (
              <Text span size="xs" className="keel-muted">
                {took}
              </Text>
            )}
          </Group>
        }
      >
        {editDiff ? (
          <DiffView {...editDiff} />
        ) : (
          <pre className="keel-pre" aria-label="Input">
            {json(input)}
          </pre>
        )}
        {state.status === 'completed' && (
          <pre className="keel-pre" aria-label="Output">
            {state.output}
          </pre>
        )}
        {state.status === 'error' && (
          <Text c="red" size="sm">
            {state.error}
          </Text>
        )}
      </Details>
    </Paper>
  );
}

/** One part of a message, for every part type of the session surface; memoized on the part (updates replace it). */
const PartView = memo(function PartView({ part }: { part: Part }) {
  switch (part.type) {
    case 'text':
      if (part.synthetic || part.ignored) return null;
      return <Markdown text={part.text} />;
    case 'reasoning':
      return (
        <Box data-part="reasoning" className="keel-muted" fs="italic">
          <Details
            summary={
              <Text span size="sm">
                Reasoning
              </Text>
            }
          >
            <Markdown text={part.text} />
          </Details>
        </Box>
      );
    case 'tool':
      return <ToolView part={part} />;
    case 'file':
      return (
        <Group gap="xs" data-part="file">
          <Badge variant="outline">file</Badge>
          <Text size="sm" ff="monospace">
            {part.filename ?? part.url}
          </Text>
          <Text size="xs" className="keel-muted">
            {part.mime}
          </Text>
        </Group>
      );
    case 'patch':
      return (
        <Group gap="xs" data-part="patch">
          <Badge variant="filled" color="grape.8">
            changed
          </Badge>
          {part.files.map((f) => (
            <Text key={f} size="sm" ff="monospace">
              {f}
            </Text>
          ))}
        </Group>
      );
    case 'compaction':
      return (
        <Text size="sm" className="keel-muted" ta="center" data-part="compaction" role="separator">
          — conversation compacted{part.auto ? ' automatically' : ''} —
        </Text>
      );
    case 'retry':
      return (
        <Text size="sm" c="orange" data-part="retry">
          Retry {part.attempt}: {part.error.data.message}
        </Text>
      );
    case 'agent':
      return (
        <Text size="sm" data-part="agent">
          Agent <code>{part.name}</code>
        </Text>
      );
    case 'subtask':
      return (
        <Text size="sm" data-part="subtask">
          Subtask ({part.agent}): {part.description}
        </Text>
      );
    default:
      return null;
  }
});

function ErrorView({ error }: { error: NonNullable<AssistantMessage['error']> }) {
  const data = error.data as { message?: unknown };
  return (
    <Text c="red" size="sm" data-part="error">
      {error.name}
      {typeof data.message === 'string' ? `: ${data.message}` : ''}
    </Text>
  );
}

/** A message with its parts; `actions` (console only) adds buttons under it. */
export function MessageView({ entry, actions }: { entry: MessageEntry; actions?: ReactNode }) {
  const { info, parts } = entry;
  const user = info.role === 'user';
  return (
    <Paper
      className="keel-message"
      p="sm"
      radius="md"
      withBorder={user}
      bg={user ? 'var(--mantine-color-default-hover)' : undefined}
      data-message={info.id}
      data-role={info.role}
    >
      <Group justify="space-between" mb={4} wrap="nowrap">
        <Text size="xs" fw={700} className="keel-muted" tt="uppercase">
          {user ? 'You' : `Assistant · ${info.modelID}`}
        </Text>
        {actions}
      </Group>
      <Stack gap="xs">
        {parts.map((part) => (
          <PartView key={part.id} part={part} />
        ))}
        {info.role === 'assistant' && info.error && <ErrorView error={info.error} />}
      </Stack>
    </Paper>
  );
}
