import type { ReactNode } from 'react';
import {
  ActionIcon,
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  Kbd,
  NavLink,
  Text,
  Title,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { ROUTING_NAVIGATION } from '../routing/routes';
import { CommandPalette } from './CommandPalette';
import { HomeIcon, MemoryIcon, RoutingIcon, SearchIcon, SessionsIcon } from './icons';
import './shell.css';

interface NavGroup {
  surface: string;
  icon: () => ReactNode;
  /** Paths under this prefix belong to the surface (the header shows which one is open). */
  prefix: string;
  items: { label: string; to: string }[];
}

// The console's parts, grouped by surface, in navigation order.
const NAVIGATION: NavGroup[] = [
  { surface: 'Overview', icon: HomeIcon, prefix: '/overview', items: [{ label: 'Overview', to: '/' }] },
  {
    surface: 'Sessions',
    icon: SessionsIcon,
    prefix: '/sessions',
    items: [{ label: 'Sessions', to: '/sessions' }],
  },
  {
    surface: 'Memory',
    icon: MemoryIcon,
    prefix: '/memory',
    items: [
      { label: 'Documents', to: '/memory/documents' },
      { label: 'Search', to: '/memory/search' },
      { label: 'Memories', to: '/memory/memories' },
      { label: 'Profiles', to: '/memory/profiles' },
      { label: 'Pipeline', to: '/memory/pipeline' },
      { label: 'API keys', to: '/keys' },
    ],
  },
  {
    surface: 'Routing',
    icon: RoutingIcon,
    prefix: '/routing',
    items: [
      { label: 'Routing dashboard', to: '/routing' },
      { label: 'Resources', to: '/routing/resources' },
      ...ROUTING_NAVIGATION,
      { label: 'Plugin Hub', to: '/routing/plugins' },
    ],
  },
];
const PAGES = NAVIGATION.flatMap((group) =>
  group.items.map((item) => ({
    label: item.label === group.surface ? item.label : `${group.surface}: ${item.label}`,
    to: item.to,
  })),
);

function isActive(to: string, pathname: string): boolean {
  if (to === '/' || to === '/routing') return pathname === to;
  return pathname === to || pathname.startsWith(`${to}/`);
}

export function Shell({ children, onLogout }: { children: ReactNode; onLogout?: () => void }) {
  const [opened, { toggle, close }] = useDisclosure();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const location = useLocation();
  // A page listed under a surface belongs to it even outside its prefix (API keys under Memory).
  const current =
    NAVIGATION.find(
      (g) =>
        location.pathname.startsWith(g.prefix) ||
        g.items.some((item) => item.to !== '/' && location.pathname.startsWith(item.to)),
    ) ?? NAVIGATION[0];

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
            <Badge
              variant="light"
              size="lg"
              radius="sm"
              leftSection={<current.icon />}
              visibleFrom="xs"
              data-surface={current.surface}
            >
              <span className="keel-visually-hidden">Surface: </span>
              {current.surface}
            </Badge>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Button
              variant="default"
              size="xs"
              leftSection={<SearchIcon />}
              onClick={() => window.dispatchEvent(new Event('keel-open-palette'))}
              title="Go to a page, session, resource, middleware or document, or run a command (Ctrl+K)"
            >
              <Text span size="xs" visibleFrom="sm" mr={6}>
                Go to…
              </Text>
              <Kbd size="xs">Ctrl K</Kbd>
            </Button>
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
      <AppShell.Navbar p="xs" aria-label="Main" style={{ overflowY: 'auto' }}>
        {NAVIGATION.map((group) =>
          group.items.length === 1 ? (
            <NavLink
              key={group.surface}
              component={RouterLink}
              to={group.items[0].to}
              label={group.items[0].label}
              leftSection={<group.icon />}
              active={isActive(group.items[0].to, location.pathname)}
              onClick={close}
            />
          ) : (
            <div key={group.surface} role="group" aria-label={group.surface}>
              <Group
                gap={8}
                px={12}
                pt="sm"
                pb={4}
                wrap="nowrap"
                className="keel-nav-heading"
                data-current={group === current || undefined}
              >
                <group.icon />
                <Text size="xs" fw={700} tt="uppercase">
                  {group.surface}
                </Text>
              </Group>
              {group.items.map((item) => (
                <NavLink
                  key={item.to}
                  component={RouterLink}
                  to={item.to}
                  label={item.label}
                  pl={38}
                  py={6}
                  active={isActive(item.to, location.pathname)}
                  onClick={close}
                />
              ))}
            </div>
          ),
        )}
      </AppShell.Navbar>
      <CommandPalette pages={PAGES} />
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
