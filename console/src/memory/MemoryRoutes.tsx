import { Suspense, useEffect, useState } from 'react';
import { Alert, Button, Loader, Paper, PasswordInput, Stack, Tabs, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import { NotFoundPage } from '../components/NotFoundPage';
import { openedAt, preloadable, whenIdle } from '../lib/preloadable';
import DocumentsPage from './DocumentsPage';
import { clearApiKey, storeApiKey } from '../api/memoryApiKey';
import { probeMemory, probeMemoryEarly } from './api/documents';

// The default page is part of this module: fetched with it, in parallel, and drawn without a Suspense
// fallback as soon as the API key probe answers.
const DocumentPage = preloadable(() => import('./DocumentPage'), /^\/memory\/documents\/./);
const SearchPage = preloadable(() => import('./SearchPage'), /^\/memory\/search/);
const MemoriesPage = preloadable(() => import('./MemoriesPage'), /^\/memory\/memories/);
const ProfilesPage = preloadable(() => import('./ProfilesPage'), /^\/memory\/profiles/);
const PipelinePage = preloadable(() => import('./PipelinePage'), /^\/memory\/pipeline/);
const SettingsPage = preloadable(() => import('./SettingsPage'), /^\/memory\/settings/);
const NEXT_PAGES = [DocumentPage, SearchPage, MemoriesPage, ProfilesPage, PipelinePage, SettingsPage];

// Opened on a memory page: the API key probe (the documents page's first request) leaves now, beside the
// sign-in check, not after it.
if (openedAt(/^\/memory(\/|$)/)) probeMemoryEarly();

/** The last probe's answer in this tab: coming back to Memory shows the pages at once and probes behind them. */
let lastAccess: 'key' | 'ok' | undefined;

const TABS = [
  { value: 'documents', label: 'Documents' },
  { value: 'search', label: 'Search' },
  { value: 'memories', label: 'Memories' },
  { value: 'profiles', label: 'Profiles' },
  { value: 'pipeline', label: 'Pipeline' },
  { value: 'settings', label: 'Settings' },
];

/** The memory part of the console: asks for an API key when the memory surface wants one, then its pages. */
export default function MemoryRoutes() {
  const queryClient = useQueryClient();
  const [access, setAccess] = useState<'probing' | 'key' | 'ok'>(lastAccess ?? 'probing');
  useEffect(() => {
    void probeMemory(queryClient).then((answer) => {
      lastAccess = answer === 'ok' ? 'ok' : 'key';
      setAccess(lastAccess);
    });
  }, [queryClient]);
  // The other pages (a document, the playground, the tabs) are fetched a moment later, once idle: not
  // while the documents page is being fetched and drawn. Once here, they open without a loading placeholder.
  useEffect(() => {
    const timer = window.setTimeout(
      () => whenIdle(() => void Promise.all(NEXT_PAGES.map((next) => next.preload()))),
      1500,
    );
    return () => window.clearTimeout(timer);
  }, []);
  if (access === 'probing') return <Loader aria-label="Loading" />;
  if (access === 'key')
    return (
      <ApiKeyForm
        onAccepted={() => {
          lastAccess = 'ok';
          setAccess('ok');
        }}
      />
    );
  return (
    <Stack gap="md">
      <MemoryTabs />
      <Suspense fallback={<Loader aria-label="Loading" />}>
        <Routes>
          <Route index element={<Navigate to="documents" replace />} />
          <Route path="documents" element={<DocumentsPage />} />
          <Route path="documents/:id" element={<DocumentPage />} />
          <Route path="search" element={<SearchPage />} />
          <Route path="memories" element={<MemoriesPage />} />
          <Route path="profiles" element={<ProfilesPage />} />
          <Route path="pipeline" element={<PipelinePage />} />
          <Route path="settings" element={<SettingsPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
    </Stack>
  );
}

function MemoryTabs() {
  const location = useLocation();
  const navigate = useNavigate();
  const current = location.pathname.split('/')[2] ?? 'documents';
  return (
    <Tabs value={current} onChange={(value) => value && void navigate(`/memory/${value}`)}>
      {/* Wraps on a narrow screen: every page stays in sight (none scrolled out of view). */}
      <Tabs.List aria-label="Memory pages">
        {TABS.map((tab) => (
          <Tabs.Tab key={tab.value} value={tab.value}>
            {tab.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  );
}

function ApiKeyForm({ onAccepted }: { onAccepted: () => void }) {
  const queryClient = useQueryClient();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit() {
    setBusy(true);
    setError(null);
    storeApiKey(key.trim());
    const answer = await probeMemory(queryClient).catch(() => 'unreachable' as const);
    setBusy(false);
    if (answer === 'ok') return onAccepted();
    clearApiKey();
    setError(answer === 'unauthorized' ? 'This API key is not accepted.' : 'Keel cannot be reached.');
  }

  return (
    <Paper withBorder p="lg" maw={460}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Memory
          </Title>
          <Text size="sm">
            The memory API is protected by API keys (KEEL_API_KEYS). Enter one of them: it is kept in this tab
            only and sent only to this server.
          </Text>
          <PasswordInput
            label="API key"
            value={key}
            onChange={(e) => setKey(e.currentTarget.value)}
            error={error}
            required
            autoFocus
          />
          {error === 'Keel cannot be reached.' && <Alert color="red">{error}</Alert>}
          <Button type="submit" loading={busy}>
            Use this key
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
