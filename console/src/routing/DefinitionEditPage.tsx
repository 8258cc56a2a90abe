import { useMemo, useState } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Group,
  List,
  Loader,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  useComputedColorScheme,
} from '@mantine/core';
import CodeMirror, { EditorView, Prec } from '@uiw/react-codemirror';
import { json } from '@codemirror/lang-json';
import { yaml as yamlLanguage } from '@codemirror/lang-yaml';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { errorMessage } from '../api/client';
import { errorsUnder, fieldErrors } from './fieldErrors';
import { useDefinition, useSaveDefinition } from './api/definition';
import { Outcome } from './resource/SettingForm';
import { MIDDLEWARE_TEMPLATES, SERVICE_TEMPLATES } from './templates';
import { configIssues, MIDDLEWARE_TYPES, SERVICE_TYPES, type Issue, type Kind } from './traefikValidation';

type Format = 'json' | 'yaml';

// One Dark's token colours reach AA contrast (4.5:1) only on a darker background than its own.
const darkerBackground = Prec.highest(
  EditorView.theme(
    {
      '&': { backgroundColor: '#16181d' },
      '.cm-gutters': { backgroundColor: '#16181d' },
      '.cm-activeLine': { backgroundColor: '#1c1f25' },
      '.cm-activeLineGutter': { backgroundColor: '#1c1f25' },
    },
    { dark: true },
  ),
);

function render(config: unknown, format: Format): string {
  return format === 'json' ? JSON.stringify(config, null, 2) : stringifyYaml(config);
}

/** The text as a value, or the parser's complaint with where it is. */
function parseText(
  text: string,
  format: Format,
): { value?: unknown; error?: { message: string; at: number } } {
  try {
    return { value: format === 'json' ? (JSON.parse(text) as unknown) : (parseYaml(text) as unknown) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message)?.[1];
    const yamlPos = (error as { pos?: [number, number] }).pos?.[0];
    return { error: { message, at: Number(position ?? yamlPos ?? 0) } };
  }
}

/** Where a field's key is written, so the editor can underline it (the whole first line otherwise). */
function fieldRange(text: string, path: string): { from: number; to: number } {
  const key = path
    .split('.')
    .filter((p) => p !== 'config' && !/^\d+$/.test(p))
    .pop();
  const at = key
    ? text.search(new RegExp(`["']?${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*:`))
    : -1;
  if (at >= 0) return { from: at, to: at + key!.length + 2 };
  return { from: 0, to: Math.max(0, Math.min(text.indexOf('\n') >>> 0, text.length)) };
}

export default function DefinitionEditPage({ kind }: { kind: Kind }) {
  const { id = 'new' } = useParams();
  const creating = id === 'new';
  const existing = useDefinition(kind, creating ? undefined : id);
  if (!creating && existing.isPending) return <Loader aria-label="Loading" />;
  if (!creating && existing.error) return <Alert color="red">{errorMessage(existing.error)}</Alert>;
  return <DefinitionForm kind={kind} id={creating ? undefined : id} initial={existing.data} />;
}

