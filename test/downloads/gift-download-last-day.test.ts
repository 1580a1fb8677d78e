import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { endOfLocalDay, localTime } from '../../src/infra/shop-time.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, type Shop } from '../orders/helpers.js';
import { ebook, payOnTestGateway, productCode } from '../orders/purchase-helpers.js';

// The receiver's mail says until which day their key to the e-books works. The key ended at the time of day
// the order was processed, so on that last day, after that hour, the page said it "ended on" the very day the
// mail promised: it now works to the end of the day the mail names (the shop's day, as gift cards' do).

// A year back: what the app queues by this clock is due for the worker at once.
const clock = fixedClock(Date.now() - 366 * 86_400_000);
let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;
let fileDir: string;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-files-'));
  ({ t } = await createListeningApp({ env: { SMTP_URL: smtp.url, FILE_STORE_DIR: fileDir, GIFT_DOWNLOAD_TTL: '365d' }, clock }));
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  if (fileDir) rmSync(fileDir, { recursive: true, force: true });
});

describe("the receiver's key to e-books bought for them", () => {
  it('works all through the last day its mail names', async () => {
    const operatorKey = await createApiKey(t.database.db, 'files', clock.now());
    const productId = await ebook(t, 9);
    const uploaded = await t.app.inject({
      method: 'PUT',
      url: `/admin/product-files/${await productCode(t.database.db, productId)}/EPUB`,
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/octet-stream' },
      payload: randomBytes(100),
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const who = await fill(t, {}, [[productId, 1]]);
    const form = checkoutForm(shop, { deliveryMethodId: undefined, shippingName: 'Jaan Tamm', shippingEmail: 'jaan@example.ee' });
    const placed = await checkout(t, who, form, { 'x-app-language': 'en' });
    expect(placed.statusCode, placed.body).toBe(200);
    const link = orderLink(placed.json().location);
    await payOnTestGateway(t, link.path);
    await t.drainJobs();
    const { code } = await t.database.db
      .selectFrom('customer_order')
      .select('code')
      .where('id', '=', link.orderId)
      .executeTakeFirstOrThrow();
    const mail = await smtp.waitFor((m) => m.subject?.includes(code!) === true && JSON.stringify(m.to).includes('jaan@example.ee'));
    const key = /\/gift-downloads\?key=([^&\s]+)&/.exec(mail.text ?? '')![1]!;
    const until = /until (\d{4}-\d{2}-\d{2})/.exec(mail.text ?? '')![1]!;
    const { created_at } = await t.database.db
      .selectFrom('order_gift_download')
      .select('created_at')
      .where('order_id', '=', link.orderId)
      .executeTakeFirstOrThrow();
    const yearOn = Number(created_at) + 365 * 86_400_000;
    expect(until).toBe(localTime(yearOn).date);

    // A minute before the end of the day the mail names, past the time of day the order was processed.
    clock.set(endOfLocalDay(until) - 60_000);
    expect(clock.now()).toBeGreaterThan(yearOn);
    const onLastDay = await t.app.inject({ method: 'GET', url: `/gift-download/${key}`, headers: { 'x-app-language': 'en' } });
    expect(onLastDay.statusCode, onLastDay.body).toBe(200);
    // The next day it has ended, on the day the mail named.
    clock.set(endOfLocalDay(until));
    const after = await t.app.inject({ method: 'GET', url: `/gift-download/${key}`, headers: { 'x-app-language': 'en' } });
    expect(after.statusCode, after.body).toBe(403);
    expect(after.json().message).toContain(`ended on ${until}`);
  });
});
