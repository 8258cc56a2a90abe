import { Fragment, type ReactNode } from 'react';
import {
  Alert,
  Button,
  Code,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  Stack,
  Switch,
  Tabs,
  Text,
  Title,
} from '@mantine/core';
import { ApiError } from '../api/client';
import { curlCommand, memoryErrorText, sdkCommand } from './memoryText';
import type { Exchange } from './SearchPage';

type NumberField = { value: number | string; onChange: (value: number | string) => void };

/** A set of on/off request fields, shown as one switch each under an optional heading. */
interface SwitchSet {
  label?: string;
  flags: Record<string, boolean>;
  setFlags: (flags: Record<string, boolean>) => void;
}

/** A panel's own flag object (its state and setter) as a set of switches. */
export function switchSet<T extends Record<string, boolean>>(
  flags: T,
  setFlags: (flags: T) => void,
  label?: string,
): SwitchSet {
  // The switches only ever flip the object's own keys, so the result has T's shape.
  return { label, flags, setFlags: (next) => setFlags(next as T) };
}

/**
 * The controls both search panels share: how many results (1 to 100), the score thresholds (0, everything,
 * to 1) in one row that wraps, then the request's on/off fields.
 */
export function SearchControls({
  limit,
  thresholds,
  switches,
}: {
  limit: NumberField;
  thresholds: (NumberField & { label: string })[];
  switches: SwitchSet[];
}) {
  return (
    <>
      <Group grow wrap="wrap">
        <NumberInput label="Limit" min={1} max={100} {...limit} />
        {thresholds.map(({ label, ...field }) => (
          <NumberInput key={label} label={label} min={0} max={1} step={0.05} decimalScale={2} {...field} />
        ))}
      </Group>
      {switches.map(({ label, flags, setFlags }, i) => (
        <Fragment key={label ?? i}>
          {label && (
            <Text size="sm" fw={500}>
              {label}
            </Text>
          )}
          <Group gap="md" wrap="wrap">
            {Object.entries(flags).map(([name, value]) => (
              <Switch
                key={name}
                label={name}
                size="xs"
                checked={value}
                onChange={(e) => setFlags({ ...flags, [name]: e.currentTarget.checked })}
              />
            ))}
          </Group>
        </Fragment>
      ))}
    </>
  );
}

export function ResultCount({ exchange, count }: { exchange: Exchange | null; count: number }) {
  if (!exchange) return null;
  if (exchange.status !== 200)
    return <Alert color="red">{memoryErrorText(new ApiError(exchange.response))}</Alert>;
  return (
    <Text size="sm" aria-live="polite">
      {count} result{count === 1 ? '' : 's'} in {exchange.ms} ms
    </Text>
  );
}

export function Score({ value }: { value: number }) {
  return (
    <Code aria-label={`score ${value.toFixed(3)}`} style={{ whiteSpace: 'nowrap' }}>
      {value.toFixed(3)}
    </Code>
  );
}

/** The query's words marked in the matched text. */
export function Highlighted({ text, q }: { text: string; q: string }): ReactNode {
  const words = q
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu)
    ?.filter((w) => w.length > 1);
  if (!words?.length) return text;
  const pattern = new RegExp(
    `(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
    'giu',
  );
  return text
    .split(pattern)
    .map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : <Fragment key={i}>{part}</Fragment>));
}

/** A search's panel: its title and Search button (for a query), its fields, then the raw exchange. */
export function Panel(props: {
  title: string;
  search: { exchange: Exchange | null; busy: boolean; run: () => void };
  q: string;
  path: string;
  sdk: 'search.documents' | 'search';
  children: ReactNode;
}) {
  const { exchange, busy, run } = props.search;
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {props.title}
          </Title>
          <Button size="xs" onClick={run} loading={busy} disabled={!props.q.trim()}>
            Search
          </Button>
        </Group>
        {props.children}
        {exchange && (
          <Tabs defaultValue="curl">
            <Tabs.List>
              <Tabs.Tab value="curl">curl</Tabs.Tab>
              <Tabs.Tab value="sdk">SDK</Tabs.Tab>
              <Tabs.Tab value="response">Response ({exchange.status})</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="curl" pt="xs">
              <Raw text={curlCommand(props.path, exchange.request)} label="curl command" />
            </Tabs.Panel>
            <Tabs.Panel value="sdk" pt="xs">
              <Raw text={sdkCommand(props.sdk, exchange.request)} label="SDK code" />
            </Tabs.Panel>
            <Tabs.Panel value="response" pt="xs">
              <Raw text={JSON.stringify(exchange.response, null, 2)} label="response" />
            </Tabs.Panel>
          </Tabs>
        )}
      </Stack>
    </Paper>
  );
}

function Raw({ text, label }: { text: string; label: string }) {
  return (
    <Stack gap={4}>
      <CopyButton value={text}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="light" onClick={copy} w="fit-content">
            {copied ? 'Copied' : `Copy ${label}`}
          </Button>
        )}
      </CopyButton>
      <Code block mah={300} style={{ overflow: 'auto' }}>
        {text}
      </Code>
    </Stack>
  );
}
