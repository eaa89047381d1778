/**
 * The web UI build: `vite build --config web/vite.config.ts` writes `dist/web`, which the server
 * serves at `/` (src/http/static-ui.ts). `npm run dev:web` runs the dev server and proxies the
 * server's paths to a running backend (FERRY_DEV_BACKEND, default http://127.0.0.1:5244).
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** Only the environment is needed from Node here; the web tsconfig has no Node types. */
declare const process: { env: Record<string, string | undefined> };

const here = new URL('.', import.meta.url).pathname;
const backend = process.env.FERRY_DEV_BACKEND ?? 'http://127.0.0.1:5244';

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  publicDir: false,
  build: {
    outDir: new URL('../dist/web', import.meta.url).pathname,
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: Object.fromEntries(['/api/', '/d/', '/p/', '/sd/', '/fs/', '/ping', '/healthz'].map((p) => [p, { target: backend, changeOrigin: false }])),
  },
});
