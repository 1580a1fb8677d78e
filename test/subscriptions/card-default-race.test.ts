import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RESUBMIT_WINDOW_MS } from '../../src/infra/resubmit.js';
import type { TestCustomer } from '../helpers/customers.js';
import { engine } from '../helpers/test-app.js';
import { call, createCustomer, saveCard, startSubscriptionShop, type SubscriptionShop } from './helpers.js';
import { lockWaiters, until, withTableHeld } from '../helpers/lock-waits.js';

// A client has one default card, whatever of its cards is confirmed, removed or made the default at
// once: each of them decides the default under the client account's lock. Forced on PostgreSQL as
// card-double-submit.test.ts forces two starts: the card table is held until both requests wait on
// a lock (without the client's lock both have read the other cards by then), then released. SQLite
// runs one write transaction at a time; there the two just run at once.

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());
afterEach(async () => {
  // A test that failed half-way may have left callbacks held.
  await s.everypay.releaseCallbacks();
  await s.everypay.callbacksIdle();
});

type Form = { url: string; method: string; fields: Record<string, string> };

/** Starts saving a card; a pending card started earlier is aged past the resubmit window, so this is a second card, not a repeat. */
async function startCard(customer: TestCustomer): Promise<Form> {
  await s.t.database.db
    .updateTable('subscription_card')
    .set({ created_at: Date.now() - RESUBMIT_WINDOW_MS - 1000 })
    .where('client_account_id', '=', customer.clientAccountId)
    .where('state', '=', 'PENDING')
    .execute();
  const started = await call(s, customer, 'POST', '/subscription-credit-card');
  expect(started.statusCode, started.body).toBe(200);
  return started.json() as Form;
}

/** The shopper pays on EveryPay's page (its callback held): the browser's way back to the shop, not yet followed. */
const paid = (form: Form) => s.everypay.shopper(form.fields.payment_reference!, 'pay');

/** The browser back at the shop: the card's payment is looked up and applied. */
async function comeBack(back: string): Promise<number> {
  const response = await fetch(back, { redirect: 'manual' });
  return response.status;
}

const cardRows = (customer: TestCustomer) =>
  s.t.database.db
    .selectFrom('subscription_card')
    .select(['id', 'state', 'is_default'])
    .where('client_account_id', '=', customer.clientAccountId)
    .orderBy('id')
    .execute();

const listed = async (customer: TestCustomer) => {
  const response = await call(s, customer, 'GET', '/subscription-credit-card');
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id: number; isDefault: boolean }[];
};

describe('the default card, with cards confirmed at once', () => {
  it('two pending cards of a client with none saved, confirmed at once (PostgreSQL: both past their look-up): exactly one is the default', async () => {
    const customer = await createCustomer(s.t.database.db);
    const first = await startCard(customer);
    const second = await startCard(customer);
    expect((await cardRows(customer)).map((row) => row.state)).toEqual(['PENDING', 'PENDING']);
    s.everypay.holdCallbacks();
    const backs = [await paid(first), await paid(second)];
    const statuses = await withTableHeld(s.t.database.db, 'subscription_card', () => Promise.all(backs.map(comeBack)));
    expect(statuses).toEqual([303, 303]);
    const cards = await listed(customer);
    expect(cards).toHaveLength(2);
    expect(cards.filter((card) => card.isDefault)).toHaveLength(1);
    // EveryPay's callbacks, applied after, change nothing.
    await s.everypay.releaseCallbacks();
    await s.everypay.callbacksIdle();
    expect(await listed(customer)).toEqual(cards);
  });

  it('DELETE of the default card while another card is confirmed (PostgreSQL: both past their look-up): the card left is the default', async () => {
    const customer = await createCustomer(s.t.database.db);
    const saved = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    expect(await listed(customer)).toMatchObject([{ id: saved, isDefault: true }]);
    const pending = await startCard(customer);
    s.everypay.holdCallbacks();
    const back = await paid(pending);
    const [removed, returned] = await withTableHeld(s.t.database.db, 'subscription_card', () =>
      Promise.all([call(s, customer, 'DELETE', `/subscription-credit-card/${saved}`), comeBack(back)]),
    );
    expect(removed.statusCode, removed.body).toBe(204);
    expect(returned).toBe(303);
    const cards = await listed(customer);
    expect(cards).toEqual([expect.objectContaining({ isDefault: true })]);
    expect(cards[0]!.id).not.toBe(saved);
    await s.everypay.releaseCallbacks();
    await s.everypay.callbacksIdle();
    expect(await listed(customer)).toEqual(cards);
  });

  it('PUT .../default of a saved card while another is confirmed, the client having no default (PostgreSQL: the confirm past its look-up first): one default', async () => {
    const customer = await createCustomer(s.t.database.db);
    const other = await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    // A saved card that is not the default, the client having none (no request leaves a client so
    // any more: a pruned default card hands over to the newest usable one; written here).
    await s.t.database.db.updateTable('subscription_card').set({ is_default: false }).where('id', '=', other).execute();
    expect(await listed(customer)).toEqual([expect.objectContaining({ id: other, isDefault: false })]);
    const pending = await startCard(customer);
    const [row] = (await cardRows(customer)).filter((card) => card.state === 'PENDING');
    s.everypay.holdCallbacks();
    const back = await paid(pending);
    const makeDefault = () => call(s, customer, 'PUT', `/subscription-credit-card/${other}/default`);
    let answers!: [number, { statusCode: number; body: string }];
    if (engine !== 'postgres') answers = await Promise.all([comeBack(back), makeDefault()]);
    else {
      let made: { statusCode: number; body: string } | undefined;
      let returned: number | undefined;
      await s.t.database.db.transaction().execute(async (trx) => {
        // The confirm's write of its card waits here, after it read the client's cards (no default);
        // the PUT then makes the other card the default unless the client's lock keeps it waiting.
        await sql`select id from subscription_card where id = ${row!.id} for update`.execute(trx);
        void comeBack(back).then((status) => (returned = status));
        await until('the confirm to wait', async () => (await lockWaiters(s.t.database.db)) >= 1);
        void makeDefault().then((response) => (made = response));
        await until('the PUT to wait or end', async () => made !== undefined || (await lockWaiters(s.t.database.db)) >= 2);
      });
      await until('both answers', () => made !== undefined && returned !== undefined);
      answers = [returned!, made!];
    }
    const [returned, made] = answers;
    expect(returned).toBe(303);
    expect(made.statusCode, made.body).toBe(200);
    const cards = await listed(customer);
    expect(cards).toHaveLength(2);
    expect(cards.filter((card) => card.isDefault)).toHaveLength(1);
  });
});
