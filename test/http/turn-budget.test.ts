import { request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTurnGate, gatedServerFactory } from '../../src/http/turn-budget.js';
import { processMetrics } from '../../src/infra/metrics/process-metrics.js';
import { sample } from '../metrics/metrics-text.js';

/**
 * A loop of turns as the gate sees it: tasks deferred during a turn run in the next one (as
 * setImmediate callbacks scheduled in the check phase do), and each started request costs CPU time.
 */
function simulatedLoop() {
  let clock = 0;
  let deferred: Array<() => void> = [];
  /** The requests started so far, in order. */
  const started: string[] = [];
  return {
    started,
    now: () => clock,
    defer: (task: () => void) => void deferred.push(task),
    /** A request whose work takes `ms` once started (its clock moves as the work runs). */
    work: (name: string, ms: number) => () => {
      started.push(name);
      clock += ms;
    },
    /** Runs the deferred tasks of one turn, each even when one before it threw (then rethrown). */
    turn() {
      const tasks = deferred;
      deferred = [];
      const errors: unknown[] = [];
      for (const task of tasks) {
        try {
          task();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) throw errors[0];
    },
    /** Runs turns until nothing is deferred. */
    drain() {
      while (deferred.length > 0) this.turn();
    },
    get pending() {
      return deferred.length;
    },
  };
}

/** A gate with a 2 ms budget on a simulated loop. */
function gateOnSimulatedLoop(onWait?: (ms: number) => void) {
  const loop = simulatedLoop();
  const gate = createTurnGate({ budgetMs: 2, now: loop.now, defer: loop.defer, onWait });
  return { loop, gate, started: loop.started };
}

describe('turn gate', () => {
  it('starts requests while the turn has budget and the rest, in order, in later turns', () => {
    const { loop, gate, started } = gateOnSimulatedLoop();
    for (let index = 0; index < 8; index += 1) gate.admit(loop.work(`r${index}`, 1));
    // 1 ms each: two fit the 2 ms budget of the turn that read them.
    expect(started).toEqual(['r0', 'r1']);
    expect(gate.waiting).toBe(6);

    const perTurn: string[][] = [];
    while (loop.pending > 0) {
      const before = started.length;
      loop.turn();
      perTurn.push(started.slice(before));
    }
    // Every later turn starts at most the budget's worth, oldest first, and nobody is started twice.
    expect(perTurn.filter((names) => names.length > 0)).toEqual([
      ['r2', 'r3'],
      ['r4', 'r5'],
      ['r6', 'r7'],
    ]);
    expect(started).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
    expect(gate.waiting).toBe(0);
  });

  it('starts one request per turn even when one alone is over the budget', () => {
    const { loop, gate, started } = gateOnSimulatedLoop();
    for (let index = 0; index < 3; index += 1) gate.admit(loop.work(`slow${index}`, 10));
    expect(started).toEqual(['slow0']);
    loop.turn();
    expect(started).toEqual(['slow0', 'slow1']);
    loop.turn();
    expect(started).toEqual(['slow0', 'slow1', 'slow2']);
  });

  it('starts at once again once the queue is empty and a new turn began', () => {
    const { loop, gate, started } = gateOnSimulatedLoop();
    gate.admit(loop.work('a', 5));
    gate.admit(loop.work('b', 0));
    expect(started).toEqual(['a']);
    loop.drain();
    expect(started).toEqual(['a', 'b']);
    gate.admit(loop.work('c', 0));
    expect(started).toEqual(['a', 'b', 'c']);
    expect(gate.waiting).toBe(0);
  });

  it('tells how long each request that waited for a later turn waited, and nothing for the others', () => {
    const waits: number[] = [];
    const { loop, gate, started } = gateOnSimulatedLoop((ms) => waits.push(ms));
    for (let index = 0; index < 4; index += 1) gate.admit(loop.work(`r${index}`, 1.5));
    // r0 and r1 start at once (r1 at 1.5 ms, within the budget); r2 and r3 queue at 3 ms.
    expect(waits).toEqual([]);
    loop.drain();
    expect(started).toEqual(['r0', 'r1', 'r2', 'r3']);
    // r2 starts first in the next turn (at 3 ms), r3 after r2's 1.5 ms of work: within that turn's budget.
    expect(waits).toEqual([0, 1.5]);
  });

  it('does not start a request that arrives behind waiting ones before them, even with budget left', () => {
    const { loop, gate, started } = gateOnSimulatedLoop();
    gate.admit(loop.work('first', 3));
    gate.admit(() => {
      started.push('second');
      // Arrives while 'third' still waits, in a turn with all of its budget left (second costs nothing).
      gate.admit(loop.work('late', 0));
    });
    gate.admit(loop.work('third', 0));
    loop.drain();
    expect(started).toEqual(['first', 'second', 'third', 'late']);
  });

  it('keeps starting requests after a start threw in the last step of a turn', () => {
    const { loop, gate, started } = gateOnSimulatedLoop();
    gate.admit(loop.work('first', 3));
    gate.admit(() => {
      throw new Error('a handler that throws');
    });
    expect(() => loop.turn()).toThrow('a handler that throws');
    // The next request fills the turn and the one after it has to wait: it must still start.
    gate.admit(loop.work('a', 3));
    gate.admit(loop.work('b', 0));
    loop.drain();
    expect(started).toEqual(['first', 'a', 'b']);
    expect(gate.waiting).toBe(0);
  });
});

describe('gated node:http server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('answers every request of many connections with its own body, and keeps the timeouts Fastify sets', async () => {
    const budgetMs = 1;
    const waited = async () => sample(await processMetrics.metrics(), 'storefront_http_turn_wait_seconds_count') ?? 0;
    const waitedBefore = await waited();
    const server = gatedServerFactory(budgetMs)(
      (request, response) => {
        // Some CPU per request so that turns overflow their budget and requests wait.
        const until = performance.now() + 0.5;
        while (performance.now() < until);
        let body = '';
        request.setEncoding('utf8');
        request.on('data', (chunk: string) => (body += chunk));
        request.on('end', () => {
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify({ url: request.url, body }));
        });
      },
      { keepAliveTimeout: 72_000, requestTimeout: 30_000, connectionTimeout: 5_000 },
    );
    expect([server.keepAliveTimeout, server.requestTimeout, server.timeout]).toEqual([72_000, 30_000, 5_000]);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    close = async () => {
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    const { port } = server.address() as AddressInfo;
    // Every other request a GET without a body: one that waited must still start (not be taken for a client that left).
    const bodyOf = (connection: number, index: number) =>
      index % 2 === 0 ? '' : `payload-${connection}-${index}-${'x'.repeat(index * 97)}`;
    const post = (connection: number, index: number) =>
      new Promise<{ url: string; body: string }>((resolve, reject) => {
        const body = bodyOf(connection, index);
        const method = body === '' ? 'GET' : 'POST';
        const req = httpRequest(
          { port, host: '127.0.0.1', method, path: `/c${connection}/r${index}`, agent, headers: { 'content-type': 'text/plain' } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve(JSON.parse(text) as { url: string; body: string }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const connections = await Promise.all(
      Array.from({ length: 20 }, async (_, connection) => {
        const answers: Array<{ url: string; body: string }> = [];
        for (let index = 0; index < 15; index += 1) answers.push(await post(connection, index));
        return answers;
      }),
    );
    for (const [connection, answers] of connections.entries()) {
      expect(answers.map((answer) => answer.url)).toEqual(Array.from({ length: 15 }, (_, index) => `/c${connection}/r${index}`));
      for (const [index, answer] of answers.entries()) expect(answer.body).toBe(bodyOf(connection, index));
    }
    // 20 connections sending at once into 0.5 ms requests overflow a 1 ms turn: some waited, and /metrics counts them.
    expect(await waited()).toBeGreaterThan(waitedBefore);
  });
  it('does not start a request whose client left while it waited, and starts the ones behind it', async () => {
    const handled: string[] = [];
    const server = gatedServerFactory(1)((request) => {
      handled.push(request.url ?? '');
      // The first request uses up its turn's budget, so the others wait for the next turn.
      const until = performance.now() + 3;
      while (performance.now() < until);
    }, {});
    const listener = server.listeners('request')[0] as (request: IncomingMessage, response: ServerResponse) => void;
    const closed: string[] = [];
    const arrive = (url: string, clientLeft: boolean) =>
      listener({ url, destroyed: clientLeft } as IncomingMessage, { destroy: () => void closed.push(url) } as unknown as ServerResponse);
    arrive('/busy', false);
    arrive('/left', true);
    arrive('/stayed', false);
    expect(handled).toEqual(['/busy']);
    for (let turn = 0; turn < 10 && handled.length < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual(['/busy', '/stayed']);
    expect(closed).toEqual(['/left']);
  });
});
