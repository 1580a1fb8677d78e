import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { addDays, localTime } from '../../src/infra/shop-time.js';
import { codeKey, displayCode, generateCode, normaliseCode } from '../../src/modules/gift-cards/gift-card-code.js';
import { importLines } from '../basket/import-helpers.js';
import type { TestApp } from '../helpers/test-app.js';

// Gift cards for the tests: imported over the back office's import as the shop gets them, and
// their ledgers read back (balance, the entries' sums, the holds) to check that money adds up.

/** A new code as printed on a card (groups of four, the check character last). */
export const newCode = () => displayCode(generateCode());

/**
 * The shop's calendar date `days` from today, as the service reads delivery and expiry dates (Europe/Tallinn):
 * the UTC date is the day before from 22:00 or 21:00 UTC, when a card for "today" was refused as in the past.
 */
export const dateIn = (days: number) => addDays(localTime(Date.now()).date, days);

/** Imports physical cards (`balance` in euros, expiring in a year unless told). */
export async function importCards(t: TestApp, cards: Array<{ code: string; balance: number; expiresAt?: string }>) {
  const response = await importLines(
    t,
    'gift-cards',
    cards.map((card) => ({ expiresAt: dateIn(365), ...card })),
  );
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** One new card with `balance` euros: its code. */
export async function card(t: TestApp, balance: number, expiresAt?: string): Promise<string> {
  const code = newCode();
  await importCards(t, [{ code, balance, ...(expiresAt ? { expiresAt } : {}) }]);
  return code;
}

/** The card's row id, found as the service finds it (the HMAC of the normalised code). */
export async function cardId(db: Db, code: string): Promise<number> {
  const hmac = (await codeKey(db, Date.now())).hmac(normaliseCode(code));
  return Number((await db.selectFrom('gift_card').select('id').where('code_hmac', '=', hmac).executeTakeFirstOrThrow()).id);
}

export async function setExpiry(db: Db, code: string, expiresAt: number): Promise<void> {
  await db
    .updateTable('gift_card')
    .set({ expires_at: expiresAt })
    .where('id', '=', await cardId(db, code))
    .execute();
}

export interface Ledger {
  balanceCents: number;
  /** Sum of the entries' amount_cents: must equal balanceCents. */
  entrySumCents: number;
  /** Sum of the entries' held_cents: what is held for unpaid orders. */
  heldCents: number;
  kinds: string[];
  holds: Array<{ orderId: number; cents: number; state: string }>;
}

export async function ledger(db: Db, code: string): Promise<Ledger> {
  const hmac = (await codeKey(db, Date.now())).hmac(normaliseCode(code));
  const row = await db.selectFrom('gift_card').select(['id', 'balance_cents']).where('code_hmac', '=', hmac).executeTakeFirstOrThrow();
  const entries = await db
    .selectFrom('gift_card_entry')
    .select(['kind', 'amount_cents', 'held_cents'])
    .where('gift_card_id', '=', row.id)
    .orderBy('id')
    .execute();
  const holds = await db
    .selectFrom('gift_card_hold')
    .select(['order_id', 'amount_cents', 'state'])
    .where('gift_card_id', '=', row.id)
    .orderBy('order_id')
    .execute();
  return {
    balanceCents: Number(row.balance_cents),
    entrySumCents: entries.reduce((sum, entry) => sum + Number(entry.amount_cents), 0),
    heldCents: entries.reduce((sum, entry) => sum + Number(entry.held_cents), 0),
    kinds: entries.map((entry) => entry.kind),
    holds: holds.map((hold) => ({ orderId: Number(hold.order_id), cents: Number(hold.amount_cents), state: hold.state })),
  };
}

export function balance(t: TestApp, code: string, ip = '198.51.100.7') {
  return t.app.inject({ method: 'GET', url: `/virtual-gift-card/balance?code=${encodeURIComponent(code)}`, remoteAddress: ip });
}
