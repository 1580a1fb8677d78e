import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { reserveLoopbackPort } from '../helpers/loopback.js';
import { createTestApp } from '../helpers/test-app.js';
import { createListeningApp } from './helpers.js';

// Apps the payment gateways call back name their own port in PUBLIC_URL before they are built, and
// listen on it once built. The port must stay theirs meanwhile: a run beside this one (SQLite and
// PostgreSQL side by side) once took it first, and the app failed to start with EADDRINUSE.

/** Whether another server can listen on `port` now; it closes again at once if it could. */
async function portTaken(port: number): Promise<boolean> {
  const other = createServer();
  return new Promise((resolve, reject) => {
    other.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(true) : reject(error)));
    other.listen(port, '127.0.0.1', () => other.close(() => resolve(false)));
  });
}

describe('an app listening on the loopback port its PUBLIC_URL names', () => {
  it('holds the port while the app is built, and the app then answers on it', async () => {
    const reserved = await reserveLoopbackPort();
    expect(await portTaken(reserved.port)).toBe(true);
    const t = await createTestApp({
      env: { TEST_GATEWAY: 'on', PUBLIC_URL: reserved.origin },
      // The build is the window in which another process could take a port freed for it.
      beforeReady: async () => expect(await portTaken(reserved.port)).toBe(true),
    });
    try {
      await t.app.listen(reserved.listenOptions);
      expect((await fetch(`${reserved.origin}/site/health`)).status).toBe(200);
    } finally {
      await t.close();
    }
    expect(await portTaken(reserved.port)).toBe(false);
    // A worker's first app (its SQLite image migrated, the app's modules loaded) took over 20 s on a loaded machine.
  }, 60_000);

  it('is what createListeningApp gives: the origin in PUBLIC_URL is where the app answers', async () => {
    const { t, origin } = await createListeningApp();
    try {
      expect(t.config.orders.publicUrl).toBe(origin);
      expect((await fetch(`${origin}/site/health`)).status).toBe(200);
    } finally {
      await t.close();
    }
  }, 60_000);
});
