import { useEffect, useState } from 'react';
import { Center, Loader } from '@mantine/core';
import { Navigate, Route, Routes } from 'react-router-dom';
import { clearCredentials, probeAuth } from './api/client';
import { LoginPage } from './share/LoginPage';
import { Shell } from './share/Shell';
import { DashboardPage } from './routing/DashboardPage';
import { useEventStream } from './share/useEventStream';

type AuthState = 'probing' | 'login' | 'in';

export function App() {
  const [auth, setAuth] = useState<AuthState>('probing');

  useEffect(() => {
    void probeAuth(true).then((answer) => setAuth(answer === 'unauthorized' ? 'login' : 'in'));
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
      onLogout={() => {
        clearCredentials();
        setAuth('login');
      }}
    />
  );
}

function Authenticated({ onLogout }: { onLogout: () => void }) {
  useEventStream();
  return (
    <Shell onLogout={onLogout}>
      <Routes>
        <Route path="/" element={<Navigate to="/routing" replace />} />
        <Route path="/routing" element={<DashboardPage />} />
        <Route path="*" element={<Navigate to="/routing" replace />} />
      </Routes>
    </Shell>
  );
}
