import { memo, useEffect, useEffectEvent, useRef, useState } from 'react';
import {
  Alert,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { ApiError } from '../api/client';
import { addDocument, uploadDocumentFile } from './api/documents';
import { memoryErrorText } from './memoryText';

type Mode = 'text' | 'url' | 'files';
interface Upload {
  name: string;
  state: 'sending' | 'added' | 'refused';
  message?: string;
  id?: string;
}

/**
 * Text, a URL or files (several at once, dropped or picked), each answered with the API's own message.
 * `dropped`: files dropped on the page (this panel's drop zone included), added as soon as they arrive.
 */
export const AddDocuments = memo(function AddDocuments({
  onAdded,
  dropped,
}: {
  onAdded: () => void;
  dropped?: File[];
}) {
  const [mode, setMode] = useState<Mode>('text');
  const [content, setContent] = useState('');
  const [containerTag, setContainerTag] = useState('');
  const [metadata, setMetadata] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  function parsedMetadata(): Record<string, string | number | boolean | string[]> | undefined | null {
    if (!metadata.trim()) return undefined;
    try {
      return JSON.parse(metadata) as Record<string, string | number | boolean | string[]>;
    } catch {
      setError('metadata: must be a JSON object');
      return null;
    }
  }

  async function addContent() {
    setError(null);
    const meta = parsedMetadata();
    if (meta === null) return;
    setBusy(true);
    const answer = await addDocument({
      content,
      ...(containerTag ? { containerTag } : {}),
      ...(meta ? { metadata: meta } : {}),
    });
    setBusy(false);
    if (answer.error !== undefined) return setError(memoryErrorText(new ApiError(answer.error)));
    setContent('');
    onAdded();
  }

  async function addFiles(files: File[]) {
    setError(null);
    const meta = parsedMetadata();
    if (meta === null || files.length === 0) return;
    setUploads((u) =>
      [...files.map((f) => ({ name: f.name, state: 'sending' as const })), ...u].slice(0, 50),
    );
    await Promise.all(
      files.map(async (file) => {
        const form = new FormData();
        form.append('file', file);
        if (containerTag) form.append('containerTag', containerTag);
        if (meta) form.append('metadata', JSON.stringify(meta));
        let result: Upload;
        try {
          const { ok, answer } = await uploadDocumentFile(form);
          result = ok
            ? { name: file.name, state: 'added', id: answer.id }
            : { name: file.name, state: 'refused', message: memoryErrorText(answer) };
        } catch (e) {
          result = { name: file.name, state: 'refused', message: (e as Error).message };
        }
        setUploads((u) => u.map((x) => (x.name === file.name && x.state === 'sending' ? result : x)));
      }),
    );
    onAdded();
  }

  // Each dropped set once (a ref, so React's development double effects do not send it twice).
  const added = useRef<File[] | undefined>(undefined);
  const addDropped = useEffectEvent((files: File[]) => {
    setMode('files');
    void addFiles(files);
  });
  useEffect(() => {
    if (!dropped || dropped === added.current) return;
    added.current = dropped;
    addDropped(dropped);
  }, [dropped]);

  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h4">
            Add documents
          </Title>
          <SegmentedControl
            aria-label="What to add"
            value={mode}
            onChange={(value) => {
              setMode(value);
              setError(null);
            }}
            data={[
              { label: 'Text', value: 'text' },
              { label: 'URL', value: 'url' },
              { label: 'Files', value: 'files' },
            ]}
          />
        </Group>
        {mode === 'text' && (
          <Textarea
            label="Content"
            placeholder="Text, markdown, HTML or JSON (up to 1 MB)"
            // A fixed height the person can drag: autosize measures the text area (a forced layout of
            // the whole page) on every render, a large share of the list's first render.
            rows={3}
            resize="vertical"
            value={content}
            onChange={(e) => setContent(e.currentTarget.value)}
          />
        )}
        {mode === 'url' && (
          <TextInput
            label="URL"
            placeholder="https://example.com/article"
            value={content}
            onChange={(e) => setContent(e.currentTarget.value)}
          />
        )}
        {mode === 'files' && (
          <div
            role="button"
            tabIndex={0}
            aria-label="Drop files here or press to choose files"
            onClick={() => fileInput.current?.click()}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') fileInput.current?.click();
            }}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            // The drop itself goes on to the page, which adds dropped files wherever they land.
            onDrop={() => setDragging(false)}
            style={{
              border: '2px dashed var(--mantine-color-default-border)',
              borderColor: dragging ? 'var(--mantine-primary-color-filled)' : undefined,
              borderRadius: 8,
              padding: 24,
              textAlign: 'center',
              cursor: 'pointer',
            }}
          >
            <Text size="sm">Drop files here, or press to choose (text, markdown, HTML, JSON, PDF, DOCX)</Text>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              data-testid="file-input"
              onChange={(e) => {
                void addFiles([...(e.currentTarget.files ?? [])]);
                e.currentTarget.value = '';
              }}
            />
          </div>
        )}
        <Group align="start" wrap="wrap" gap="sm">
          <TextInput
            label="Container tag"
            placeholder="sm_project_default"
            value={containerTag}
            onChange={(e) => setContainerTag(e.currentTarget.value)}
            style={{ flex: '1 1 180px' }}
          />
          <TextInput
            label="Metadata (JSON)"
            placeholder='{"source": "console"}'
            value={metadata}
            onChange={(e) => setMetadata(e.currentTarget.value)}
            style={{ flex: '2 1 240px' }}
          />
        </Group>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {mode !== 'files' && (
          <Group>
            <Button onClick={() => void addContent()} loading={busy}>
              Add {mode === 'url' ? 'URL' : 'text'}
            </Button>
          </Group>
        )}
        {mode === 'files' && uploads.length > 0 && (
          <Stack gap={4} aria-label="Uploads">
            {uploads.map((u, i) => (
              <Text key={`${u.name}-${i}`} size="sm" c={u.state === 'refused' ? 'red.8' : undefined}>
                {u.name}: {u.state === 'sending' ? 'sending…' : u.state === 'added' ? 'added' : u.message}
              </Text>
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
});
