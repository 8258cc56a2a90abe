import type { ReactNode } from 'react';
import { Paper, Stack, Text } from '@mantine/core';

/** What an empty list says: its title, what goes in it (when there is nothing yet), and what to do next. */
export function EmptyState({
  title,
  children,
  action,
}: {
  title: ReactNode;
  children?: ReactNode;
  action: ReactNode;
}) {
  return (
    <Paper withBorder p="xl" ta="center">
      <Stack align="center" gap="sm">
        <Text fw={600}>{title}</Text>
        {children && (
          <Text size="sm" c="dimmed" maw={480}>
            {children}
          </Text>
        )}
        {action}
      </Stack>
    </Paper>
  );
}
