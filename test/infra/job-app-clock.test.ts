import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { localTime } from '../../src/infra/shop-time.js';
import { createProduct } from '../helpers/catalogue.js';
import type { TestApp } from '../helpers/test-app.js';
import { paidCardOrder } from '../gift-cards/paid-card-order.js';
import { createListeningApp, setUpShop, type Shop } from '../orders/helpers.js';

// The job worker claimed due jobs by the system's time while the app queued them by its clock: under a
// clock ahead of the system's (a month), the jobs a checkout queued for "now" never came due and the order
// was never processed; under a clock behind, a mail queued for a later day went out at once. The worker
// runs by the clock the app runs by.

const DAY_MS = 86_400_000;
const clock = fixedClock(Date.now());
let t: TestApp;
let shop: Shop;
let voucher: number;
beforeAll(async () => {
  ({ t } = await createListeningApp({ env: { CHECKOUT_RATE_LIMIT_PER_IP: '100000/1m' }, clock }));
  shop = await setUpShop(t);
  voucher = await createProduct(t.database.db, { type: 'VIRTUAL_GIFT_CARD', name: 'Kinkekaart', price: 10, vatRate: 0 });
});
afterAll(async () => {
  await t?.close();
});

const cardOf = (orderId: number) =>
  t.database.db.selectFrom('gift_card').select(['id', 'created_at', 'mailed_at']).where('order_id', '=', orderId).executeTakeFirst();
const recipientMailJob = async (cardId: number) => {
  const jobs = await t.database.db.selectFrom('job').select(['status', 'run_at', 'payload']).where('type', '=', 'gift-card.mail').execute();
  return jobs.find((job) => {
    const payload = JSON.parse(job.payload) as { cardId: number; to: string };
    return payload.cardId === cardId && payload.to === 'recipient';
  });
};

describe('the job worker, by the app clock', () => {
  it('runs the jobs an action queued "now" under a clock a month ahead of the system', async () => {
    clock.set(Date.now() + 30 * DAY_MS);
    const giftCard = {
      amount: 25,
      recipientName: 'Mari Maasikas',
      recipientEmail: 'mari.ette@example.ee',
      deliveryDate: localTime(clock.now()).date,
    };
    const { orderId, order } = await paidCardOrder(t, shop, voucher, giftCard, clock.now());
    await t.drainJobs();

    // Processed, and handed to the back office by its job.
    expect((await order()).status).toBe('PENDING_NAV_PROCESSING');
    const card = await cardOf(orderId);
    expect(Number(card?.created_at)).toBe(clock.now());
    expect(Number(card?.mailed_at)).toBe(clock.now());
  });

  it('keeps a job queued for a later day until the app clock reaches it, under a clock a month behind', async () => {
    clock.set(Date.now() - 30 * DAY_MS);
    const deliveryDate = localTime(clock.now() + 3 * DAY_MS).date;
    const giftCard = { amount: 25, recipientName: 'Mari Maasikas', recipientEmail: 'mari.taga@example.ee', deliveryDate };
    const { orderId } = await paidCardOrder(t, shop, voucher, giftCard, clock.now());
    await t.drainJobs();

    const card = (await cardOf(orderId))!;
    expect(Number(card.created_at)).toBe(clock.now());
    expect(card.mailed_at).toBeNull();
    expect((await recipientMailJob(Number(card.id)))?.status).toBe('pending');

    clock.advance(4 * DAY_MS);
    await t.drainJobs();
    expect((await recipientMailJob(Number(card.id)))?.status).toBe('done');
    expect(Number((await cardOf(orderId))?.mailed_at)).toBe(clock.now());
  });
});
