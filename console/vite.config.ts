import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { traefikValidators } from './traefik-validators';

// Keel serves the built files under /ui/, so every asset URL is rooted there. Two pages: the console
// (index.html) and the public share page's frame (share.html, filled in by the server at /share/<id>).
export default defineConfig({
  base: '/ui/',
  plugins: [react(), traefikValidators()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        share: fileURLToPath(new URL('./share.html', import.meta.url)),
      },
    },
  },
});
