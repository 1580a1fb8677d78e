import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { httpTurnWaitSeconds } from '../infra/metrics/process-metrics.js';

// Why this exists: libuv (1.45 and later, so Node 20) accepts one new connection per turn of the
// event loop, and in that turn it reads every socket that has a request. Under load one turn can
// start 50 requests of a millisecond each, so a burst of new connections is let in one per 50 ms:
// measured on this service's cold category pages, the 30th new connection of a burst got its first
// answer after 1.5 s while the requests on open connections took 100 ms (bench/RESULTS.md). A
// load balancer's health check on a fresh connection waits the same way.
//
// The gate starts requests while the turn's budget of CPU time lasts and hands the rest, in the
// order they came, to the following turns (setImmediate), so the loop is back at its poll at
// least once per budget: new connections are accepted and every socket is read at that pace.
// A request's own later steps (database answers from worker threads or PostgreSQL) are not gated.

/** Starts a request now or later; the gate calls each start exactly once, in the order given. */
export interface TurnGate {
  admit(start: () => void): void;
  /** Requests waiting for a later turn. */
  readonly waiting: number;
}

export interface TurnGateOptions {
  /** CPU time (ms) of request starts per turn of the event loop before the rest wait for the next turn. */
  budgetMs: number;
  now?: () => number;
  /** Runs a task in the check phase of the loop (setImmediate); tests pass their own. */
  defer?: (task: () => void) => void;
  /** Told how long (ms) each request that waited for a later turn waited. */
  onWait?: (ms: number) => void;
}

/**
 * Steps scheduled per turn at most. Each step starts one waiting request when budget is left; a
 * step of its own (not a loop over the queue in one callback) because a request's work runs in
 * the microtasks after the callback that started it, so only then has the clock moved.
 */
const MAX_STEPS_PER_TURN = 32;

export function createTurnGate({ budgetMs, now = () => performance.now(), defer = setImmediate, onWait }: TurnGateOptions): TurnGate {
  const waiting: Array<{ start: () => void; since: number }> = [];
  /** When the current turn's first request started; -1 when none has in this turn. */
  let turnStarted = -1;
  /** The steps of the next (or the running) check phase. */
  let batch: { steps: number; running: boolean } | undefined;

  function schedule(): void {
    const wanted = Math.max(1, Math.min(waiting.length, MAX_STEPS_PER_TURN));
    // A running batch's last step schedules the next one when requests still wait.
    if (batch?.running) return;
    const current = (batch ??= { steps: 0, running: false });
    for (; current.steps < wanted; current.steps += 1) defer(() => step(current));
  }

  function step(current: { steps: number; running: boolean }): void {
    const at = now();
    // The steps run after the loop has polled: a turn of their own (the first one always starts a request).
    if (!current.running) {
      current.running = true;
      turnStarted = at;
    }
    current.steps -= 1;
    try {
      if (waiting.length > 0 && at - turnStarted < budgetMs) {
        const next = waiting.shift()!;
        onWait?.(at - next.since);
        next.start();
      }
    } finally {
      // Also when a start threw: a batch left running would keep every later request waiting.
      if (current.steps === 0) {
        batch = undefined;
        if (waiting.length > 0) schedule();
        else turnStarted = -1;
      }
    }
  }

  return {
    admit(start) {
      const at = now();
      if (waiting.length === 0) {
        if (turnStarted < 0) {
          turnStarted = at;
          // Ends this turn's budget after the poll that is running now (nothing else would).
          schedule();
          return start();
        }
        if (at - turnStarted < budgetMs) return start();
      }
      waiting.push({ start, since: at });
      schedule();
    },
    get waiting() {
      return waiting.length;
    },
  };
}

type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** The options Fastify passes to a server factory that the server it would have made takes from them. */
export interface ServerTimeouts {
  http?: ServerOptions;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/**
 * Fastify's `serverFactory`: the node:http server Fastify would have made (its options and
 * timeouts as Fastify sets them), with its requests started through a turn gate; without a budget
 * (0), not gated. A request whose client went away while it waited is not started: its socket is
 * closed, and Fastify, attaching its listeners only then, would wait for a body that never comes.
 */
export function gatedServerFactory(budgetMs: number): (handler: RequestHandler, options: ServerTimeouts) => Server {
  return (handler, options) => {
    const waited = httpTurnWaitSeconds.series();
    const gate = budgetMs > 0 ? createTurnGate({ budgetMs, onWait: (ms) => waited.observe(ms / 1000) }) : undefined;
    const onRequest: RequestHandler = gate
      ? (request, response) =>
          gate.admit(() => {
            if (request.destroyed) response.destroy();
            else handler(request, response);
          })
      : handler;
    const server = createServer(options.http ?? {}, onRequest);
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0)
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}
