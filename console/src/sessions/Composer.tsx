import { memo, useDeferredValue, useRef, useState, type KeyboardEvent } from 'react';
import { Button, Group, Paper, Select, Stack, Text, Textarea, UnstyledButton } from '@mantine/core';
import { errorMessage } from '../api/client';
import { useFileMatches } from './api/files';
import { useAgents, useCommands, useProviders } from './api/instance';
import { useSendPrompt } from './api/sessionActions';

/** The `@word` being typed just before the caret, if any. */
function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const match = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return match ? { start: caret - match[2].length - 1, query: match[2] } : undefined;
}

/** `file://` URL of `path` (relative to the instance directory), each segment percent-encoded. */
function fileUrl(directory: string, path: string): string {
  const absolute = `${directory.replace(/\/+$/, '')}/${path}`;
  return `file://${absolute.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * File parts for the mentioned files still present in the text, as the opencode TUI sends them: a
 * `file://` URL, the path as filename, and the `@path` span of the text as the source.
 */
function mentionParts(text: string, directory: string, mentioned: string[]) {
  return [...new Set(mentioned)].flatMap((path) => {
    const value = `@${path}`;
    const start = text.indexOf(value);
    if (start < 0) return [];
    return [
      {
        type: 'file' as const,
        mime: 'text/plain',
        filename: path,
        url: fileUrl(directory, path),
        source: { type: 'file' as const, path, text: { value, start, end: start + value.length } },
      },
    ];
  });
}

/**
 * The prompt box: text with `@` file mentions (from the instance's `/find/file`), agent and model
 * pickers, and a command picker (a chosen command runs with the text as its arguments).
 */
export const Composer = memo(function Composer({
  directory,
  sessionID,
  busy,
}: {
  directory: string;
  sessionID: string;
  busy: boolean;
}) {
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const [mentioned, setMentioned] = useState<string[]>([]);
  const [highlight, setHighlight] = useState(0);
  const [dismissed, setDismissed] = useState<number>();
  const [agent, setAgent] = useState<string | null>(null);
  const [model, setModel] = useState<string | null>(null);
  const [command, setCommand] = useState<string | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const agents = useAgents(directory);
  const providers = useProviders(directory);
  const commands = useCommands(directory);
  const mention = mentionAt(text, caret);
  const open = mention && mention.start !== dismissed ? mention : undefined;
  const files = useFileMatches(directory, useDeferredValue(open?.query));
  const options = open ? (files.data ?? []).filter((f) => !f.endsWith('/')) : [];

  const agentOptions = (agents.data ?? []).filter((a) => a.mode !== 'subagent').map((a) => a.name);
  const modelOptions = (providers.data?.providers ?? []).flatMap((p) =>
    Object.values(p.models).map((m) => ({ value: `${p.id}/${m.id}`, label: `${p.name} · ${m.name}` })),
  );
  const commandOptions = (commands.data ?? []).map((c) => ({
    value: c.name,
    label: c.description ? `/${c.name} · ${c.description}` : `/${c.name}`,
  }));
  const ready = command !== null || text.trim() !== '';

  const send = useSendPrompt(directory, sessionID, {
    // To the end of the conversation, where the reply will appear (MessageList follows it from there).
    onMutate: () => window.scrollTo({ top: document.documentElement.scrollHeight }),
    onSuccess: () => {
      setText('');
      setMentioned([]);
      setCommand(null);
    },
  });
  const submit = () =>
    send.mutate({ text, command, agent, model, files: mentionParts(text, directory, mentioned) });

  const choose = (path: string) => {
    if (!open) return;
    const end = open.start + 1 + open.query.length;
    const inserted = `@${path} `;
    const next = text.slice(0, open.start) + inserted + text.slice(end);
    setText(next);
    setMentioned((m) => [...m, path]);
    const at = open.start + inserted.length;
    setCaret(at);
    requestAnimationFrame(() => {
      input.current?.focus();
      input.current?.setSelectionRange(at, at);
    });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (options.length > 0) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setHighlight((h) => (h + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        choose(options[Math.min(highlight, options.length - 1)]);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(open?.start);
        return;
      }
    }
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && ready) submit();
  };

  return (
    <Paper
      withBorder
      p="sm"
      radius="md"
      component="form"
      aria-label="Prompt"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) submit();
      }}
    >
      <Stack gap="xs">
        <Group gap="xs" align="end" wrap="nowrap">
          <Textarea
            style={{ flex: 1, minWidth: 0 }}
            ref={input}
            label={command ? `Arguments of /${command}` : 'Prompt'}
            placeholder={
              command ? 'Arguments (optional)' : 'Ask or instruct… @ mentions a file (Ctrl+Enter to send)'
            }
            autosize
            minRows={2}
            maxRows={12}
            value={text}
            aria-autocomplete="list"
            aria-controls={options.length > 0 ? 'keel-mention-options' : undefined}
            onChange={(e) => {
              setText(e.currentTarget.value);
              setCaret(e.currentTarget.selectionStart);
              setHighlight(0);
            }}
            onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
            onKeyDown={onKeyDown}
          />
          <Button type="submit" loading={send.isPending} disabled={!ready}>
            {command ? `Run /${command}` : busy ? 'Queue' : 'Send'}
          </Button>
        </Group>
        {options.length > 0 && (
          <Paper
            withBorder
            radius="sm"
            p={4}
            role="listbox"
            id="keel-mention-options"
            aria-label="Files to mention"
          >
            {options.map((path, i) => (
              <UnstyledButton
                key={path}
                role="option"
                aria-selected={i === highlight}
                display="block"
                w="100%"
                px="xs"
                py={2}
                ff="monospace"
                fz="sm"
                bg={i === highlight ? 'var(--mantine-color-default-hover)' : undefined}
                style={{ borderRadius: 4, overflowWrap: 'anywhere' }}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => choose(path)}
              >
                {path}
              </UnstyledButton>
            ))}
          </Paper>
        )}
        {/* One row at every width (the box is pinned to the bottom of the window: it stays short). */}
        <Group gap="xs" wrap="nowrap" align="end">
          <Select
            label="Command"
            placeholder="None"
            data={commandOptions}
            value={command}
            onChange={setCommand}
            clearable
            searchable
            size="xs"
            style={{ flex: '1 1 200px', minWidth: 0 }}
            maw={220}
          />
          <Select
            label="Agent"
            placeholder="Default"
            data={agentOptions}
            value={agent}
            onChange={setAgent}
            clearable
            size="xs"
            style={{ flex: '1 1 160px', minWidth: 0 }}
            maw={180}
          />
          <Select
            label="Model"
            placeholder="Default"
            data={modelOptions}
            value={model}
            onChange={setModel}
            clearable
            searchable
            size="xs"
            style={{ flex: '1 1 260px', minWidth: 0 }}
            maw={280}
          />
        </Group>
        {send.error && <Text c="red">{errorMessage(send.error)}</Text>}
      </Stack>
    </Paper>
  );
});
