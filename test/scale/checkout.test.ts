import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { checkoutFormWith } from '../orders/helpers.js';
import { call, createDeployment, describeOnPostgres, sentTo, type Deployment, type RunningProcess } from './processes.js';

// A shopper's double submit reaching both API processes at once (a proxy that spreads a retry to
// the other process): one order for one basket, one payment taken for one order, one mail.

describeOnPostgres('double submits across two API processes', () => {
  let deployment: Deployment;
  let apis: RunningProcess[];
  let productId: number;
  let courierId: number;
  let apiKey: string;
  let paidOrderId: number;
  beforeAll(async () => {
    deployment = await createDeployment({ JOB_POLL_INTERVAL_MS: '100' });
    apis = await Promise.all([deployment.startApi(), deployment.startApi(), deployment.startWorker()]);
    const db = deployment.database.db;
    const shopId = await createShop(db, { code: 'TLN1', name: 'Viru Keskus' });
    productId = await createProduct(db, { code: 'DOUBLE1', price: 12, name: 'Double book' });
    await setStock(db, productId, shopId, 100);
    apiKey = await createApiKey(db, 'scale-checkout', Date.now());
    const imported = await fetch(`${apis[0]!.url}/admin/import/delivery-methods`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-ndjson' },
      body: JSON.stringify({
        code: 'COURIER',
        kind: 'COURIER',
        names: { et: 'Kuller' },
        prices: [{ store: 'WEB', price: 5.9 }],
        daysMin: 1,
        daysMax: 2,
        position: 1,
      }),
    });
    expect(imported.status, await imported.text()).toBe(200);
    courierId = Number((await db.selectFrom('delivery_method').select('id').where('code', '=', 'COURIER').executeTakeFirstOrThrow()).id);
  }, 120_000);
  afterAll(() => deployment?.close(), 60_000);

  const both = () => [apis[0]!.url, apis[1]!.url];

  async function basket(): Promise<string> {
    const added = await call(apis[0]!.url, 'POST', '/basket/add-product', { body: { productId, quantity: 1 } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    return added.body.basketToken as string;
  }

  const form = (email: string) => checkoutFormWith(courierId, { shippingEmail: email, billingEmail: email });

  it('one basket checked out on both APIs at once makes one order', async () => {
    const token = await basket();
    const answers = await Promise.all(
      both().map((base) => call(base, 'POST', '/checkout', { body: form('double@example.ee'), headers: { 'basket-token': token } })),
    );
    const statuses = answers.map((r) => r.status);
    expect(
      statuses.every((s) => s < 500),
      JSON.stringify(answers.map((r) => r.body)),
    ).toBe(true);
    expect(statuses).toContain(200);
    const orders = await deployment.database.db.selectFrom('customer_order').select('id').execute();
    expect(orders).toHaveLength(1);
  });

  it('a paid order returned to both APIs at once is confirmed once: one mail', async () => {
    const email = 'paid-twice@example.ee';
    const token = await basket();
    const placed = await call(apis[0]!.url, 'POST', '/checkout', { body: form(email), headers: { 'basket-token': token } });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const location = new URL(placed.body.location as string);
    paidOrderId = Number(location.searchParams.get('orderId'));
    const created = await call(apis[1]!.url, 'GET', `${location.pathname}${location.search}`);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const page = new URL(created.body.url as string);
    const paid = await fetch(`${apis[0]!.url}${page.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    const back = new URL(paid.headers.get('location')!);
    const returns = await Promise.all(both().map((base) => fetch(`${base}${back.pathname}${back.search}`, { redirect: 'manual' })));
    expect(returns.map((r) => r.status)).toEqual([303, 303]);
    await deployment.smtp.waitFor((mail) => sentTo(mail, email), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(deployment.smtp.mails.filter((mail) => sentTo(mail, email)).map((mail) => mail.subject)).toHaveLength(1);
  });

  it('a refund sent to both APIs at once with one Idempotency-Key refunds once', async () => {
    const order = await deployment.database.db
      .selectFrom('customer_order')
      .select('code')
      .where('id', '=', paidOrderId)
      .executeTakeFirstOrThrow();
    const answers = await Promise.all(
      both().map((base) =>
        call(base, 'POST', `/admin/orders/${order.code}/refund`, {
          body: { amount: 5 },
          headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'refund-once-1' },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(
      statuses.every((s) => s === 200 || s === 409),
      JSON.stringify(answers.map((r) => r.body)),
    ).toBe(true);
    expect(answers.filter((r) => r.status === 200).map((r) => r.body.payment.refunded)).toEqual(
      answers.filter((r) => r.status === 200).map(() => 5),
    );
    const refunds = await deployment.database.db.selectFrom('order_refund').selectAll().execute();
    expect(refunds, JSON.stringify(refunds)).toHaveLength(1);
  });
});
