import { useEffect, useState } from 'react';
import { Alert, Badge, Group, Loader, Paper, SegmentedControl, Text } from '@mantine/core';
import { errorMessage } from '../../api/client';
import { DiffView } from '../../conversation/DiffView';
import { useFileContent } from '../api/files';
import { STATUS_COLOR, type Change, type SessionChange } from './marks';

/** A file's content highlighted or, when the picked session changed it, its diff. */
export function FileViewer({
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
