import type { ReactNode } from 'react';
import {
  ActionIcon,
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  Title,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { ROUTING_NAVIGATION } from '../routing/routes';

// The console's parts in navigation order.
const NAVIGATION: { label: string; to: string }[] = [
  { label: 'Routing dashboard', to: '/routing' },
  { label: 'Resources', to: '/routing/resources' },
  ...ROUTING_NAVIGATION,
  { label: 'Plugin Hub', to: '/routing/plugins' },
  { label: 'Sessions', to: '/sessions' },
  { label: 'Memory', to: '/memory' },
];

export function Shell({ children, onLogout }: { children: ReactNode; onLogout?: () => void }) {
  const [opened, { toggle, close }] = useDisclosure();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const location = useLocation();

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Title order={2} size="h4">
              Keel
            </Title>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <ActionIcon
              variant="default"
              size="lg"
              aria-label={scheme === 'dark' ? 'Use light theme' : 'Use dark theme'}
              onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}
            >
              {scheme === 'dark' ? '☀' : '☾'}
            </ActionIcon>
            {onLogout && (
              <Button variant="subtle" size="xs" onClick={onLogout}>
                Sign out
              </Button>
            )}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        {NAVIGATION.map((item) => (
          <NavLink
            key={item.to}
            component={RouterLink}
            to={item.to}
            label={item.label}
            active={
              location.pathname === item.to ||
              (item.to !== '/routing' && location.pathname.startsWith(`${item.to}/`))
            }
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
