import type { FastifyInstance, FastifyRequest } from 'fastify';
import { onPrimary } from '../db/replica-routing.js';

// With a read replica (DATABASE_REPLICA_URL), a caller who has just written reads from the primary
// for a while (DATABASE_REPLICA_STICKY_MS), so they never miss their own write on a replica that
// lags; every other read may go to the replica. A request that writes runs wholly on the primary.
// The caller is who the request says it is: its bearer token, else its basket token, else its
// address. This process remembers its own callers; with several API processes the proxy keeps a
// caller on one (docs/deployment.md), and the replica is read only while its lag stays under
// DATABASE_REPLICA_MAX_LAG_MS, which bounds what a caller who moves can miss.

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Beyond this many remembered callers the expired ones are swept out. */
const SWEEP_AT = 50_000;

function callerOf(request: FastifyRequest): string {
  const { authorization } = request.headers;
  if (authorization) return `a:${authorization}`;
  const basket = request.headers['basket-token'];
  if (typeof basket === 'string' && basket !== '') return `b:${basket}`;
  return `i:${request.ip}`;
}

export function registerReadYourWrites(app: FastifyInstance, options: { stickyMs: number; now?: () => number }): void {
  const now = options.now ?? Date.now;
  const wroteUntil = new Map<string, number>();

  const remember = (caller: string) => {
    if (wroteUntil.size >= SWEEP_AT) {
      const at = now();
      for (const [key, until] of wroteUntil) if (until <= at) wroteUntil.delete(key);
    }
    wroteUntil.set(caller, now() + options.stickyMs);
  };

  // The callback form: the rest of the request's life runs inside onPrimary's async context.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!READS.has(request.method)) return onPrimary(done);
    const caller = callerOf(request);
    const until = wroteUntil.get(caller);
    if (until === undefined) return done();
    if (until > now()) return onPrimary(done);
    wroteUntil.delete(caller);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (READS.has(request.method) || reply.statusCode >= 400) return done();
    remember(callerOf(request));
    // A first write may make the caller a basket token: they read with it next.
    const issued = reply.getHeader('basket-token');
    if (typeof issued === 'string' && issued !== '') remember(`b:${issued}`);
    done();
  });
}
