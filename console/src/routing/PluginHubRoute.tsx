import { suspended } from '../components/suspended';
import { preloadable } from '../lib/preloadable';

// The Plugin Hub is loaded on first visit (or at once when the tab is opened on it), so it adds nothing
// to the first page's JavaScript.
const PluginHubPage = preloadable(() => import('./PluginHubPage'), /^\/routing\/plugins/);

export function PluginHubRoute() {
  return suspended(<PluginHubPage />);
}
