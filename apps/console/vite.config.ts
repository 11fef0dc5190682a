import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';

/**
 * The back-office console (apps/console/README.md). Built into `dist/console`, which the ledger API
 * serves at `/console` (same origin: the API's JWT roles apply to every call the console makes).
 * `npm run -s console:dev` proxies the API (`LEDGER_API`, default http://127.0.0.1:3000) for development.
 */
export default defineConfig({
  root: __dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: resolve(__dirname, '../../dist/console'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 4096,
  },
  server: {
    port: 5173,
    host: '127.0.0.1',
    proxy: Object.fromEntries(
      ['/tables', '/shoes', '/decisions', '/audit', '/settlements', '/reports', '/projections', '/me', '/live', '/asyncapi', '/schemas', '/health'].map((p) => [
        p,
        { target: process.env.LEDGER_API ?? 'http://127.0.0.1:3000', changeOrigin: false },
      ]),
    ),
  },
});
