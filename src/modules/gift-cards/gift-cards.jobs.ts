import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { causeOfType, PermanentJobFailure, RefusedForGood } from '../../infra/jobs/refused-for-good.js';
import { isErasedEmail } from '../../infra/personal-data.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { findStoreContact } from '../contact/index.js';
import { getStore } from '../store/index.js';
import { createCard } from './gift-card-ledger.js';
import { codeHint, codeKey, displayCode, generateCode } from './gift-card-code.js';
import { buyerMail, recipientMail, undeliverableMail } from './gift-cards.mails.js';
import { GIFT_CARD_ISSUE_JOB, virtualCardEnd } from './virtual-cards.js';

// The virtual cards' jobs. Issuing (queued with the order's paid transition) makes each bought
// card with its balance, expiry and ISSUE entry, tells the buyer, and queues the recipient's mail
// for the delivery date, all in one transaction per card (a repeat finds the card made and skips
// it). The card's code is minted only by the recipient's mail, just before it is sent, and kept
// as its HMAC: no code waits in the database or the outbox. A mail that failed after the server
// took it is sent again with a new code (the first one no longer works); the card is marked
// mailed once a mail went out.

export { GIFT_CARD_ISSUE_JOB };
export const GIFT_CARD_MAIL_JOB = 'gift-card.mail';
const MAIL_ATTEMPTS = 8;

export function giftCardIssueHandler(deps: { db: Kysely<Database>; clock?: Clock }): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async ({ orderId }: { orderId: number }) => {
    const at = clock.now();
    const purchases = await deps.db
      .selectFrom('virtual_gift_card_purchase')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('gift_card_id', 'is', null)
      .where('cancelled_at', 'is', null)
      .orderBy('position')
      .execute();
    let issued = 0;
    for (const purchase of purchases) {
      await deps.db.transaction().execute(async (trx) => {
        // The order's row first, as every status change of the order takes it (orders' order-states.ts)
        // before it writes the purchases: taken after the purchase's row (the card's insert takes a
        // key-share lock on the order), a refund or cancellation that had locked the order and then
        // waited for the purchase deadlocked with this on PostgreSQL, and one of them failed (a refund a 500).
        await lockRowsOnPostgres(trx, trx.selectFrom('customer_order').select('id').where('id', '=', orderId), 'no key update');
        // Still to issue, read again under its row's lock (a no-op update): the list above was read
        // before this transaction, and a refund or cancel may have given the order up since.
        const still = await trx
          .updateTable('virtual_gift_card_purchase')
          .set((eb) => ({ position: eb.ref('position') }))
          .where('order_id', '=', orderId)
          .where('position', '=', purchase.position)
          .where('gift_card_id', 'is', null)
          .where('cancelled_at', 'is', null)
          .executeTakeFirst();
        if (Number(still.numUpdatedRows) === 0) return;
        const claimed = await trx
          .selectFrom('gift_card')
          .select('id')
          .where('order_id', '=', orderId)
          .where('order_position', '=', purchase.position)
          .executeTakeFirst();
        if (claimed) return;
        const deliverAt = Number(purchase.deliver_at);
        const cardId = await createCard(
          trx,
          {
            // A placeholder that no HMAC equals (64 hex digits) until the code is minted.
            code_hmac: `pending:${randomBytes(16).toString('hex')}`,
            code_hint: '',
            kind: 'VIRTUAL',
            initial_cents: Number(purchase.amount_cents),
            expires_at: virtualCardEnd(deliverAt),
            order_id: orderId,
            order_position: purchase.position,
            buyer_client_account_id: purchase.buyer_client_account_id,
            recipient_name: purchase.recipient_name,
            recipient_email: purchase.recipient_email,
            message: purchase.message,
            sender_name: purchase.sender_name,
            store_code: purchase.store_code,
            language: purchase.language,
            deliver_at: deliverAt,
            mailed_at: null,
          },
          'ISSUE',
          at,
        );
        await trx
          .updateTable('virtual_gift_card_purchase')
          .set({ gift_card_id: cardId })
          .where('order_id', '=', orderId)
          .where('position', '=', purchase.position)
          .execute();
        const mail = (to: 'buyer' | 'recipient', runAt: number) =>
          enqueueJob(trx, { type: GIFT_CARD_MAIL_JOB, payload: { cardId, to }, runAt }, { maxAttempts: MAIL_ATTEMPTS, now: at });
        await mail('buyer', at);
        await mail('recipient', Math.max(at, deliverAt));
        issued += 1;
      });
    }
    return `issued ${issued}`;
  };
}

