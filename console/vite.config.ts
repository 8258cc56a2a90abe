import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Keel serves the built files under /ui/, so every asset URL is rooted there.
export default defineConfig({
  base: '/ui/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
});
