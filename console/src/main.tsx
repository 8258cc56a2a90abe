import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import {
  Combobox,
  MantineProvider,
  createTheme,
  localStorageColorSchemeManager,
  type CSSVariablesResolver,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router-dom';
import { ApiError } from './api/client';
import { App } from './App';

// An answered error (ApiError: a 4xx naming the field, or a 5xx) is shown at once; only a request
// that got no answer (network) is tried once more.
const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: (failures, error) => !(error instanceof ApiError) && failures < 1, staleTime: 10_000 },
  },
});
// Shade 8 keeps white text on filled buttons above WCAG AA contrast (4.5:1) in both themes.
// Closed dropdowns (Select, MultiSelect, TagsInput…) are not kept in the page: Mantine 9 keeps each one
// hidden and positions it as it mounts (a forced layout and a synchronous re-render per field), which was
// a third of a form page's first render; they are drawn when opened instead.
const theme = createTheme({
  primaryShade: { light: 8, dark: 8 },
  components: { Combobox: Combobox.extend({ defaultProps: { keepMounted: false } }) },
});
// Mantine's dimmed grey and error red are below AA contrast (4.5:1); --keel-color-ok is the
// success text colour, AA in both themes. In the light theme the text of light, outline and subtle
// buttons and badges is shade 9: shade 8 on the tint a hovered one gets (red-8 on #fdf5f5) is 4.2:1.
const cssVariablesResolver: CSSVariablesResolver = (resolved) => ({
  variables: {},
  light: {
    ...Object.fromEntries(
      Object.keys(resolved.colors).flatMap((color) => [
        [`--mantine-color-${color}-light-color`, `var(--mantine-color-${color}-9)`],
        [`--mantine-color-${color}-outline`, `var(--mantine-color-${color}-9)`],
      ]),
    ),
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    '--keel-color-ok': 'var(--mantine-color-teal-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
    '--keel-color-ok': 'var(--mantine-color-teal-4)',
  },
});
const colorSchemeManager = localStorageColorSchemeManager({ key: 'keel.color-scheme' });

/**
 * Bottom right on a wide screen. On a phone that corner is the content just acted on (the new key's box,
 * the pinned prompt box), so they come at the top, over the header, instead.
 */
function PlacedNotifications() {
  const narrow = useMediaQuery('(max-width: 48em)', undefined, { getInitialValueInEffect: false });
  return <Notifications position={narrow ? 'top-center' : 'bottom-right'} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider
      theme={theme}
      defaultColorScheme="auto"
      colorSchemeManager={colorSchemeManager}
      cssVariablesResolver={cssVariablesResolver}
    >
      <PlacedNotifications />
      <QueryClientProvider client={queryClient}>
        <BrowserRouter basename="/ui">
          <App />
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
