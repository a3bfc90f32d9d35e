import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// Under vitest, Svelte must resolve to its browser build or `mount` fails on the server build.
const testing = Boolean(process.env.VITEST);

export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  resolve: testing ? { conditions: ['browser'] } : undefined,
  build: {
    target: 'safari15',
    // Inline nothing: the CSP allows only files from the app's own origin.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    // The test files share their workers' jsdom instead of each building its own, which took two
    // thirds of the suite's time; each file mounts its components afresh and cleans up after.
    isolate: false,
  },
});
