import { Agent, get as httpGet } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { call, createDeployment, describeOnPostgres, type Deployment, type RunningProcess } from './processes.js';

// docs/deployment.md, "Shutdown": SIGTERM finishes the requests in hand, closes the database and
// exits 0. One API process is stopped while shoppers keep both busy: the other answers everything,
// the closing one answers what it took (no answer is a 5xx but its own 503 for a request that
// reached it after the close began) and exits 0. A connection that reached it just as it stopped
// listening (one waiting to be accepted, or a kept-alive one closed idle as a request was sent on
// it) is cut without an answer: the doc says to take a process out of the proxy's pool first.

const SHOPPERS = 8;

describeOnPostgres('an API process stopped under load', () => {
  let deployment: Deployment;
  let stopping: RunningProcess;
  let staying: RunningProcess;
  let productId: number;
  beforeAll(async () => {
    // Caches off: every request reads the database, so requests are in flight when the signal comes.
    deployment = await createDeployment({ CATALOGUE_CACHE_TTL_MS: '0', CATALOGUE_LIST_CACHE_TTL_MS: '0' });
    [stopping, staying] = await Promise.all([deployment.startApi(), deployment.startApi()]);
    productId = await createProduct(deployment.database.db, { code: 'STOP1', name: 'Stopping book' });
  }, 120_000);
  afterAll(() => deployment?.close(), 60_000);

  it('in-flight requests answer, the other process answers everything, and the stopped one exits 0', async () => {
    const outcomes: { to: 'stopping' | 'staying'; status: number | string }[] = [];
    let running = true;
    const shopper = async (i: number) => {
      while (running) {
        const to = i % 2 === 0 ? stopping : staying;
        try {
          const status = await new Promise<number>((resolve, reject) => {
            const req = httpGet(`${to.url}/product/${productId}`, { headers: { store: 'WEB' }, agent: false }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode!));
            });
            req.on('error', (cause) => reject(new Error('no answer', { cause })));
          });
          outcomes.push({ to: to === stopping ? 'stopping' : 'staying', status });
        } catch (error) {
          const code = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
          outcomes.push({ to: to === stopping ? 'stopping' : 'staying', status: code });
          // Refused or cut once the closing process stopped listening: a proxy takes it out; so does this shopper.
          if (to === stopping) i += 1;
        }
      }
    };
    const shoppers = Array.from({ length: SHOPPERS }, (_, i) => shopper(i));
    // Both busy first: each has answered a few requests (a loaded machine takes longer).
    const answered = (to: 'stopping' | 'staying') => outcomes.filter((o) => o.to === to && o.status === 200).length;
    await expect
      .poll(() => Math.min(answered('stopping'), answered('staying')), { timeout: 15_000, interval: 20 })
      .toBeGreaterThanOrEqual(10);
    const code = await stopping.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all(shoppers);

    expect(code, stopping.output().slice(-2000)).toBe(0);
    const toStaying = outcomes.filter((o) => o.to === 'staying');
    expect(toStaying.filter((o) => o.status !== 200)).toEqual([]);
    // The closing process answers what it took (200, or 503 once the close began) or, closed,
    // refuses the connection; at most one connection of each shopper sending to it is cut, the
    // one it had open at the close.
    const toStopping = outcomes.filter((o) => o.to === 'stopping');
    expect(toStopping.filter((o) => ![200, 503, 'ECONNREFUSED', 'ECONNRESET'].includes(o.status))).toEqual([]);
    expect(toStopping.filter((o) => o.status === 'ECONNRESET').length).toBeLessThanOrEqual(SHOPPERS / 2);
  }, 60_000);
});

describeOnPostgres('an API process given a drain (SHUTDOWN_DRAIN_MS)', () => {
  let deployment: Deployment;
  let productId: number;
  beforeAll(async () => {
    deployment = await createDeployment();
    productId = await createProduct(deployment.database.db, { code: 'DRAIN1', name: 'Draining book' });
  }, 120_000);
  afterAll(() => deployment?.close(), 60_000);

  /** A GET on a kept-alive connection: its status and whether the answer closes the connection. */
  const keptAliveGet = (url: string, agent: Agent) =>
    new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = httpGet(url, { headers: { store: 'WEB', 'x-app-language': 'en' }, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      });
      req.on('error', reject);
    });

  // Between SIGTERM and closing, the process answers on while its readiness says it is stopping, so
  // a load balancer takes it out of the pool before anything is cut; each answer closes its
  // connection, so a proxy's next request goes to a process that stays.
  it('answers on after SIGTERM, not ready and closing each connection, then exits 0', async () => {
    const api = await deployment.startApi({ SHUTDOWN_DRAIN_MS: '1500' });
    const agent = new Agent({ keepAlive: true });
    try {
      const before = await keptAliveGet(`${api.url}/product/${productId}`, agent);
      expect(before).toEqual({ status: 200, connection: 'keep-alive' });
      const signalled = Date.now();
      api.child.kill('SIGTERM');
      await expect
        .poll(async () => (await call(api.url, 'GET', '/site/ready', { headers: { 'x-app-language': 'en' } })).body?.message, {
          timeout: 1_000,
          interval: 50,
        })
        .toBe('The service is not ready: the process is stopping.');
      expect(await keptAliveGet(`${api.url}/product/${productId}`, agent)).toEqual({ status: 200, connection: 'close' });
      expect(await api.exited).toBe(0);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(1500);
    } finally {
      agent.destroy();
    }
  }, 60_000);
});
