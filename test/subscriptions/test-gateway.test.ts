import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredGateways } from '../../src/modules/payments/index.js';
import { billDue, cardTokensFor } from '../../src/modules/subscriptions/index.js';
import { importLines } from '../basket/import-helpers.js';
import { createCustomer } from '../helpers/customers.js';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp } from '../orders/helpers.js';
import { PLAN_LINES, auth } from './helpers.js';

// Without EveryPay, cards are saved and charged through the test gateway (its page, real HTTP).

let t: TestApp;
let plans: Record<string, number>;
beforeAll(async () => {
  ({ t } = await createListeningApp());
  await importLines(t, 'subscription-plans', PLAN_LINES);
  const rows = await t.database.db.selectFrom('subscription_plan').select(['id', 'code']).execute();
  plans = Object.fromEntries(rows.map((row) => [row.code, Number(row.id)]));
});
afterAll(async () => t.close());

describe('subscriptions through the test gateway', () => {
  it('saves a card on its page, subscribes, renews, and mails', async () => {
    const customer = await createCustomer(t.database.db);
    const started = await t.app.inject({ method: 'POST', url: '/subscription-credit-card', headers: auth(customer) });
    expect(started.statusCode, started.body).toBe(200);
    const page = started.json().url as string;
    expect(page).toContain('/payment/test/pay/');
    expect(await (await fetch(page)).text()).toContain('0.00');
    const pressed = await fetch(page, {
      method: 'POST',
      body: new URLSearchParams({ action: 'pay' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(pressed.status).toBe(303);
    const back = await fetch(pressed.headers.get('location')!, { redirect: 'manual' });
    expect(back.headers.get('location')).toMatch(/saved=true/);
    const cards = (await t.app.inject({ method: 'GET', url: '/subscription-credit-card', headers: auth(customer) })).json();
    expect(cards).toMatchObject([{ brand: 'visa', lastFour: '4242', isDefault: true }]);

    // The same request twice at once (a double click): one subscription, both answered it (subscribe-twice.test.ts).
    const [a, b] = await Promise.all(
      [0, 1].map(() => t.app.inject({ method: 'POST', url: '/subscription', headers: auth(customer), payload: { planId: plans.SHELF5 } })),
    );
    expect([a!.statusCode, b!.statusCode]).toEqual([201, 201]);
    expect(b!.json().id).toBe(a!.json().id);
    const listed = (await t.app.inject({ method: 'GET', url: '/subscription', headers: auth(customer) })).json();
    expect(listed).toHaveLength(1);
    const sub = listed[0];
    expect(sub.status).toBe('ACTIVE');

    const gateways = configuredGateways({
      database: t.database,
      clock: { now: () => Date.now() },
      everypay: undefined,
      testGateway: true,
      publicUrl: t.config.orders.publicUrl,
      basePath: t.config.basePath,
    });
    const cardTokens = cardTokensFor({ databaseUrl: t.config.databaseUrl, cardTokenKeys: t.config.subscriptions.cardTokenKeys }, t.app.log);
    const report = await billDue(t.database.db, gateways, Date.parse(sub.currentPeriodEnd) + 1000, { cardTokens });
    expect(report.charged).toBe(1);
    const charged = await t.database.db
      .selectFrom('test_gateway_payment')
      .select(['order_reference', 'state'])
      .where('order_reference', 'like', `SUB${sub.id}-%`)
      .execute();
    expect(charged.map((p) => p.order_reference).sort()).toEqual([`SUB${sub.id}-1P1`, `SUB${sub.id}-2P1`]);

    await t.drainJobs();
    const mails = readdirSync(t.config.mail.dir).map((name) => readFileSync(join(t.config.mail.dir, name), 'utf8'));
    expect(mails.some((mail) => mail.includes('Riiul 5'))).toBe(true);
  });
});
