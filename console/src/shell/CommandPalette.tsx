import { useEffect, useMemo, useState } from 'react';
import { Badge, Group, Modal, ScrollArea, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { matchPath, useLocation, useNavigate } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { middlewaresQuery } from '../routing/api/definitions';
import { resourcesQuery } from '../routing/api/resources';
import { abortSession, runCommand, shareSession } from '../sessions/api/sessions';
import { SearchIcon } from './icons';
import { paletteCommandsQuery, paletteDocumentsQuery, paletteSessionsQuery } from './api/palette';

interface PaletteItem {
  kind: 'Page' | 'Session' | 'Resource' | 'Middleware' | 'Document' | 'Command';
  label: string;
  hint?: string;
  run: () => void;
}

/**
 * Ctrl/Cmd+K: go to any page, session, resource, middleware or document by name, or run a command
 * in the session on screen. What it searches is fetched when it opens (and cached like every query).
 */
export function CommandPalette({ pages }: { pages: { label: string; to: string }[] }) {
  const [opened, setOpened] = useState(false);
  const [search, setSearch] = useState('');
  const [active, setActive] = useState(0);
  const navigate = useNavigate();
  const location = useLocation();
  useHotkeys([['mod+K', () => setOpened((o) => !o)]], []);
  useEffect(() => {
    const open = () => setOpened(true);
    window.addEventListener('keel-open-palette', open);
    return () => window.removeEventListener('keel-open-palette', open);
  }, []);

  const onSession = matchPath('/sessions/:sessionID', location.pathname);
  const sessionID = onSession?.params.sessionID;
  const directory = new URLSearchParams(location.search).get('directory') ?? '';
  const inSession = !!sessionID && !['terminal', 'files'].includes(sessionID) && !!directory;

  const sessions = useQuery({ ...paletteSessionsQuery(), enabled: opened });
  const resources = useQuery({ ...resourcesQuery(), enabled: opened });
  const middlewares = useQuery({ ...middlewaresQuery(), enabled: opened });
  const documents = useQuery({ ...paletteDocumentsQuery(), enabled: opened });
  const commands = useQuery({ ...paletteCommandsQuery(directory), enabled: opened && inSession });

  const close = () => {
    setOpened(false);
    setSearch('');
    setActive(0);
  };
  const items: PaletteItem[] = useMemo(() => {
    const out: PaletteItem[] = [];
    const add = (kind: PaletteItem['kind'], label: string, run: () => void, hint?: string) =>
      out.push({ kind, label, hint, run });
    const link = (kind: PaletteItem['kind'], label: string, to: string, hint?: string) =>
      add(kind, label, () => void navigate(to), hint);
    for (const p of pages) link('Page', p.label, p.to);
    if (inSession) {
      const act = (label: string, call: () => Promise<unknown>) => () =>
        void call().then(
          () => notifications.show({ color: 'teal', message: `${label}: done` }),
          (error: unknown) =>
            notifications.show({ color: 'red', title: label, message: errorMessage(error) }),
        );
      const [project, session] = [encodeURIComponent(directory), encodeURIComponent(sessionID)];
      const share = act('Share', () => shareSession(directory, sessionID));
      const abort = act('Abort', () => abortSession(directory, sessionID));
      add('Command', 'Share this session', share);
      add('Command', 'Abort this session', abort);
      link('Command', 'Files of this project', `/sessions/files?directory=${project}&session=${session}`);
      link('Command', 'Terminal in this project', `/sessions/terminal?directory=${project}`);
      for (const c of commands.data ?? []) {
        const run = act(`/${c.name}`, () => runCommand(directory, sessionID, c.name, ''));
        add('Command', `/${c.name}`, run, c.description ?? undefined);
      }
    }
    for (const s of sessions.data ?? [])
      link('Session', s.title, `/sessions/${s.id}?directory=${encodeURIComponent(s.directory)}`, s.directory);
    for (const r of resources.data ?? [])
      link('Resource', r.host, `/routing/resources/${encodeURIComponent(r.id)}`);
    for (const m of middlewares.data ?? [])
      link('Middleware', m.name, `/routing/middlewares/${encodeURIComponent(m.id)}`, m.type);
    for (const d of documents.data ?? [])
      link('Document', d.title || d.id, `/memory/documents/${encodeURIComponent(d.id)}`);
    return out;
  }, [
    pages,
    inSession,
    directory,
    sessionID,
    commands.data,
    sessions.data,
    resources.data,
    middlewares.data,
    documents.data,
    navigate,
  ]);

  const needle = search.trim().toLowerCase();
  const shown = (
    needle
      ? items.filter((i) => `${i.kind} ${i.label} ${i.hint ?? ''}`.toLowerCase().includes(needle))
      : items
  ).slice(0, 50);
  const choose = (item: PaletteItem | undefined) => {
    if (!item) return;
    close();
    item.run();
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      withCloseButton={false}
      size="lg"
      yOffset="10vh"
      padding="xs"
      title="Command palette"
      // The title names the dialog (aria-labelledby) without taking a row above the search box.
      styles={{ header: { display: 'none' } }}
    >
      <TextInput
        aria-label="Go to or run"
        placeholder="Go to a page, session, resource, middleware, document… or run a command"
        leftSection={<SearchIcon />}
        value={search}
        data-autofocus
        onChange={(e) => {
          setSearch(e.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setActive((a) => Math.min(a + 1, shown.length - 1));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setActive((a) => Math.max(a - 1, 0));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            choose(shown[active]);
          }
        }}
      />
      {/* Scrolls down only: Mantine's autosize content is at least as wide as its longest row, which on a
          phone pushed every result past the screen's edge instead of truncating it. */}
      <ScrollArea.Autosize mah="55vh" mt="xs" type="auto" scrollbars="y" styles={{ content: { minWidth: 0 } }}>
        <div role="listbox" aria-label="Results">
          {shown.length === 0 && (
            <Text size="sm" className="keel-muted" p="xs">
              Nothing matches “{search}”.
            </Text>
          )}
          {shown.map((item, i) => (
            <UnstyledButton
              key={`${item.kind}:${item.label}:${item.hint ?? ''}:${i}`}
              role="option"
              aria-selected={i === active}
              data-active={i === active || undefined}
              className="keel-row-button"
              onMouseEnter={() => setActive(i)}
              onClick={() => choose(item)}
            >
              <Group gap="xs" wrap="nowrap">
                <Badge size="xs" variant="light" color="gray" w={84} style={{ flexShrink: 0 }}>
                  {item.kind}
                </Badge>
                <Text size="sm" truncate>
                  {item.label}
                </Text>
                {item.hint && (
                  <Text size="xs" className="keel-muted" truncate ml="auto">
                    {item.hint}
                  </Text>
                )}
              </Group>
            </UnstyledButton>
          ))}
        </div>
      </ScrollArea.Autosize>
    </Modal>
  );
}
