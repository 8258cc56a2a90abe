import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Box,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { Link, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { DiffView } from '../conversation/DiffView';
import { useFileContent, useFileList, useFileStatus, useFoundFiles } from './api/files';
import { useSessionDiff, useSessionList } from './api/sessions';
import '../conversation/parts.css';

const STATUS_COLOR = { added: 'teal.9', deleted: 'red.9', modified: 'blue.8' } as const;
type Change = { path: string; added: number; removed: number; status: keyof typeof STATUS_COLOR };
type SessionChange = { file: string; before: string; after: string };

/** What the tree marks: git's changes (/file/status) and, when a session is picked, the session's own. */
interface Marks {
  git: Map<string, Change>;
  session: Map<string, SessionChange>;
}

/**
 * The project's files (/ui/sessions/files?directory=…[&session=…][&file=…]): a tree from the root
 * (`/file?path=`, each directory read when expanded), find by name, a file's content highlighted, the
 * files git reports changed marked in the tree, and a picked session's changes as a per-file diff.
 */
export function FilesPage() {
  const [params, setParams] = useSearchParams();
  const directory = params.get('directory') ?? '';
  const sessionID = params.get('session') ?? '';
  const open = params.get('file') ?? undefined;
  const [search, setSearch] = useState('');
  const query = useDeferredValue(search.trim());
  const set = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setParams(next, { replace: true });
  };

  const status = useFileStatus(directory);
  const sessions = useSessionList(directory);
  const sessionDiff = useSessionDiff(directory, sessionID);
  const found = useFoundFiles(directory, query);
  const marks: Marks = useMemo(
    () => ({
      git: new Map((status.data ?? []).map((f) => [f.path, f])),
      session: new Map((sessionDiff.data ?? []).map((d) => [d.file, d])),
    }),
    [status.data, sessionDiff.data],
  );
  const onOpen = (path: string) => set({ file: path });

  return (
    <Stack gap="md">
      <Anchor component={Link} to={`/sessions?directory=${encodeURIComponent(directory)}`} size="sm">
        ← Sessions
      </Anchor>
      <Group justify="space-between" align="end" wrap="wrap" gap="sm">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Title order={1} size="h3">
            Files
          </Title>
          <Text size="sm" className="keel-muted" style={{ overflowWrap: 'anywhere' }}>
            {directory}
          </Text>
        </Stack>
        <Select
          label="Changes of session"
          placeholder="None"
          clearable
          w={{ base: '100%', sm: 300 }}
          data={(sessions.data ?? []).map((s) => ({ value: s.id, label: s.title }))}
          value={sessionID || null}
          onChange={(value) => set({ session: value ?? undefined })}
        />
      </Group>
      {(status.error ?? sessionDiff.error) && (
        <Alert color="red">{errorMessage(status.error ?? sessionDiff.error)}</Alert>
      )}
      <div className="keel-files">
        <Paper withBorder p="xs" radius="md" className="keel-files-tree">
          <TextInput
            label="Find a file"
            placeholder="Name or part of a path"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            mb="xs"
          />
          {sessionID && marks.session.size > 0 && (
            <Stack gap={0} mb="xs" aria-label="Changed by the session" component="section">
              <Text size="xs" fw={600} className="keel-muted" px={8}>
                Changed by the session ({marks.session.size})
              </Text>
              {[...marks.session.keys()].map((file) => (
                <FileRow
                  key={file}
                  path={file}
                  name={file}
                  depth={0}
                  marks={marks}
                  open={open}
                  onOpen={onOpen}
                />
              ))}
            </Stack>
          )}
          {query !== '' ? (
            <Stack gap={0} component="ul" aria-label="Found files" className="keel-tree">
              {found.isLoading && <Loader size="sm" aria-label="Finding files" />}
              {found.error && <Alert color="red">{errorMessage(found.error)}</Alert>}
              {found.data?.length === 0 && (
                <Text size="sm" className="keel-muted" px={8}>
                  No file matches.
                </Text>
              )}
              {(found.data ?? []).map((path) => (
                <li key={path}>
                  <FileRow path={path} name={path} depth={0} marks={marks} open={open} onOpen={onOpen} />
                </li>
              ))}
            </Stack>
          ) : (
            <nav aria-label="File tree">
              <TreeLevel directory={directory} path="" depth={0} marks={marks} open={open} onOpen={onOpen} />
            </nav>
          )}
        </Paper>
        <Box style={{ minWidth: 0 }}>
          {open ? (
            <FileViewer
              key={open}
              directory={directory}
              path={open}
              change={marks.git.get(open)}
              sessionChange={marks.session.get(open)}
            />
          ) : (
            <Paper withBorder p="lg" radius="md">
              <Text className="keel-muted">
                Pick a file in the tree to read it
                {sessionID ? ', or one the session changed to see its diff' : ''}.
              </Text>
            </Paper>
          )}
        </Box>
      </div>
    </Stack>
  );
}

