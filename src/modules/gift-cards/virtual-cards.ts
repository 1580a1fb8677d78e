import { Type, type Static } from '@sinclair/typebox';
import { normaliseEmail } from '../../infra/email-address.js';
import type { Db } from '../../db/database.js';
import { formatEuros, type Language } from '../../i18n/index.js';
import { MultilineText, TextLine } from '../../http/text.js';
import { invalidField } from '../../infra/domain-error.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { addDays, endOfLocalDay, localTime } from '../../infra/shop-time.js';
import { captureOrder, giveBackOrder, voidCard } from './gift-card-ledger.js';

// Virtual gift cards bought in the shop: what a basket line of a VIRTUAL_GIFT_CARD product says
// (the amount is its price), its copy on the order at checkout, and the job queued with the paid
// transition that issues the cards (gift-cards.jobs.ts).

export const VirtualGiftCardInput = Type.Object(
  {
    amount: Type.Number({
      minimum: 0,
      maximum: 100_000,
      description: 'Euros, two decimals, within the store’s range (virtualGiftCardAmount of GET /app/config)',
    }),
    recipientName: TextLine({ minLength: 1, maxLength: 200 }),
    recipientEmail: Type.String({ format: 'email', maxLength: 254 }),
    message: Type.Optional(MultilineText({ maxLength: 1000 })),
    senderName: Type.Optional(
      TextLine({
        maxLength: 200,
        description: "Who the card is from, as the recipient's mail names them; the store when left out or empty",
      }),
    ),
    deliveryDate: Type.String({
      format: 'date',
      description: 'The day the card is mailed to the recipient: today to a year ahead, days in Tallinn',
    }),
  },
  { additionalProperties: false, description: 'Required for a VIRTUAL_GIFT_CARD product, refused for any other' },
);
export type VirtualGiftCardInput = Static<typeof VirtualGiftCardInput>;

/** The amounts a store sells virtual cards for, in cents. */
const VIRTUAL_CARD_RANGE: Record<string, { minCents: number; maxCents: number }> = {
  WEB: { minCents: 1_000, maxCents: 50_000 },
  WEB2: { minCents: 1_000, maxCents: 50_000 },
};

/** The amounts `storeCode` sells virtual cards for, in cents: what checkVirtualCard accepts and GET /app/config tells. */
export const virtualCardRange = (storeCode: string) => VIRTUAL_CARD_RANGE[storeCode] ?? VIRTUAL_CARD_RANGE.WEB!;
/** The mail goes out at 06:00 UTC (08:00 or 09:00 in Tallinn) of the delivery date. */
const DELIVERY_HOUR_MS = 6 * 3_600_000;
/** A year, in days: how far ahead a card may be delivered, and how long it is valid from its delivery date. */
const YEAR_DAYS = 365;
export const GIFT_CARD_ISSUE_JOB = 'gift-card.issue';

export interface VirtualCardLine {
  amountCents: number;
  recipientName: string;
  recipientEmail: string;
  message: string;
  /** '' when the buyer gave none: the mail then says the store. */
  senderName: string;
  deliverOn: string;
}

export const deliverAt = (deliverOn: string) => Date.parse(`${deliverOn}T00:00:00Z`) + DELIVERY_HOUR_MS;

/**
 * The (exclusive) end of a card delivered at `delivered`: the end in Tallinn of the day a year after its
 * delivery date, as a physical card's date ends (gift-cards.import.ts). Its mail names that day as the one
 * it is valid until; ended a year after the delivery hour, it stopped at 08:00 or 09:00 of the day named.
 */
export const virtualCardEnd = (delivered: number) => endOfLocalDay(addDays(localTime(delivered).date, YEAR_DAYS));

/**
 * The days a card bought at `now` may be delivered on: from today to a year ahead, days in Tallinn (in
 * UTC, today was still yesterday there for two or three hours after midnight).
 */
export function deliveryDays(now: number): { from: string; to: string } {
  const today = localTime(now).date;
  return { from: today, to: addDays(today, YEAR_DAYS) };
}

/**
 * The line's details as the rules want them; a 422 naming the field otherwise, with the store's amounts
 * written as the caller's language writes money.
 */
export function checkVirtualCard(
  input: VirtualGiftCardInput,
  caller: { storeCode: string; language: Language },
  now: number,
): VirtualCardLine {
  const range = virtualCardRange(caller.storeCode);
  const amountCents = Math.round(input.amount * 100);
  if (Math.abs(amountCents - input.amount * 100) > 1e-6 || amountCents < range.minCents || amountCents > range.maxCents)
    throw invalidField('giftCard.amount', 'giftCards.amountRange', {
      min: formatEuros(range.minCents, caller.language),
      max: formatEuros(range.maxCents, caller.language),
    });
  const days = deliveryDays(now);
  if (Number.isNaN(Date.parse(input.deliveryDate)) || input.deliveryDate < days.from || input.deliveryDate > days.to)
    throw invalidField('giftCard.deliveryDate', 'giftCards.deliveryDate', days);
  return {
    amountCents,
    recipientName: input.recipientName.trim(),
    recipientEmail: normaliseEmail(input.recipientEmail),
    message: (input.message ?? '').trim(),
    senderName: (input.senderName ?? '').trim(),
    deliverOn: input.deliveryDate,
  };
}

