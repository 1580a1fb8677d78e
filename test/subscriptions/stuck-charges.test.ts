import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/infra/logger.js';
import { billDue } from '../../src/modules/subscriptions/index.js';
import {
  activeShelfSubscriber,
  callbackUrlOf,
  chargesOf,
  DAY,
  MIT_PATH,
  mitPayments,
  startSubscriptionShop,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';

// A renewal EveryPay took whose callback never comes stays pending: EveryPay cannot be asked by order
// reference, and the same request sent again is refused (its nonce was used). The billing run took the
// first 500 stale pending charges by id and changed nothing on them, so once 500 were stuck every run
// asked about the same ones (each sent again, hourly, for ever) and no later charge was reconciled.

const HOUR = 3_600_000;
let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());
// What a test left stuck must not take the next one's places in a run, nor be counted in its reports.
afterEach(async () => {
  s.everypay.setCallbackUrl(callbackUrlOf(s));
  s.everypay.breakApi(null);
  await s.t.database.db.updateTable('subscription_charge').set({ state: 'failed' }).where('state', '=', 'pending').execute();
});

/** What the billing runs warned about (and logged as errors: none is expected). */
const warnings: object[] = [];
const log = { warn: (details: object) => warnings.push(details), error: (details: object) => warnings.push(details) } as unknown as Pick<
  Logger,
  'warn' | 'error'
>;

/** A billing run at `now` that looks up at most two stale pending charges. */
const billTwo = (now: number) =>
  billDue(s.t.database.db, s.gateways, now, { cardTokens: s.cardTokens, concurrency: 1, reconcileBatch: 2, log });

/**
 * Two renewals EveryPay took at `due` whose answers and callbacks were lost (stuck), then a third whose
 * request never reached EveryPay (the gateway charges it when it is sent again). An hour later a run
 * with room for two looks up the stuck two (each sent again and refused) and leaves the third.
 */
async function twoStuckAndOneKnown() {
  const stuck = [await activeShelfSubscriber(s), await activeShelfSubscriber(s)];
  const known = await activeShelfSubscriber(s);
  const due = Math.max(...[...stuck, known].map((sub) => sub.end)) + 1000;
  const db = s.t.database.db;
  for (const sub of stuck) await db.updateTable('subscription').set({ period_end: due }).where('id', '=', sub.id).execute();
  await db
    .updateTable('subscription')
    .set({ period_end: due + 60_000 })
    .where('id', '=', known.id)
    .execute();
  s.everypay.setCallbackUrl(null);
  s.everypay.breakApi('lost-answer', 2, MIT_PATH);
  expect(await billTwo(due)).toMatchObject({ pending: 2 });
  s.everypay.breakApi({ status: 503 }, 1, MIT_PATH);
  expect(await billTwo(due + 60_000)).toMatchObject({ pending: 1, reconciled: 0 });
  s.everypay.breakApi(null);
  expect(await billTwo(due + HOUR)).toMatchObject({ reconciled: 0 });
  for (const sub of stuck) expect(mitPayments(s, sub.id)).toHaveLength(3);
  expect(s.everypay.paymentsFor(`SUB${known.id}-2P1`)).toHaveLength(0);
  return { stuck, known, due };
}

describe('charges the gateway cannot settle', () => {
  it('do not keep a later stale charge from its look-up: the least recently looked up go first', async () => {
    const { stuck, known, due } = await twoStuckAndOneKnown();
    // Every charge is due for a look-up again (an hour since the stuck two were asked); the batch holds two.
    const report = await billTwo(due + 2 * HOUR);
    expect(report.reconciled).toBe(1);
    expect(s.everypay.paymentsFor(`SUB${known.id}-2P1`)).toHaveLength(1);
    expect(await subscriptionRow(s, known.id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    // The second place went to the stuck charge looked up longest ago (the first, by id at a tie).
    expect(mitPayments(s, stuck[0]!.id)).toHaveLength(4);
    expect(mitPayments(s, stuck[1]!.id)).toHaveLength(3);
    for (const sub of stuck) expect((await chargesOf(s, sub.id)).at(-1)).toMatchObject({ state: 'pending', period_number: 2 });
  });

  it('are asked about again hourly in their first day, then daily, and counted stuck after a day', async () => {
    const { stuck, due } = await twoStuckAndOneKnown();
    const asked = () => stuck.map((sub) => mitPayments(s, sub.id).length);
    expect(asked()).toEqual([3, 3]);
    // Ten minutes after their look-up nothing is sent (the third charge takes a place); an hour after, each is sent again.
    expect(await billTwo(due + HOUR + 10 * 60_000)).toMatchObject({ reconciled: 1, stuck: 0 });
    expect(asked()).toEqual([3, 3]);
    await billTwo(due + 2 * HOUR);
    expect(asked()).toEqual([4, 4]);
    expect(warnings).toEqual([]);
    // A day old: reported (and warned about), and looked up once a day (a day after the last look-up, then not two hours later).
    expect(await billTwo(due + DAY + 2 * HOUR)).toMatchObject({ stuck: 2 });
    expect(warnings).toEqual([{ stuck: 2 }]);
    expect(asked()).toEqual([5, 5]);
    await billTwo(due + DAY + 4 * HOUR);
    expect(asked()).toEqual([5, 5]);
    expect(await billTwo(due + 2 * DAY + 2 * HOUR)).toMatchObject({ stuck: 2 });
    expect(asked()).toEqual([6, 6]);
  });
});