function TreeLevel({
  directory,
  path,
  depth,
  marks,
  open,
  onOpen,
}: {
  directory: string;
  path: string;
  depth: number;
  marks: Marks;
  open?: string;
  onOpen: (path: string) => void;
}) {
  const nodes = useFileList(directory, path);
  if (nodes.isLoading)
    return <Loader size="xs" ml={depth * 14 + 8} aria-label={`Loading ${path || 'files'}`} />;
  if (nodes.error)
    return (
      <Text size="sm" c="red" ml={depth * 14 + 8}>
        {errorMessage(nodes.error)}
      </Text>
    );
  const sorted = [...(nodes.data ?? [])].sort(
    (a, b) => Number(b.type === 'directory') - Number(a.type === 'directory') || a.name.localeCompare(b.name),
  );
  if (sorted.length === 0)
    return (
      <Text size="sm" className="keel-muted" ml={depth * 14 + 8}>
        {depth === 0 ? 'No file in this project yet: files the session writes show up here.' : 'Empty.'}
      </Text>
    );
  return (
    <ul className="keel-tree">
      {sorted.map((node) => (
        <li key={node.path}>
          {node.type === 'directory' ? (
            <DirectoryRow
              directory={directory}
              path={node.path}
              name={node.name}
              ignored={node.ignored}
              depth={depth}
              marks={marks}
              open={open}
              onOpen={onOpen}
            />
          ) : (
            <FileRow
              path={node.path}
              name={node.name}
              depth={depth}
              marks={marks}
              open={open}
              onOpen={onOpen}
            />
          )}
        </li>
      ))}
    </ul>
  );
}

function DirectoryRow(props: {
  directory: string;
  path: string;
  name: string;
  ignored: boolean;
  depth: number;
  marks: Marks;
  open?: string;
  onOpen: (path: string) => void;
}) {
  const { path, name, depth, marks, open } = props;
  // Opened by itself when the open file is inside it (a link to a file shows where it is).
  const [expanded, setExpanded] = useState(() => !!open?.startsWith(`${path}/`));
  const inside = (p: string) => p.startsWith(`${path}/`);
  const changed = [...marks.git.keys()].some(inside) || [...marks.session.keys()].some(inside);
  return (
    <>
      <UnstyledButton
        className="keel-row-button keel-tree-row"
        style={{ paddingLeft: depth * 14 + 8 }}
        onClick={() => setExpanded((e) => !e)}
        aria-expanded={expanded}
        aria-label={`${name}/${changed ? ' (contains changes)' : ''}`}
      >
        <Group gap={6} wrap="nowrap">
          <Text size="sm" aria-hidden w={12} className="keel-muted">
            {expanded ? '▾' : '▸'}
          </Text>
          <Text size="sm" truncate className={props.ignored ? 'keel-muted' : undefined}>
            {name}/
          </Text>
          {changed && <span className="keel-change-dot" aria-hidden />}
        </Group>
      </UnstyledButton>
      {expanded && <TreeLevel {...props} depth={depth + 1} />}
    </>
  );
}

