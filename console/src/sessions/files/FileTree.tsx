import { useState } from 'react';
import { Badge, Group, Loader, Text, UnstyledButton } from '@mantine/core';
import { errorMessage } from '../../api/client';
import { useFileList } from '../api/files';
import { STATUS_COLOR, type FileListProps } from './marks';

/** One directory's entries (read when shown), directories first; `path` '' is the project's root. */
export function TreeLevel({
  directory,
  path,
  depth,
  ...list
}: FileListProps & { directory: string; path: string; depth: number }) {
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
              {...list}
              directory={directory}
              path={node.path}
              name={node.name}
              ignored={node.ignored}
              depth={depth}
            />
          ) : (
            <FileRow {...list} path={node.path} name={node.name} depth={depth} />
          )}
        </li>
      ))}
    </ul>
  );
}

function DirectoryRow({
  name,
  ignored,
  ...level
}: FileListProps & { directory: string; path: string; name: string; ignored: boolean; depth: number }) {
  const { path, depth, marks, open } = level;
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
          <Text size="sm" truncate className={ignored ? 'keel-muted' : undefined}>
            {name}/
          </Text>
          {changed && <span className="keel-change-dot" aria-hidden />}
        </Group>
      </UnstyledButton>
      {expanded && <TreeLevel {...level} depth={depth + 1} />}
    </>
  );
}

export function FileRow({
  path,
  name,
  depth,
  marks,
  open,
  onOpen,
}: FileListProps & { path: string; name: string; depth: number }) {
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