export async function saveVirtualCardLine(trx: Db, basketId: number, productId: number, line: VirtualCardLine): Promise<void> {
  const values = {
    amount_cents: line.amountCents,
    recipient_name: line.recipientName,
    recipient_email: line.recipientEmail,
    message: line.message,
    sender_name: line.senderName,
    deliver_on: line.deliverOn,
  };
  await trx
    .insertInto('basket_virtual_gift_card')
    .values({ basket_id: basketId, product_id: productId, ...values })
    .onConflict((oc) => oc.columns(['basket_id', 'product_id']).doUpdateSet(values))
    .execute();
}

/** The basket's virtual card lines by product. */
export async function virtualCardLines(db: Db, basketId: number): Promise<Map<number, VirtualCardLine>> {
  const rows = await db.selectFrom('basket_virtual_gift_card').selectAll().where('basket_id', '=', basketId).execute();
  return new Map(
    rows.map((row) => [
      Number(row.product_id),
      {
        amountCents: Number(row.amount_cents),
        recipientName: row.recipient_name,
        recipientEmail: row.recipient_email,
        message: row.message,
        senderName: row.sender_name,
        deliverOn: row.deliver_on,
      },
    ]),
  );
}

/**
 * Takes the basket's virtual card details away: all of them, or the one of `productId` when its line
 * leaves the basket (details left behind would become a merged-in guest line's amount and recipient).
 */
export async function clearVirtualCardLines(trx: Db, basketId: number, productId?: number): Promise<void> {
  let query = trx.deleteFrom('basket_virtual_gift_card').where('basket_id', '=', basketId);
  if (productId !== undefined) query = query.where('product_id', '=', productId);
  await query.execute();
}

/** Checkout: the order's virtual card lines, by the order line's position. */
export async function recordPurchases(
  trx: Db,
  orderId: number,
  buyer: { clientAccountId: number | null; email: string; storeCode: string; language: string },
  lines: ReadonlyArray<{ position: number; card: VirtualCardLine }>,
  now: number,
): Promise<void> {
  if (lines.length === 0) return;
  await trx
    .insertInto('virtual_gift_card_purchase')
    .values(
      lines.map(({ position, card }) => ({
        order_id: orderId,
        position,
        amount_cents: card.amountCents,
        recipient_name: card.recipientName,
        recipient_email: card.recipientEmail,
        message: card.message,
        sender_name: card.senderName,
        deliver_at: deliverAt(card.deliverOn),
        buyer_client_account_id: buyer.clientAccountId,
        buyer_email: buyer.email,
        store_code: buyer.storeCode,
        language: buyer.language,
        gift_card_id: null,
        cancelled_at: null,
        created_at: now,
      })),
    )
    .execute();
}

/**
 * The order is paid (moveOrder, in the transition's transaction): the cards that pay for it are
 * taken, and the cards it bought are queued for issuing.
 */
export async function onOrderPaid(trx: Db, orderId: number, now: number): Promise<void> {
  await captureOrder(trx, orderId, now);
  // Paid after all (a late settle): cards not issued yet are wanted again.
  await trx
    .updateTable('virtual_gift_card_purchase')
    .set({ cancelled_at: null })
    .where('order_id', '=', orderId)
    .where('gift_card_id', 'is', null)
    .execute();
  const bought = await trx
    .selectFrom('virtual_gift_card_purchase')
    .select('position')
    .where('order_id', '=', orderId)
    .where('gift_card_id', 'is', null)
    .executeTakeFirst();
  if (bought) await enqueueJob(trx, { type: GIFT_CARD_ISSUE_JOB, payload: { orderId } }, { maxAttempts: 10, now });
}

/**
 * How many of the cards the order bought were issued and then voided when it was given up: a revived
 * order cannot have them back as they were (their value came off and they expired), so the back
 * office's report of a FAILED order that bought them does not revive it (orders' status report).
 */
export async function voidedBoughtCards(trx: Db, orderId: number): Promise<number> {
  const row = await trx
    .selectFrom('virtual_gift_card_purchase')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('order_id', '=', orderId)
    .where('gift_card_id', 'is not', null)
    .where('cancelled_at', 'is not', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The order is given up or its money goes back (moveOrder, in the transition's transaction): the
 * cards that paid for it get their shares back, the cards it bought are not issued, and those
 * issued are voided (what is left on them is taken off with a VOID entry; they expire now, so
 * their delivery mail is not sent).
 */
export async function onOrderGivenUp(trx: Db, orderId: number, now: number): Promise<void> {
  await giveBackOrder(trx, orderId, now);
  const bought = await trx
    .selectFrom('virtual_gift_card_purchase')
    .select('gift_card_id')
    .where('order_id', '=', orderId)
    .where('cancelled_at', 'is', null)
    .execute();
  if (bought.length === 0) return;
  await trx.updateTable('virtual_gift_card_purchase').set({ cancelled_at: now }).where('order_id', '=', orderId).execute();
  for (const { gift_card_id: cardId } of bought) if (cardId !== null) await voidCard(trx, Number(cardId), orderId, now);
}