function FileRow({
  path,
  name,
  depth,
  marks,
  open,
  onOpen,
}: {
  path: string;
  name: string;
  depth: number;
  marks: Marks;
  open?: string;
  onOpen: (path: string) => void;
}) {
  const change = marks.git.get(path);
  const bySession = marks.session.has(path);
  return (
    <UnstyledButton
      className="keel-row-button keel-tree-row"
      style={{ paddingLeft: depth * 14 + 26 }}
      onClick={() => onOpen(path)}
      aria-current={open === path ? 'page' : undefined}
      data-active={open === path || undefined}
    >
      <Group gap={6} wrap="nowrap">
        <Text size="sm" ff="monospace" truncate>
          {name}
        </Text>
        {change && (
          <Badge size="xs" variant="filled" color={STATUS_COLOR[change.status]} style={{ flexShrink: 0 }}>
            {change.status === 'modified' ? 'M' : change.status === 'added' ? 'A' : 'D'}
            <span className="keel-visually-hidden"> {change.status}</span>
          </Badge>
        )}
        {bySession && (
          <Badge size="xs" variant="outline" color="grape.8" style={{ flexShrink: 0 }}>
            session
          </Badge>
        )}
      </Group>
    </UnstyledButton>
  );
}

function FileViewer({
  directory,
  path,
  change,
  sessionChange,
}: {
  directory: string;
  path: string;
  change?: Change;
  sessionChange?: SessionChange;
}) {
  const [chosen, setView] = useState<'content' | 'diff'>();
  // The session's diff first when the file is one it changed, until the reader picks a view.
  const view = chosen ?? (sessionChange ? 'diff' : 'content');
  const content = useFileContent(directory, path);
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label={`File ${path}`}>
      <Group justify="space-between" wrap="wrap" gap="xs" mb="xs">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <Text fw={600} ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {path}
          </Text>
          {change && (
            <Badge size="sm" variant="filled" color={STATUS_COLOR[change.status]} style={{ flexShrink: 0 }}>
              {change.status} +{change.added} −{change.removed}
            </Badge>
          )}
        </Group>
        {sessionChange && (
          <SegmentedControl
            size="xs"
            value={view}
            onChange={(v) => setView(v)}
            data={[
              { value: 'diff', label: 'Session diff' },
              { value: 'content', label: 'Content' },
            ]}
          />
        )}
      </Group>
      {view === 'diff' && sessionChange ? (
        <DiffView file={path} before={sessionChange.before} after={sessionChange.after} />
      ) : (
        <>
          {content.isLoading && <Loader size="sm" aria-label="Loading file" />}
          {content.error && <Alert color="red">{errorMessage(content.error)}</Alert>}
          {content.data &&
            (content.data.encoding === 'base64' ? (
              <Text size="sm" className="keel-muted">
                Binary file{content.data.mimeType ? ` (${content.data.mimeType})` : ''}: not shown.
              </Text>
            ) : (
              <HighlightedCode code={content.data.content} path={path} />
            ))}
        </>
      )}
    </Paper>
  );
}

// highlight.js (its common languages) is fetched with the first file opened, not with the console.
let highlighter: Promise<typeof import('highlight.js').default> | undefined;
const HIGHLIGHT_LIMIT = 300_000;

function HighlightedCode({ code, path }: { code: string; path: string }) {
  const [html, setHtml] = useState<string>();
  useEffect(() => {
    if (code.length > HIGHLIGHT_LIMIT) return;
    let live = true;
    highlighter ??= import('highlight.js/lib/common').then((m) => m.default);
    void highlighter.then((hljs) => {
      const name = path.split('/').pop() ?? '';
      const extension = name.includes('.') ? name.split('.').pop()!.toLowerCase() : name.toLowerCase();
      const language = hljs.getLanguage(extension)
        ? extension
        : ['txt', 'log'].includes(extension)
          ? 'plaintext'
          : undefined;
      const result = language
        ? hljs.highlight(code, { language, ignoreIllegals: true })
        : hljs.highlightAuto(code);
      if (live) setHtml(result.value);
    });
    return () => {
      live = false;
    };
  }, [code, path]);
  return (
    <pre className="keel-pre keel-code" aria-label={`Content of ${path}`}>
      {/* highlight.js escapes the text it wraps in its spans: the markup is its own, never the file's. */}
      {html === undefined ? (
        <code>{code}</code>
      ) : (
        <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </pre>
  );
}
