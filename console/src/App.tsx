import { useEffect, useState } from 'react';
import { Center, Loader } from '@mantine/core';
import { Route, Routes } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { authState, signedOutEvents, signOut } from './api/client';
import { prefetchOpenedSession } from './sessions/api/sessions';
import { LoginPage } from './shell/LoginPage';
import { Shell } from './shell/Shell';
import { DashboardPage } from './routing/DashboardPage';
import { OverviewPage } from './shell/OverviewPage';
import { NotFoundPage } from './components/NotFoundPage';
import { suspended } from './components/suspended';
import { ResourcesPage } from './routing/ResourcesPage';
import { routingRoutes } from './routing/routes';
import { useRoutingEvents } from './routing/api/routingEvents';
import { useEventStream } from './hooks/useEventStream';
import { openedPagesLoaded, preloadable, whenIdle } from './lib/preloadable';

// Fetched at once when the tab is opened on them; else Memory is fetched once the console is idle,
// so the Memory entry opens without waiting for its code.
const MemoryRoutes = preloadable(() => import('./memory/MemoryRoutes'), /^\/memory(\/|$)/);
const SessionsRoutes = preloadable(() => import('./sessions/SessionsPage'), /^\/sessions(\/|$)/);
const ApiKeysPage = preloadable(() => import('./organizations/ApiKeysPage'), /^\/keys(\/|$)/);

// 'open': the server has no password (loopback only), so there is nothing to sign out of.
type AuthState = 'probing' | 'login' | 'in' | 'open';

export function App() {
  const [auth, setAuth] = useState<AuthState>('probing');
  const queryClient = useQueryClient();

  useEffect(() => {
    const probe = authState().catch(() => ({ passwordRequired: true, signedIn: false }));
    // Signed in: an opened session's data is asked for while the page's code is still coming.
    void probe.then((answer) => {
      if (!answer.passwordRequired || answer.signedIn) prefetchOpenedSession(queryClient);
    });
    void Promise.all([probe, openedPagesLoaded()]).then(([answer]) =>
      setAuth(!answer.passwordRequired ? 'open' : answer.signedIn ? 'in' : 'login'),
    );
    // A request refused for want of credentials: the sign-in ended (expired, or signed out in another tab).
    const ended = () => setAuth((state) => (state === 'in' ? 'login' : state));
    signedOutEvents.addEventListener('signed-out', ended);
    return () => signedOutEvents.removeEventListener('signed-out', ended);
  }, []);

  if (auth === 'probing')
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (auth === 'login') return <LoginPage onLoggedIn={() => setAuth('in')} />;
  return (
    <Authenticated onLogout={auth === 'in' ? () => void signOut().then(() => setAuth('login')) : undefined} />
  );
}

function Authenticated({ onLogout }: { onLogout?: () => void }) {
  useEventStream();
  useRoutingEvents();
  useEffect(() => whenIdle(() => void MemoryRoutes.preload()), []);
  return (
    <Shell onLogout={onLogout}>
      <Routes>
        <Route path="/" element={<OverviewPage />} />
        <Route path="/routing" element={<DashboardPage />} />
        <Route path="/routing/resources" element={<ResourcesPage />} />
        {routingRoutes}
        <Route path="/memory/*" element={suspended(<MemoryRoutes />)} />
        <Route path="/keys" element={suspended(<ApiKeysPage />)} />
        <Route path="/sessions/*" element={suspended(<SessionsRoutes />)} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Shell>
  );
}