/**
 * A card's mail: to its buyer when issued, to its recipient on the delivery date, to its buyer when
 * the recipient's address turned out not to exist. A recipient's or refusal's job names the sending
 * of the card it is for (`delivery`: 0 when issued, one more for each `gift-card redeliver`), so that
 * a job left from an earlier one (an operator's `jobs retry` of the refused job) sends nothing, even
 * to the same address: the card would go out twice, and only the second code would work.
 */
export function giftCardMailHandler(deps: { db: Kysely<Database>; mailer: Mailer; clock?: Clock }): JobHandler {
  const clock = deps.clock ?? systemClock;
  return async ({ cardId, to, delivery = 0 }: { cardId: number; to: 'buyer' | 'recipient' | 'buyer-undeliverable'; delivery?: number }) => {
    const at = clock.now();
    const card = await deps.db
      .selectFrom('gift_card')
      .innerJoin('virtual_gift_card_purchase', 'virtual_gift_card_purchase.gift_card_id', 'gift_card.id')
      .select([
        'gift_card.id',
        'gift_card.initial_cents',
        'gift_card.balance_cents',
        'gift_card.expires_at',
        'gift_card.deliver_at',
        'gift_card.mailed_at',
        'gift_card.undeliverable_at',
        'gift_card.delivery',
        'gift_card.recipient_name',
        'gift_card.recipient_email',
        'gift_card.message',
        'gift_card.sender_name',
        'gift_card.language',
        'gift_card.store_code',
        'virtual_gift_card_purchase.buyer_email',
      ])
      .where('gift_card.id', '=', cardId)
      .executeTakeFirst();
    if (!card) return 'skipped';
    const store = await getStore(deps.db, card.store_code ?? 'WEB');
    const storeName = store?.name ?? card.store_code ?? '';
    const details = {
      amountCents: Number(card.initial_cents),
      expiresAt: Number(card.expires_at),
      deliverAt: Number(card.deliver_at),
      recipientName: card.recipient_name ?? '',
      message: card.message ?? '',
      senderName: card.sender_name,
      language: card.language ?? 'et',
      storeName,
    };
    if (to === 'buyer') {
      // Voided with its order (its date moved to the void's time) before this went: nothing is on its way.
      if (Number(card.expires_at) <= at) return 'skipped';
      await deps.mailer.send({ to: card.buyer_email, ...buyerMail(details) });
      return 'sent';
    }
    // Mailed already, or voided with its order; or this job's sending is not the card's now.
    if (card.mailed_at !== null || Number(card.expires_at) <= at || Number(card.delivery) !== delivery) return 'skipped';
    const recipientEmail = card.recipient_email ?? '';
    if (to === 'buyer-undeliverable') {
      if (card.undeliverable_at === null) return 'skipped';
      // It asks the buyer to answer with the right address: the answer goes to the store's office.
      const office = await findStoreContact(deps.db, card.store_code ?? 'WEB');
      // It names what the card holds, as the recipient's mail did (and a redelivery will): a refund of the
      // order may have taken part of it off, and "its value is safe" of the sum bought promised money not on it.
      await deps.mailer.send({
        to: card.buyer_email,
        ...(office.email === null ? {} : { replyTo: office.email }),
        ...undeliverableMail({ ...details, amountCents: Number(card.balance_cents), recipientEmail }),
      });
      return 'sent';
    }
    // The recipient erased their data before the day (its placeholder is where their address was): the mailer
    // drops a mail to it, and the card, recorded mailed with a code no one had, was lost to its buyer and could not
    // be sent on (delivered already). It is undeliverable, as one whose address does not exist.
    if (isErasedEmail(recipientEmail)) {
      await tellBuyerUndeliverable(deps.db, cardId, delivery, at);
      throw new PermanentJobFailure(
        `gift card ${cardId} was not sent: its recipient's data was erased; its buyer is told; \`gift-card redeliver ${cardId} <email>\` sends it to another address`,
      );
    }
    const code = generateCode();
    const key = await codeKey(deps.db, at);
    // Only while the card is still this sending's, with the date read above: one moved on, or voided
    // with its order (which moves its date to the void's time), since that read sends nothing.
    const minted = await deps.db
      .updateTable('gift_card')
      .set({ code_hmac: key.hmac(code), code_hint: codeHint(code), updated_at: at })
      .where('id', '=', cardId)
      .where('mailed_at', 'is', null)
      .where('delivery', '=', delivery)
      .where('expires_at', '=', card.expires_at)
      .returning('balance_cents')
      .executeTakeFirst();
    if (minted === undefined) return 'skipped';
    // The recipient is told what the card holds as its code is made, not what it was bought for: a refund of
    // the order may have taken part of it off before this day (order-refunds.ts), and the sum bought named
    // a gift they did not get.
    const holds = { ...details, amountCents: Number(minted.balance_cents) };
    try {
      await deps.mailer.send({ to: recipientEmail, ...recipientMail({ ...holds, code: displayCode(code) }) });
    } catch (error) {
      const refusal = causeOfType(error, RefusedForGood);
      if (refusal === undefined) throw error;
      // A paid card that reaches no one: its buyer is told (once), and the job is kept as dead for
      // the operators, who send the card where the buyer says.
      await tellBuyerUndeliverable(deps.db, cardId, delivery, at);
      throw new PermanentJobFailure(
        `gift card ${cardId} reached no one, its buyer is told; \`gift-card redeliver ${cardId} <email>\` sends it to another address: ${refusal.message}`,
        { cause: error },
      );
    }
    await deps.db.updateTable('gift_card').set({ mailed_at: at, updated_at: at }).where('id', '=', cardId).execute();
    return 'sent';
  };
}

