import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on 127.0.0.1 and a free port (tests never listen anywhere else); returns the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** A loopback port held for a server that must know its address before it exists (reserveLoopbackPort). */
export interface ReservedPort {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** What the server's `listen` is given (Fastify's passes it to Node's): the held socket, not a port to bind again. */
  listenOptions: { host: string; handle: unknown };
  /** Closes the held socket, when no server took it over. */
  release(): Promise<void>;
}

/**
 * A free loopback port that stays bound and listening until a server takes its socket over. An app
 * whose PUBLIC_URL names its own port is built before it listens; closing a probe on a free port and
 * listening on that port again once the app was built left the port free for the build (about a
 * second on PostgreSQL), and any process's listen(0) or outgoing connection could be given it
 * meanwhile: EADDRINUSE, with SQLite and PostgreSQL runs side by side. Node's listen takes over a
 * bound socket given as `handle` (net.Server's `_handle`, the form its `listen(handle)` documents).
 */
export async function reserveLoopbackPort(): Promise<ReservedPort> {
  const holder = createServer();
  const port = await listenOnLoopback(holder);
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    listenOptions: { host: '127.0.0.1', handle: (holder as unknown as { _handle: unknown })._handle },
    release: () => new Promise((resolve) => holder.close(() => resolve())),
  };
}
