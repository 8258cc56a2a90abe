import { Suspense, useEffect, useState } from 'react';
import { Center, Loader } from '@mantine/core';
import { Navigate, Route, Routes } from 'react-router-dom';
import { clearCredentials, probeAuth } from './api/client';
import { LoginPage } from './share/LoginPage';
import { Shell } from './share/Shell';
import { DashboardPage } from './routing/DashboardPage';
import { ResourcesPage } from './routing/ResourcesPage';
import { routingRoutes } from './routing/routes';
import { PluginHubRoute } from './routing/PluginHubRoute';
import { useEventStream } from './share/useEventStream';
import { openedPagesLoaded, preloadable, whenIdle } from './share/preloadable';

// Fetched at once when the tab is opened on them; else Memory is fetched once the console is idle,
// so the Memory entry opens without waiting for its code.
const MemoryRoutes = preloadable(() => import('./memory/MemoryRoutes'), /^\/memory(\/|$)/);
const SessionsRoutes = preloadable(() => import('./sessions/SessionsPage'), /^\/sessions(\/|$)/);

// 'open': the server has no password (loopback only), so there is nothing to sign out of.
type AuthState = 'probing' | 'login' | 'in' | 'open';

export function App() {
  const [auth, setAuth] = useState<AuthState>('probing');

  useEffect(() => {
    void Promise.all([probeAuth(true), openedPagesLoaded()]).then(([answer]) =>
      setAuth(answer === 'unauthorized' ? 'login' : answer === 'ok' ? 'in' : 'open'),
    );
  }, []);

  if (auth === 'probing')
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (auth === 'login') return <LoginPage onLoggedIn={() => setAuth('in')} />;
  return (
    <Authenticated
      onLogout={
        auth === 'in'
          ? () => {
              clearCredentials();
              setAuth('login');
            }
          : undefined
      }
    />
  );
}

function Authenticated({ onLogout }: { onLogout?: () => void }) {
  useEventStream();
  useEffect(() => whenIdle(() => void MemoryRoutes.preload()), []);
  return (
    <Shell onLogout={onLogout}>
      <Routes>
        <Route path="/" element={<Navigate to="/routing" replace />} />
        <Route path="/routing" element={<DashboardPage />} />
        <Route path="/routing/resources" element={<ResourcesPage />} />
        {routingRoutes}
        <Route
          path="/memory/*"
          element={
            <Suspense fallback={<Loader aria-label="Loading" />}>
              <MemoryRoutes />
            </Suspense>
          }
        />
        <Route path="/routing/plugins" element={<PluginHubRoute />} />
        <Route
          path="/sessions/*"
          element={
            <Suspense fallback={<Loader aria-label="Loading" />}>
              <SessionsRoutes />
            </Suspense>
          }
        />
        <Route path="*" element={<Navigate to="/routing" replace />} />
      </Routes>
    </Shell>
  );
}
