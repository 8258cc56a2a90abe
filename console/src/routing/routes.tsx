import { Suspense, type ReactNode } from 'react';
import { Loader } from '@mantine/core';
import { Route } from 'react-router-dom';
import { preloadable } from '../lib/preloadable';

// Loaded on first visit (or at once when the tab is opened on them): the first page stays small (the
// editor alone brings CodeMirror, ajv and Traefik's schema).
const ResourceDetailPage = preloadable(
  async () => ({ default: (await import('./ResourceDetailPage')).ResourceDetailPage }),
  /^\/routing\/resources\/./,
);
const DefinitionsPage = preloadable(
  async () => ({ default: (await import('./DefinitionsPage')).DefinitionsPage }),
  /^\/routing\/(middlewares|services)\/?$/,
);
const DefinitionEditPage = preloadable(
  async () => ({ default: (await import('./DefinitionEditPage')).DefinitionEditPage }),
  /^\/routing\/(middlewares|services)\/./,
);
const DataSourcesPage = preloadable(
  async () => ({ default: (await import('./DataSourcesPage')).DataSourcesPage }),
  /^\/routing\/datasources/,
);
const TraefikConfigPage = preloadable(
  async () => ({ default: (await import('./TraefikConfigPage')).TraefikConfigPage }),
  /^\/routing\/traefik-config/,
);

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loader aria-label="Loading" />}>{children}</Suspense>;
}

/** The routing manager's pages beyond the dashboard and the resources list. */
export const routingRoutes = (
  <>
    <Route
      path="/routing/resources/:id"
      element={
        <Page>
          <ResourceDetailPage />
        </Page>
      }
    />
    <Route
      path="/routing/middlewares"
      element={
        <Page>
          <DefinitionsPage key="middlewares" kind="middlewares" />
        </Page>
      }
    />
    <Route
      path="/routing/middlewares/:id"
      element={
        <Page>
          <DefinitionEditPage key="middlewares" kind="middlewares" />
        </Page>
      }
    />
    <Route
      path="/routing/services"
      element={
        <Page>
          <DefinitionsPage key="services" kind="services" />
        </Page>
      }
    />
    <Route
      path="/routing/services/:id"
      element={
        <Page>
          <DefinitionEditPage key="services" kind="services" />
        </Page>
      }
    />
    <Route
      path="/routing/datasources"
      element={
        <Page>
          <DataSourcesPage />
        </Page>
      }
    />
    <Route
      path="/routing/traefik-config"
      element={
        <Page>
          <TraefikConfigPage />
        </Page>
      }
    />
  </>
);

/** Navigation entries for those pages. */
export const ROUTING_NAVIGATION = [
  { label: 'Middlewares', to: '/routing/middlewares' },
  { label: 'Services', to: '/routing/services' },
  { label: 'Data sources', to: '/routing/datasources' },
  { label: 'Traefik configuration', to: '/routing/traefik-config' },
];
