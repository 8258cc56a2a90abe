import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { Link, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { resizeTerminal, useCloseTerminal, useCreateTerminal, useTerminals } from './api/terminals';

/** Terminals of a project directory on the PTY WebSocket (/ui/sessions/terminal?directory=…). */
export default function TerminalPage() {
  const [params] = useSearchParams();
  const directory = params.get('directory') ?? '';
  const terminals = useTerminals(directory);
  const [selected, setSelected] = useState<string>();
  const create = useCreateTerminal(directory, { onSuccess: (pty) => setSelected(pty.id) });
  const close = useCloseTerminal(directory, { onSuccess: () => setSelected(undefined) });
  const current = selected ?? terminals.data?.[0]?.id;

  return (
    <Stack gap="md">
      <Anchor component={Link} to={`/sessions?directory=${encodeURIComponent(directory)}`} size="sm">
        ← Sessions
      </Anchor>
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h3">
          Terminals
        </Title>
        <Button onClick={() => create.mutate()} loading={create.isPending}>
          New terminal
        </Button>
      </Group>
      <Text size="sm" className="keel-muted">
        {directory}
      </Text>
      {(terminals.error ?? create.error ?? close.error) && (
        <Alert color="red">{errorMessage(terminals.error ?? create.error ?? close.error)}</Alert>
      )}
      {terminals.data?.length === 0 && (
        <Text className="keel-muted">
          No terminal open. New terminal starts a shell in this project; it keeps running when you leave the
          page.
        </Text>
      )}
      <Group gap="xs" wrap="wrap">
        {(terminals.data ?? []).map((pty) => (
          <Button
            key={pty.id}
            size="xs"
            variant={pty.id === current ? 'filled' : 'default'}
            onClick={() => setSelected(pty.id)}
          >
            {pty.title}
          </Button>
        ))}
      </Group>
      {current && (
        <>
          <TerminalView key={current} id={current} directory={directory} />
          <Group>
            <Button color="red.9" variant="filled" size="xs" onClick={() => close.mutate(current)}>
              Close terminal
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}

function TerminalView({ id, directory }: { id: string; directory: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [connection, setConnection] = useState(0);
  const [state, setState] = useState<'connecting' | 'open' | 'closed'>('connecting');

  useEffect(() => {
    const term = new Terminal({ fontSize: 13, convertEol: false, cursorBlink: true });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host.current!);
    const query = new URLSearchParams({ directory });
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(
      `${scheme}://${window.location.host}/pty/${encodeURIComponent(id)}/connect?${query}`,
    );
    let size = '';
    const resize = () => {
      fit.fit();
      const next = `${term.rows}x${term.cols}`;
      if (next === size) return;
      size = next;
      resizeTerminal(directory, id, { rows: term.rows, cols: term.cols });
    };
    socket.onopen = () => {
      setState('open');
      resize();
      term.focus();
    };
    socket.onmessage = (event) => {
      if (typeof event.data === 'string') term.write(event.data);
    };
    socket.onclose = () => setState('closed');
    const typed = term.onData((data) => socket.readyState === WebSocket.OPEN && socket.send(data));
    const observer = new ResizeObserver(() => resize());
    observer.observe(host.current!);
    return () => {
      observer.disconnect();
      typed.dispose();
      socket.onclose = null;
      socket.close();
      term.dispose();
    };
  }, [id, directory, connection]);

  return (
    <Stack gap="xs">
      {state === 'closed' && (
        <Alert color="yellow" title="Disconnected">
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              setState('connecting');
              setConnection((n) => n + 1);
            }}
          >
            Reconnect
          </Button>
        </Alert>
      )}
      <Paper withBorder radius="md" p={4} bg="#000">
        <div ref={host} style={{ height: 360 }} aria-label="Terminal" role="application" />
      </Paper>
    </Stack>
  );
}