function DefinitionForm({
  kind,
  id,
  initial,
}: {
  kind: Kind;
  id?: string;
  initial?: { name: string; type: string; config: Record<string, unknown> };
}) {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const forResource = search.get('resource');
  const singular = kind === 'middlewares' ? 'middleware' : 'service';
  const templates = kind === 'middlewares' ? MIDDLEWARE_TEMPLATES : SERVICE_TEMPLATES;
  const firstTemplate = kind === 'middlewares' ? 'forwardAuth' : 'loadBalancer';
  const [name, setName] = useState(initial?.name ?? '');
  const [template, setTemplate] = useState<string>(initial ? '' : firstTemplate);
  const [type, setType] = useState(initial?.type ?? templates[firstTemplate].type);
  const [format, setFormat] = useState<Format>('yaml');
  const [text, setText] = useState(() => render(initial?.config ?? templates[firstTemplate].config, 'yaml'));
  const scheme = useComputedColorScheme('light');

  const parsed = useMemo(() => parseText(text, format), [text, format]);
  const issues: Issue[] = useMemo(
    () =>
      parsed.error
        ? [{ path: 'config', message: `${format.toUpperCase()} syntax: ${parsed.error.message}` }]
        : configIssues(kind, type, parsed.value),
    [parsed, kind, type, format],
  );

  // Rebuilt when the format or type changes, so the linter checks against the right definition.
  const themed = useMemo(
    () => [
      format === 'json' ? json() : yamlLanguage(),
      EditorView.contentAttributes.of({ 'aria-labelledby': 'config-label' }),
      // The editor grows with its text instead of scrolling inside the page (no unreachable scroll region).
      EditorView.lineWrapping,
      lintGutter(),
      linter(
        (view: EditorView): Diagnostic[] => {
          const doc = view.state.doc.toString();
          const current = parseText(doc, format);
          if (current.error) {
            const at = Math.min(current.error.at, doc.length);
            const to = Math.min(at + 1, doc.length);
            return [{ from: at, to, severity: 'error', message: current.error.message }];
          }
          return configIssues(kind, type, current.value).map((issue) => ({
            ...fieldRange(doc, issue.path),
            severity: 'error' as const,
            message: `${issue.path}: ${issue.message}`,
          }));
        },
        { delay: 150 },
      ),
      ...(scheme === 'dark' ? [darkerBackground] : []),
    ],
    [format, kind, type, scheme],
  );

  const save = useSaveDefinition(kind, id, forResource);
  const serverErrors = fieldErrors(save.error);
  const configErrors = errorsUnder(serverErrors, 'config');
  // What the server said beyond the problems the editor already lists (not the same lines twice).
  const listed = new Set(issues.map((issue) => `${issue.path}: ${issue.message}`));
  const serverOnly = configErrors.filter((message) => !listed.has(message));
  // A new definition can always be created; an existing one is saved once something changed.
  const changed =
    !initial ||
    name !== initial.name ||
    type !== initial.type ||
    parsed.error !== undefined ||
    JSON.stringify(parsed.value) !== JSON.stringify(initial.config);

  function chooseTemplate(key: string | null) {
    if (!key) return;
    setTemplate(key);
    setType(templates[key].type);
    setText(render(templates[key].config, format));
  }

  function switchFormat(next: string) {
    const target = next as Format;
    if (!parsed.error) setText(render(parsed.value, target));
    setFormat(target);
  }

  const back = forResource ? `/routing/resources/${encodeURIComponent(forResource)}` : `/routing/${kind}`;
  const send = () =>
    save.mutate(
      { name, type, config: parsed.value as Record<string, unknown> },
      { onSuccess: () => void navigate(back) },
    );

  return (
    <Stack>
      <Anchor component={Link} to={back}>
        ← {forResource ? 'Resource' : kind === 'middlewares' ? 'Middlewares' : 'Services'}
      </Anchor>
      <Title order={1} size="h2">
        {id ? `Edit ${singular}` : `New ${singular}`}
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          // Not while the editor flags the configuration ("Send anyway" forces it). The server has the
          // last word: its field-named 400 is shown even where the browser agreed.
          if (issues.length > 0 || !changed) return;
          send();
        }}
      >
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={serverErrors.name}
          />
          <Group align="start" wrap="wrap">
            {!id && (
              <Select
                label="Template"
                description="Replaces the configuration below"
                data={Object.keys(templates)}
                value={template}
                onChange={chooseTemplate}
                searchable
                allowDeselect={false}
                style={{ flex: '1 1 200px' }}
              />
            )}
            <Select
              label="Type"
              data={kind === 'middlewares' ? MIDDLEWARE_TYPES : SERVICE_TYPES}
              value={type}
              onChange={(value) => value && setType(value)}
              searchable
              allowDeselect={false}
              error={serverErrors.type}
              style={{ flex: '1 1 200px' }}
            />
          </Group>
          <Stack gap={4}>
            <Group justify="space-between">
              <Text fw={500} size="sm" id="config-label">
                Configuration (the body Traefik expects under <code>{type}</code>)
              </Text>
              <SegmentedControl
                aria-label="Editor format"
                size="xs"
                value={format}
                onChange={switchFormat}
                data={[
                  { label: 'YAML', value: 'yaml' },
                  { label: 'JSON', value: 'json' },
                ]}
              />
            </Group>
            <CodeMirror
              value={text}
              onChange={setText}
              extensions={themed}
              theme={scheme === 'dark' ? 'dark' : 'light'}
              minHeight="240px"
              aria-labelledby="config-label"
              basicSetup={{ foldGutter: false }}
              style={{ border: '1px solid var(--mantine-color-default-border)', fontSize: 14 }}
            />
            {issues.length > 0 ? (
              <Alert
                color="red"
                title="Not valid for Traefik"
                role="alert"
                aria-label="Configuration problems"
              >
                <List size="sm">
                  {issues.map((issue) => (
                    <List.Item key={`${issue.path}:${issue.message}`}>
                      <code>{issue.path}</code>: {issue.message}
                    </List.Item>
                  ))}
                </List>
              </Alert>
            ) : (
              <Text size="sm" c="var(--keel-color-ok)">
                Valid for Traefik v3.
              </Text>
            )}
            {configErrors.length > 0 && (
              <Alert color="red" title="The server refused the configuration" role="alert">
                {serverOnly.length === 0 ? (
                  <Text size="sm">For the problems listed above.</Text>
                ) : (
                  <List size="sm">
                    {serverOnly.map((message) => (
                      <List.Item key={message}>{message}</List.Item>
                    ))}
                  </List>
                )}
              </Alert>
            )}
          </Stack>
          <Group>
            <Button type="submit" loading={save.isPending} disabled={issues.length > 0 || !changed}>
              {id ? 'Save' : forResource ? 'Create and assign' : 'Create'}
            </Button>
            {issues.length > 0 && (
              <Button
                variant="subtle"
                color="red"
                loading={save.isPending}
                onClick={send}
                title="Send it anyway: the server checks it too and has the last word"
              >
                Send anyway
              </Button>
            )}
            <Button variant="default" component={Link} to={back}>
              Cancel
            </Button>
            <Outcome failed={serverErrors['']} />
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
