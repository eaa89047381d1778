// Starts bench/peers/bare-me-server.ts as a child Node process (its own event loop and core,
// like Ferry's) on a free loopback port.
import { fileURLToPath } from 'node:url';
import { startDaemon, freePort, type Daemon } from './daemon.js';

export interface BareMe {
  url: string;
  daemon: Daemon;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./bare-me-server.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url)); // `--import tsx` resolves from here

/** Starts the bare Fastify + jose `/api/me` server verifying tokens signed with `secret`. */
export async function startBareMe(secret: string): Promise<BareMe> {
  const port = await freePort();
  const daemon = await startDaemon('bare Fastify /api/me', process.execPath, ['--import', 'tsx', SCRIPT], {
    port,
    env: { ...process.env, BARE_ME_PORT: String(port), BARE_ME_SECRET: secret },
    cwd: ROOT,
  });
  return { url: `http://127.0.0.1:${port}`, daemon, stop: () => daemon.stop() };
}
