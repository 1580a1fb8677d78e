import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createDeployment, describeOnPostgres, SKIP_REASON, type Deployment, type RunningProcess } from './processes.js';

// docs/deployment.md, "Shutdown": SIGTERM finishes the requests in hand, closes the database and
// exits 0; rolling restarts need nothing else. One API process is stopped while shoppers keep both
// busy: what it had taken is answered, the other answers everything, and no answer is a 5xx but
// the closing process's own 503 for a request that reached it after the signal (a proxy sends
// that one to the other process).

describeOnPostgres(`an API process stopped under load (skipped: ${SKIP_REASON})`, () => {
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
    const outcomes: { to: 'stopping' | 'staying'; status: number | string; after: boolean }[] = [];
    let signalled = false;
    let running = true;
    const shopper = async (i: number) => {
      while (running) {
        const to = i % 2 === 0 ? stopping : staying;
        const after = signalled;
        try {
          const response = await fetch(`${to.url}/product/${productId}`, { headers: { store: 'WEB' } });
          await response.arrayBuffer();
          outcomes.push({ to: to === stopping ? 'stopping' : 'staying', status: response.status, after });
        } catch (error) {
          const code = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
          outcomes.push({ to: to === stopping ? 'stopping' : 'staying', status: code, after });
          // Refused once the closing process stopped listening: a proxy takes it out; so does this shopper.
          if (to === stopping && code === 'ECONNREFUSED') i += 1;
        }
      }
    };
    const shoppers = Array.from({ length: 8 }, (_, i) => shopper(i));
    await new Promise((resolve) => setTimeout(resolve, 700));
    signalled = true;
    const code = await stopping.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all(shoppers);

    expect(code, stopping.output().slice(-2000)).toBe(0);
    const toStaying = outcomes.filter((o) => o.to === 'staying');
    expect(toStaying.length).toBeGreaterThan(10);
    expect(toStaying.filter((o) => o.status !== 200)).toEqual([]);
    // Before the signal every request to the closing process is answered 200; after it, a request
    // is answered (200, or 503 when it came after the close began) or refused, never reset or a 500.
    const toStopping = outcomes.filter((o) => o.to === 'stopping');
    expect(toStopping.filter((o) => !o.after && o.status !== 200)).toEqual([]);
    expect(toStopping.filter((o) => o.after && ![200, 503, 'ECONNREFUSED'].includes(o.status))).toEqual([]);
  }, 60_000);
});
