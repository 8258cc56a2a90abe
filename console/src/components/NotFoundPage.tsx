import { Button, Code, Stack, Text, Title } from '@mantine/core';
import { Link, useLocation } from 'react-router-dom';

/** A console address that names no page: what was asked for, and the way back. */
export function NotFoundPage() {
  const location = useLocation();
  return (
    <Stack gap="sm" align="flex-start" maw={560}>
      <Title order={1} size="h3">
        Page not found
      </Title>
      <Text>
        The console has no page at{' '}
        <Code style={{ overflowWrap: 'anywhere' }}>/ui{location.pathname}</Code>. The link may be old, or the
        address mistyped.
      </Text>
      <Button component={Link} to="/">
        Go to the overview
      </Button>
    </Stack>
  );
}
