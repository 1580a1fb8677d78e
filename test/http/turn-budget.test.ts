import { request as httpRequest, Agent } from 'node:http';
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
  return {
    now: () => clock,
    defer: (task: () => void) => void deferred.push(task),
    /** A request whose work takes `ms` once started (its clock moves as the work runs). */
    work: (log: string[], name: string, ms: number) => () => {
      log.push(name);
      clock += ms;
    },
    /** Runs the deferred tasks of one turn; returns how many there were. */
    turn() {
      const tasks = deferred;
      deferred = [];
      for (const task of tasks) task();
      return tasks.length;
    },
    get pending() {
      return deferred.length;
    },
  };
}

describe('turn gate', () => {
  it('starts requests while the turn has budget and the rest, in order, in later turns', () => {
    const loop = simulatedLoop();
    const gate = createTurnGate({ budgetMs: 2, now: loop.now, defer: loop.defer });
    const started: string[] = [];
    for (let index = 0; index < 8; index += 1) gate.admit(loop.work(started, `r${index}`, 1));
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
    const loop = simulatedLoop();
    const gate = createTurnGate({ budgetMs: 2, now: loop.now, defer: loop.defer });
    const started: string[] = [];
    for (let index = 0; index < 3; index += 1) gate.admit(loop.work(started, `slow${index}`, 10));
    expect(started).toEqual(['slow0']);
    loop.turn();
    expect(started).toEqual(['slow0', 'slow1']);
    loop.turn();
    expect(started).toEqual(['slow0', 'slow1', 'slow2']);
  });

  it('starts at once again once the queue is empty and a new turn began', () => {
    const loop = simulatedLoop();
    const gate = createTurnGate({ budgetMs: 2, now: loop.now, defer: loop.defer });
    const started: string[] = [];
    gate.admit(loop.work(started, 'a', 5));
    gate.admit(loop.work(started, 'b', 0));
    expect(started).toEqual(['a']);
    while (loop.pending > 0) loop.turn();
    expect(started).toEqual(['a', 'b']);
    gate.admit(loop.work(started, 'c', 0));
    expect(started).toEqual(['a', 'b', 'c']);
    expect(gate.waiting).toBe(0);
  });

  it('tells how long each request that waited for a later turn waited, and nothing for the others', () => {
    const loop = simulatedLoop();
    const waits: number[] = [];
    const gate = createTurnGate({ budgetMs: 2, now: loop.now, defer: loop.defer, onWait: (ms) => waits.push(ms) });
    const started: string[] = [];
    for (let index = 0; index < 4; index += 1) gate.admit(loop.work(started, `r${index}`, 1.5));
    // r0 and r1 start at once (r1 at 1.5 ms, within the budget); r2 and r3 queue at 3 ms.
    expect(waits).toEqual([]);
    while (loop.pending > 0) loop.turn();
    expect(started).toEqual(['r0', 'r1', 'r2', 'r3']);
    // r2 starts first in the next turn (at 3 ms), r3 after r2's 1.5 ms of work: within that turn's budget.
    expect(waits).toEqual([0, 1.5]);
  });

  it('does not start a request that arrives behind waiting ones before them', () => {
    const loop = simulatedLoop();
    const gate = createTurnGate({ budgetMs: 2, now: loop.now, defer: loop.defer });
    const started: string[] = [];
    gate.admit(loop.work(started, 'first', 3));
    gate.admit(loop.work(started, 'second', 0));
    loop.turn();
    // A cheap request arriving while one waits queues behind it, even with budget left in its turn.
    gate.admit(loop.work(started, 'third', 0));
    while (loop.pending > 0) loop.turn();
    expect(started).toEqual(['first', 'second', 'third']);
  });
});

describe('gated node:http server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('answers every request of many connections, bodies intact and each connection in order, with Fastify-style timeouts', async () => {
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
      { keepAliveTimeout: 72_000, requestTimeout: 0, connectionTimeout: 0 },
    );
    expect(server.keepAliveTimeout).toBe(72_000);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    close = async () => {
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    const { port } = server.address() as AddressInfo;
    const post = (connection: number, index: number) =>
      new Promise<{ url: string; body: string }>((resolve, reject) => {
        const body = `payload-${connection}-${index}-${'x'.repeat(index * 97)}`;
        const req = httpRequest(
          { port, host: '127.0.0.1', method: 'POST', path: `/c${connection}/r${index}`, agent, headers: { 'content-type': 'text/plain' } },
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
      for (const [index, answer] of answers.entries()) expect(answer.body).toBe(`payload-${connection}-${index}-${'x'.repeat(index * 97)}`);
    }
    // 20 connections sending at once into 0.5 ms requests overflow a 1 ms turn: some waited, and /metrics counts them.
    expect(await waited()).toBeGreaterThan(waitedBefore);
  });
});
