import { Route } from 'react-router-dom';
import { suspended } from '../components/suspended';
import { preloadable } from '../lib/preloadable';

// Loaded on first visit (or at once when the tab is opened on them): the first page stays small (the
// editor alone brings CodeMirror, ajv and Traefik's schema).
const ResourceDetailPage = preloadable(() => import('./ResourceDetailPage'), /^\/routing\/resources\/./);
const DefinitionsPage = preloadable(
  () => import('./DefinitionsPage'),
  /^\/routing\/(middlewares|services)\/?$/,
);
const DefinitionEditPage = preloadable(
  () => import('./DefinitionEditPage'),
  /^\/routing\/(middlewares|services)\/./,
);
const DataSourcesPage = preloadable(() => import('./DataSourcesPage'), /^\/routing\/datasources/);
const TraefikConfigPage = preloadable(() => import('./TraefikConfigPage'), /^\/routing\/traefik-config/);
const PluginHubPage = preloadable(() => import('./PluginHubPage'), /^\/routing\/plugins/);

/** The routing manager's pages beyond the dashboard and the resources list. */
export const routingRoutes = (
  <>
    <Route path="/routing/resources/:id" element={suspended(<ResourceDetailPage />)} />
    <Route
      path="/routing/middlewares"
      element={suspended(<DefinitionsPage key="middlewares" kind="middlewares" />)}
    />
    <Route
      path="/routing/middlewares/:id"
      element={suspended(<DefinitionEditPage key="middlewares" kind="middlewares" />)}
    />
    <Route path="/routing/services" element={suspended(<DefinitionsPage key="services" kind="services" />)} />
    <Route
      path="/routing/services/:id"
      element={suspended(<DefinitionEditPage key="services" kind="services" />)}
    />
    <Route path="/routing/datasources" element={suspended(<DataSourcesPage />)} />
    <Route path="/routing/traefik-config" element={suspended(<TraefikConfigPage />)} />
    <Route path="/routing/plugins" element={suspended(<PluginHubPage />)} />
  </>
);

/** Navigation entries for those pages. */
export const ROUTING_NAVIGATION = [
  { label: 'Middlewares', to: '/routing/middlewares' },
  { label: 'Services', to: '/routing/services' },
  { label: 'Data sources', to: '/routing/datasources' },
  { label: 'Traefik configuration', to: '/routing/traefik-config' },
];
