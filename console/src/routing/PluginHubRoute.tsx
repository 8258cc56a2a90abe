import { lazy, Suspense } from 'react';
import { Loader } from '@mantine/core';

// The Plugin Hub is loaded on first visit, so it adds nothing to the first page's JavaScript.
const PluginHubPage = lazy(() => import('./PluginHubPage'));

export function PluginHubRoute() {
  return (
    <Suspense fallback={<Loader aria-label="Loading" />}>
      <PluginHubPage />
    </Suspense>
  );
}
