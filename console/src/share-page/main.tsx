import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider, createTheme } from '@mantine/core';
import { SharePage } from './SharePage';

// The public share page: the server sent the conversation as HTML; this replaces it with the
// console's renderer and keeps it live. No credentials, no console API: only /share/<id>/*.
const theme = createTheme({ primaryShade: { light: 8, dark: 8 } });
const shareID = decodeURIComponent(window.location.pathname.split('/')[2] ?? '');

createRoot(document.getElementById('share-app')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <SharePage shareID={shareID} />
    </MantineProvider>
  </StrictMode>,
);
