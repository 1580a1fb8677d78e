import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PaymentGateway } from '../../src/modules/payments/index.js';
import { describeInBrowser, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { callbacksFor, paymentInput, quietPeriod, TEST_GATEWAY_ON, testGateway } from './test-gateway.fixtures.js';

// A shopper on the test gateway's page in headless Chromium: the service listens on a real port,
// the shop's return and callback URLs are a real local server, and the buttons are clicked.

describeInBrowser('the test gateway in a browser', () => {
  let t: TestApp;
  let receiver: HttpReceiver;
  let browser: TestBrowser;
  let gateway: PaymentGateway;
  /** http://127.0.0.1:<port> of the listening service. */
  let origin: string;
  /** What the browser's console said: a Content-Security-Policy refusal would show here. */
  const console: string[] = [];

  beforeAll(async () => {
    [receiver, t, browser] = await Promise.all([startHttpReceiver(), createTestApp({ env: TEST_GATEWAY_ON }), launchBrowser()]);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    gateway = testGateway(t, origin);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  async function openPaymentPage(amountCents = 4250) {
    const input = paymentInput(receiver, { amountCents });
    const created = await gateway.createPayment(input);
    const page = await browser.newPage();
    page.on('console', (message) => console.push(message.text()));
    const response = await page.goto(created.redirect.url);
    expect(response?.status()).toBe(200);
    return { input, created, page };
  }

  /** Clicks a button and waits for the browser to land on the shop's return page. */
  async function click(page: Page, name: string): Promise<URL> {
    await Promise.all([
      page.waitForURL(`${receiver.url}/bank/return-internal?**`),
      page.getByRole('button', { name, exact: true }).click(),
    ]);
    return new URL(page.url());
  }

  it('Pay: the shopper lands on the return URL with the references, the shop gets one callback, the payment is settled', async () => {
    const { input, created, page } = await openPaymentPage();
    await expect.poll(() => page.locator('#order-reference').textContent()).toBe(input.orderReference);
    expect(await page.locator('#amount').textContent()).toBe('42.50 EUR');
    expect(await page.locator('.banner').textContent()).toMatch(/Test payment page.*No real money/);
    // The page's own style is applied under its policy (the Pay button is green).
    expect(await page.getByRole('button', { name: 'Pay' }).evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(26, 127, 55)');

    const landed = await click(page, 'Pay');
    expect(landed.searchParams.get('payment_reference')).toBe(created.reference);
    expect(landed.searchParams.get('order_reference')).toBe(input.orderReference);
    expect(landed.searchParams.get('language')).toBe('et');
    await receiver.waitFor((r) => callbacksFor(receiver, created.reference).includes(r));

    // Back to the page and the form sent again, by HTTP: nothing changes, no second callback.
    const again = await fetch(created.redirect.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=decline',
      redirect: 'manual',
    });
    expect(again.status).toBe(303);
    await quietPeriod();
    expect(callbacksFor(receiver, created.reference)).toHaveLength(1);
    expect((await gateway.fetchStatus(created.reference))?.state).toBe('settled');
    await page.goto(created.redirect.url);
    expect(await page.getByRole('button').count()).toBe(0);
    expect(await page.locator('#state').textContent()).toBe('paid');
    await page.close();
  });

  it('Decline fails the payment and Cancel abandons it, each with one callback', async () => {
    const references: string[] = [];
    for (const [button, state] of [
      ['Decline', 'failed'],
      ['Cancel', 'abandoned'],
    ] as const) {
      const { created, page } = await openPaymentPage();
      references.push(created.reference);
      const landed = await click(page, button);
      expect(landed.searchParams.get('payment_reference')).toBe(created.reference);
      await receiver.waitFor((r) => callbacksFor(receiver, created.reference).includes(r));
      expect((await gateway.fetchStatus(created.reference))?.state).toBe(state);
      await page.close();
    }
    await quietPeriod();
    for (const reference of references) expect(callbacksFor(receiver, reference)).toHaveLength(1);
    expect(console.filter((line) => /Content Security Policy|Refused to/i.test(line))).toEqual([]);
  });

  it('an unknown payment is a 404 page', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${origin}/payment/test/pay/tgp_${'C'.repeat(24)}`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Payment not found');
    await page.close();
  });
});
