import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { fixedClock } from '../../src/infra/clock.js';
import { reminderTime } from '../../src/modules/orders/processing/pickup.service.js';
import { addDays, localTime } from '../../src/infra/shop-time.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutFormWith, fill, orderLink, setUpShop, stockedBook, type Shop } from './helpers.js';

// The pickup reminder goes the morning before the last day, unless that day has ended by the time its
// job runs. It read the system's time for that, not the app's clock as everything else does: with the
// clock a day before the last day (a test's, moved as the days would pass) it took the day for ended.

const DAY = 86_400_000;
// A year back: what the app queues by this clock is due for the worker at once.
const clock = fixedClock(Date.UTC(2025, 10, 3, 8));
let t: TestApp;
let smtp: SmtpCatcher;
let shop: Shop;
let key: string;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, TEST_GATEWAY: 'on' }, clock });
  shop = await setUpShop(t);
  key = await createApiKey(t.database.db, 'back-office', clock.now());
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

describe('the pickup reminder, by the app clock', () => {
  it('is sent the morning before the last day', async () => {
    const book = await stockedBook(t, shop, 3);
    const who = await fill(t, {}, [[book, 1]]);
    const form = checkoutFormWith(shop.methods.SHOP, {
      shopCode: 'TLN1',
      paymentMethodId: 'PAY_IN_SHOP',
      billingEmail: 'ootaja@example.ee',
    });
    const placed = await checkout(t, who, form);
    expect(placed.statusCode, placed.body).toBe(200);
    const { orderId, path } = orderLink(placed.json().location);
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    await t.drainJobs();
    const { code } = await t.database.db.selectFrom('customer_order').select('code').where('id', '=', orderId).executeTakeFirstOrThrow();

    const collectBy = addDays(localTime(clock.now()).date, 7);
    const ready = await t.app.inject({
      method: 'POST',
      url: `/admin/orders/${code}/ready-for-pickup`,
      headers: { authorization: `Bearer ${key}` },
      payload: { collectBy },
    });
    expect(ready.statusCode, ready.body).toBe(200);
    // Six days on: the reminder's morning, the last day still ahead.
    clock.set(reminderTime(collectBy) + 60_000);
    expect(clock.now()).toBeLessThan(Date.now() - DAY);
    await t.drainJobs();

    const reminder = await smtp.waitFor((mail) => mail.subject?.includes(code!) === true && mail.subject.includes('ootab teid kuni'));
    expect(reminder.subject).toContain(collectBy);
  });
});
