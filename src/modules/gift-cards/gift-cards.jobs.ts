import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { causeOfType, PermanentJobFailure, RefusedForGood } from '../../infra/jobs/refused-for-good.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { Mailer } from '../../infra/mail/mailer.js';
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

export function giftCardIssueHandler(deps: { db: Kysely<Database> }): JobHandler {
  return async ({ orderId }: { orderId: number }) => {
    const at = Date.now();
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
 * the recipient's address turned out not to exist. A recipient's or refusal's job names the address
 * it is for (`email`; the first recipient job: the address bought with the card), so that one left
 * over from before `gift-card redeliver` (an operator's `jobs retry` of the refused one) sends
 * nothing: the card has another address now.
 */
export function giftCardMailHandler(deps: { db: Kysely<Database>; mailer: Mailer }): JobHandler {
  return async ({ cardId, to, email }: { cardId: number; to: 'buyer' | 'recipient' | 'buyer-undeliverable'; email?: string }) => {
    const at = Date.now();
    const card = await deps.db
      .selectFrom('gift_card')
      .innerJoin('virtual_gift_card_purchase', 'virtual_gift_card_purchase.gift_card_id', 'gift_card.id')
      .select([
        'gift_card.id',
        'gift_card.initial_cents',
        'gift_card.expires_at',
        'gift_card.deliver_at',
        'gift_card.mailed_at',
        'gift_card.undeliverable_at',
        'gift_card.recipient_name',
        'gift_card.recipient_email',
        'gift_card.message',
        'gift_card.sender_name',
        'gift_card.language',
        'gift_card.store_code',
        'virtual_gift_card_purchase.buyer_email',
        'virtual_gift_card_purchase.recipient_email as bought_for',
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
      await deps.mailer.send({ to: card.buyer_email, ...buyerMail(details) });
      return 'sent';
    }
    // Mailed already, or voided with its order; or this job's address is no longer the card's.
    const forAddress = email ?? card.bought_for;
    if (card.mailed_at !== null || Number(card.expires_at) <= at || card.recipient_email !== forAddress) return 'skipped';
    if (to === 'buyer-undeliverable') {
      if (card.undeliverable_at === null) return 'skipped';
      await deps.mailer.send({ to: card.buyer_email, ...undeliverableMail({ ...details, recipientEmail: forAddress ?? '' }) });
      return 'sent';
    }
    const code = generateCode();
    const key = await codeKey(deps.db, at);
    await deps.db
      .updateTable('gift_card')
      .set({ code_hmac: key.hmac(code), code_hint: codeHint(code), updated_at: at })
      .where('id', '=', cardId)
      .where('mailed_at', 'is', null)
      .execute();
    try {
      await deps.mailer.send({ to: forAddress ?? '', ...recipientMail({ ...details, code: displayCode(code) }) });
    } catch (error) {
      const refusal = causeOfType(error, RefusedForGood);
      if (refusal === undefined || forAddress === null) throw error;
      // A paid card that reaches no one: its buyer is told (once), and the job is kept as dead for
      // the operators, who send the card where the buyer says.
      await tellBuyerUndeliverable(deps.db, cardId, forAddress, at);
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
 * transaction: the first refusal of the address does, a later run of the refused job (a worker
 * that died before recording it dead, an operator's `jobs retry`) finds it marked and tells no one,
 * and a refusal that comes after the card was given another address marks nothing.
 */
async function tellBuyerUndeliverable(db: Kysely<Database>, cardId: number, refused: string, at: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('gift_card')
      .set({ undeliverable_at: at, updated_at: at })
      .where('id', '=', cardId)
      .where('recipient_email', '=', refused)
      .where('undeliverable_at', 'is', null)
      .where('mailed_at', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) return;
    await enqueueJob(
      trx,
      { type: GIFT_CARD_MAIL_JOB, payload: { cardId, to: 'buyer-undeliverable', email: refused } },
      { maxAttempts: MAIL_ATTEMPTS, now: at },
    );
  });
}

export type RedeliverOutcome =
  | { id: number; recipientEmail: string; deliverAt: string }
  | { refused: 'unknown' | 'not virtual' | 'delivered already' | 'voided or expired' | 'its address was not refused' };

/**
 * Sends a virtual card whose recipient's address was refused as one that does not exist to the
 * address its buyer gave instead: the card takes the address and its mail is queued, for that
 * address, on its delivery date (or now when that has passed), in one transaction. Only a refused
 * card: one whose mail may still be on its way would be sent twice. The refused job stays dead;
 * run again, it is for the old address and sends nothing.
 */
export async function redeliverCard(db: Kysely<Database>, cardId: number, email: string, at: number): Promise<RedeliverOutcome> {
  return db.transaction().execute(async (trx) => {
    const card = await trx
      .updateTable('gift_card')
      .set({ recipient_email: email, undeliverable_at: null, updated_at: at })
      .where('id', '=', cardId)
      .where('kind', '=', 'VIRTUAL')
      .where('mailed_at', 'is', null)
      .where('undeliverable_at', 'is not', null)
      .where('expires_at', '>', at)
      .returning(['id', 'deliver_at'])
      .executeTakeFirst();
    if (card === undefined) return { refused: await whyNotRedelivered(trx, cardId, at) };
    const runAt = Math.max(at, Number(card.deliver_at));
    await enqueueJob(
      trx,
      { type: GIFT_CARD_MAIL_JOB, payload: { cardId, to: 'recipient', email }, runAt },
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
