import { useState } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { signIn } from '../api/client';

export function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [username, setUsername] = useState('opencode');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit() {
    setBusy(true);
    setError(null);
    const answer = await signIn(username, password);
    setBusy(false);
    if (answer === 'ok') return onLoggedIn();
    if (typeof answer === 'object')
      setError(`Too many failed sign-ins from this address: try again in ${answer.retryAfter} s.`);
    else setError(answer === 'wrong' ? 'Wrong username or password.' : 'Keel cannot be reached.');
  }

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="lg" w="100%" maw={380}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <Stack>
            <Title order={1} size="h3">
              Keel Console
            </Title>
            <TextInput
              label="Username"
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
              required
            />
            <PasswordInput
              label="Password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={error}
              required
              autoFocus
            />
            {error === 'Keel cannot be reached.' && <Alert color="red">{error}</Alert>}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
