import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { captureLogs } from '../helpers/log-capture.js';
import { listenOnLoopback } from '../helpers/loopback.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { paymentInput, testGateway } from './test-gateway.fixtures.js';

// TEST_GATEWAY decides whether the page is served at all; under BASE_PATH it moves with the API;
// and a callback the shop never takes is given up after the retries, logged, without the URL.

let receiver: HttpReceiver;
beforeAll(async () => {
  receiver = await startHttpReceiver();
});
afterAll(() => receiver.close());

async function withApp(env: Record<string, string>, work: (t: TestApp) => Promise<void>, logStream?: { write(line: string): void }) {
  const t = await createTestApp({ env, logStream });
  try {
    await work(t);
  } finally {
    await t.close();
  }
}

describe('TEST_GATEWAY', () => {
  it('off, or unset outside the demo, serves no page: the routes are absent', async () => {
    for (const env of [{ TEST_GATEWAY: 'off' }, {}] as Record<string, string>[]) {
      await withApp(env, async (t) => {
        // The adapter still works (the shop may ask about payments it made), only the page is gone.
        const created = await testGateway(t).createPayment(paymentInput(receiver));
        const path = new URL(created.redirect.url).pathname;
        for (const method of ['GET', 'POST'] as const) {
          const response = await t.app.inject({
            method,
            url: path,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'action=pay',
          });
          expect(response.statusCode, `${JSON.stringify(env)} ${method}`).toBe(404);
          expect(response.headers['content-type']).toMatch(/^application\/json/);
        }
        expect((await testGateway(t).fetchStatus(created.reference))?.state).toBe('pending');
      });
    }
    // Two apps built one after the other, each on its own database: past 20 s on a loaded machine.
  }, 60_000);

  it('on, the page lives under the API base path', async () => {
    await withApp({ TEST_GATEWAY: 'on', BASE_PATH: '/api', PUBLIC_URL: 'https://shop.example' }, async (t) => {
      const created = await testGateway(t).createPayment(paymentInput(receiver));
      expect(created.redirect.url).toBe(`https://shop.example/api/payment/test/pay/${created.reference}`);
      expect((await t.app.inject({ method: 'GET', url: `/api/payment/test/pay/${created.reference}` })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `/payment/test/pay/${created.reference}` })).statusCode).toBe(404);
    });
  });
});

describe('a callback the shop never takes', () => {
  it('is tried four times, then given up and logged without its URL; the payment stays finished', async () => {
    // A server that drops each connection as it comes. A port closed after a listen(0) did the same,
    // but any other process could be given that port meanwhile and take the callbacks.
    const dropping = createServer();
    dropping.on('connection', (socket) => socket.destroy());
    const port = await listenOnLoopback(dropping);
    onTestFinished(() => new Promise<void>((resolve) => dropping.close(() => resolve())));
    const logs = captureLogs();
    await withApp(
      { TEST_GATEWAY: 'on', LOG_LEVEL: 'warn' },
      async (t) => {
        const gateway = testGateway(t);
        const created = await gateway.createPayment(
          paymentInput(receiver, { callbackUrl: `http://127.0.0.1:${port}/payment/test/callback?secret=s3cr3t` }),
        );
        const path = new URL(created.redirect.url).pathname;
        const started = Date.now();
        const response = await t.app.inject({
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'action=pay',
        });
        expect(response.statusCode).toBe(303);
        expect(Date.now() - started, 'the shopper does not wait for the callback').toBeLessThan(1000);
        const givenUp = () => logs.lines().filter((line) => line.msg === 'test gateway: callback not delivered, giving up');
        await expect.poll(() => givenUp().length, { timeout: 10_000, interval: 100 }).toBe(1);
        expect(givenUp()[0]).toMatchObject({ level: 50, paymentReference: created.reference, attempt: 4 });
        expect(logs.lines().filter((line) => line.msg === 'test gateway: callback failed, retrying')).toHaveLength(3);
        expect(logs.text()).not.toContain('s3cr3t');
        expect((await gateway.fetchStatus(created.reference))?.state).toBe('settled');
      },
      logs.stream,
    );
  });
});
