import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  Button,
  Fieldset,
  Group,
  Loader,
  NumberInput,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  TagsInput,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useSaveSettings, useSettings, type Settings, type SettingsUpdate as Update } from './api/settings';
import { memoryErrorText } from './memoryText';

const CONNECTORS = [
  { key: 'github', label: 'GitHub' },
  { key: 'googleDrive', label: 'Google Drive' },
  { key: 'notion', label: 'Notion' },
  { key: 'onedrive', label: 'OneDrive' },
] as const;

interface Form {
  chunkSize: number | '';
  shouldLLMFilter: boolean;
  filterPrompt: string;
  includeItems: string[];
  excludeItems: string[];
  connectors: Record<string, { clientId: string; customKey: boolean; secret: string }>;
}

const asList = (value: string | string[] | null | undefined): string[] =>
  value == null ? [] : Array.isArray(value) ? value : [value];

function fromSettings(s: Settings): Form {
  const record = s as Record<string, unknown>;
  return {
    chunkSize: s.chunkSize ?? '',
    shouldLLMFilter: !!s.shouldLLMFilter,
    filterPrompt: typeof s.filterPrompt === 'string' ? s.filterPrompt : '',
    includeItems: asList(s.includeItems),
    excludeItems: asList(s.excludeItems),
    connectors: Object.fromEntries(
      CONNECTORS.map(({ key }) => [
        key,
        {
          clientId: (record[`${key}ClientId`] as string | null) ?? '',
          customKey: !!record[`${key}CustomKeyEnabled`],
          secret: '',
        },
      ]),
    ),
  };
}

/** Only the fields that differ from what the server has (PATCH changes only what is sent). */
function changes(saved: Form, form: Form): Update {
  const update: Record<string, unknown> = {};
  if (form.chunkSize !== saved.chunkSize) update.chunkSize = form.chunkSize === '' ? null : form.chunkSize;
  if (form.shouldLLMFilter !== saved.shouldLLMFilter) update.shouldLLMFilter = form.shouldLLMFilter;
  if (form.filterPrompt !== saved.filterPrompt) update.filterPrompt = form.filterPrompt || null;
  for (const field of ['includeItems', 'excludeItems'] as const)
    if (JSON.stringify(form[field]) !== JSON.stringify(saved[field]))
      update[field] = form[field].length ? form[field] : null;
  for (const { key } of CONNECTORS) {
    const before = saved.connectors[key];
    const after = form.connectors[key];
    if (after.clientId !== before.clientId) update[`${key}ClientId`] = after.clientId || null;
    if (after.customKey !== before.customKey) update[`${key}CustomKeyEnabled`] = after.customKey;
    if (after.secret) update[`${key}ClientSecret`] = after.secret;
  }
  return update;
}

/** The memory surface's organisation settings (GET and PATCH /v3/settings). */
export default function SettingsPage() {
  const settings = useSettings();
  const saved = useMemo(() => (settings.data ? fromSettings(settings.data) : null), [settings.data]);
  const [form, setForm] = useState<Form | null>(null);
  useEffect(() => setForm(saved), [saved]);
  const update = form && saved ? changes(saved, form) : {};
  const changed = Object.keys(update).length > 0;
  const save = useSaveSettings();

  if (settings.isPending) return <Loader aria-label="Loading" />;
  if (settings.error) return <Alert color="red">{memoryErrorText(settings.error)}</Alert>;
  if (!form) return null;
  const set = (change: Partial<Form>) => setForm({ ...form, ...change });
  const setConnector = (key: string, change: Partial<Form['connectors'][string]>) =>
    set({ connectors: { ...form.connectors, [key]: { ...form.connectors[key], ...change } } });

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (changed) save.mutate(update);
      }}
    >
      <Stack>
        <Title order={1} size="h2">
          Settings
        </Title>
        <Text size="sm">
          How documents are split and filtered (the memory API's <code>/v3/settings</code>).
        </Text>
        <Fieldset legend="Ingestion">
          <Stack>
            <NumberInput
              label="Chunk size"
              description="Upper bound of a chunk in characters (100 to 20,000); empty: the default, 1,000"
              value={form.chunkSize}
              onChange={(value) => set({ chunkSize: value === '' ? '' : Number(value) })}
              min={100}
              max={20000}
              w={{ base: '100%', sm: 320 }}
            />
            <TagsInput
              label="Include"
              description="Name patterns (gitignore-style) a file name or URL path must match; empty: everything"
              value={form.includeItems}
              onChange={(value) => set({ includeItems: value })}
              placeholder="e.g. *.md, then Enter"
            />
            <TagsInput
              label="Exclude"
              description="Name patterns left out"
              value={form.excludeItems}
              onChange={(value) => set({ excludeItems: value })}
              placeholder="e.g. drafts/**, then Enter"
            />
            <Switch
              label="Filter content with the model"
              checked={form.shouldLLMFilter}
              onChange={(e) => set({ shouldLLMFilter: e.currentTarget.checked })}
            />
            {form.shouldLLMFilter && (
              <Textarea
                label="Filter prompt"
                description="What the model keeps"
                autosize
                minRows={2}
                value={form.filterPrompt}
                onChange={(e) => set({ filterPrompt: e.currentTarget.value })}
              />
            )}
          </Stack>
        </Fieldset>
        <Fieldset legend="Connectors (your own OAuth apps)">
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {CONNECTORS.map(({ key, label }) => (
              <Stack key={key} gap="xs">
                <Text fw={600}>{label}</Text>
                <TextInput
                  label={`${label} client ID`}
                  value={form.connectors[key].clientId}
                  onChange={(e) => setConnector(key, { clientId: e.currentTarget.value })}
                />
                <PasswordInput
                  label={`${label} client secret`}
                  description="Never shown again; leave empty to keep the stored one"
                  value={form.connectors[key].secret}
                  onChange={(e) => setConnector(key, { secret: e.currentTarget.value })}
                />
                <Switch
                  label={`Use this ${label} app`}
                  checked={form.connectors[key].customKey}
                  onChange={(e) => setConnector(key, { customKey: e.currentTarget.checked })}
                />
              </Stack>
            ))}
          </SimpleGrid>
        </Fieldset>
        <Group>
          <Button type="submit" disabled={!changed} loading={save.isPending}>
            Save settings
          </Button>
          <Button variant="default" disabled={!changed} onClick={() => setForm(saved)}>
            Discard changes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