/**
 * Marks the card's recipient address refused and queues the mail that tells its buyer, in one
 * transaction: the first refusal of the sending does, a later run of the refused job (a worker
 * that died before recording it dead, an operator's `jobs retry`) finds it marked and tells no one,
 * and a refusal that comes after the card was sent on (`gift-card redeliver`) marks nothing.
 */
async function tellBuyerUndeliverable(db: Kysely<Database>, cardId: number, delivery: number, at: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('gift_card')
      .set({ undeliverable_at: at, updated_at: at })
      .where('id', '=', cardId)
      .where('delivery', '=', delivery)
      .where('undeliverable_at', 'is', null)
      .where('mailed_at', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) return;
    await enqueueJob(
      trx,
      { type: GIFT_CARD_MAIL_JOB, payload: { cardId, to: 'buyer-undeliverable', delivery } },
      { maxAttempts: MAIL_ATTEMPTS, now: at },
    );
  });
}

export type RedeliverOutcome =
  | { id: number; recipientEmail: string; deliverAt: string }
  | { refused: 'unknown' | 'not virtual' | 'delivered already' | 'voided or expired' | 'its address was not refused' };

/**
 * Sends a virtual card whose recipient's address was refused as one that does not exist to the
 * address its buyer gave instead (the same one, say a mailbox that was disabled and is back): the
 * card takes the address and a new sending, whose mail is queued on its delivery date (or now when
 * that has passed), in one transaction. Only a refused card: one whose mail may still be on its way
 * would be sent twice. The refused job stays dead; run again, it is of the sending before and
 * sends nothing.
 */
export async function redeliverCard(db: Kysely<Database>, cardId: number, email: string, at: number): Promise<RedeliverOutcome> {
  return db.transaction().execute(async (trx) => {
    const card = await trx
      .updateTable('gift_card')
      .set((eb) => ({ recipient_email: email, undeliverable_at: null, delivery: eb('delivery', '+', 1), updated_at: at }))
      .where('id', '=', cardId)
      .where('kind', '=', 'VIRTUAL')
      .where('mailed_at', 'is', null)
      .where('undeliverable_at', 'is not', null)
      .where('expires_at', '>', at)
      .returning(['deliver_at', 'delivery'])
      .executeTakeFirst();
    if (card === undefined) return { refused: await whyNotRedelivered(trx, cardId, at) };
    const runAt = Math.max(at, Number(card.deliver_at));
    await enqueueJob(
      trx,
      { type: GIFT_CARD_MAIL_JOB, payload: { cardId, to: 'recipient', delivery: Number(card.delivery) }, runAt },
      { maxAttempts: MAIL_ATTEMPTS, now: at },
    );
    return { id: cardId, recipientEmail: email, deliverAt: new Date(runAt).toISOString() };
  });
}

async function whyNotRedelivered(db: Db, cardId: number, at: number): Promise<Extract<RedeliverOutcome, { refused: string }>['refused']> {
  const card = await db.selectFrom('gift_card').select(['kind', 'mailed_at', 'expires_at']).where('id', '=', cardId).executeTakeFirst();
  if (card === undefined) return 'unknown';
  if (card.kind !== 'VIRTUAL') return 'not virtual';
  if (card.mailed_at !== null) return 'delivered already';
  return Number(card.expires_at) <= at ? 'voided or expired' : 'its address was not refused';
}
