import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { toRfc3339 } from '../../db/time.js';
import { accountIdsOf, ERASED_MARKER, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { toWireMoney } from '../pricing/index.js';

// Gift cards a person bought (their message, their email as the buyer) and virtual cards sent to
// them (their name and email as the recipient), both on the purchase and on the issued card. The
// erasure keeps the cards and their ledgers (money, accounting) and takes the person out: a card
// they received keeps its balance but no longer names or mails them; a card they bought keeps its
// recipient (someone else's data) but loses the buyer's message and email.

const CAP = 1_000;
const euros = (cents: number) => toWireMoney(Number(cents));
const time = (ms: number | null) => (ms === null ? null : toRfc3339(Number(ms)));

async function exportGiftCards(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  const email = normaliseEmail(subject.email);
  const purchases = await db
    .selectFrom('virtual_gift_card_purchase')
    .select([
      'amount_cents',
      'recipient_name',
      'recipient_email',
      'message',
      'sender_name',
      'deliver_at',
      'buyer_email',
      'cancelled_at',
      'created_at',
    ])
    .where((eb) => {
      const asBuyer = eb('buyer_email', '=', email);
      return ids.length === 0
        ? eb.or([asBuyer, eb('recipient_email', '=', email)])
        : eb.or([asBuyer, eb('buyer_client_account_id', 'in', ids), eb('recipient_email', '=', email)]);
    })
    .orderBy('created_at', 'desc')
    .limit(CAP)
    .execute();
  return purchases.map((row) => {
    const bought = row.buyer_email === email || row.recipient_email !== email;
    return bought
      ? {
          role: 'buyer',
          amount: euros(row.amount_cents),
          recipientName: row.recipient_name,
          recipientEmail: row.recipient_email,
          message: row.message,
          senderName: row.sender_name,
          deliverOn: time(row.deliver_at),
          cancelled: row.cancelled_at !== null,
          boughtAt: time(row.created_at),
        }
      : { role: 'recipient', amount: euros(row.amount_cents), recipientName: row.recipient_name, deliverOn: time(row.deliver_at) };
  });
}

async function eraseFromGiftCards(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  const email = normaliseEmail(subject.email);
  const received = { recipient_name: ERASED_MARKER, recipient_email: subject.erasedEmail };
  await trx.updateTable('virtual_gift_card_purchase').set(received).where('recipient_email', '=', email).execute();
  await trx.updateTable('gift_card').set(received).where('recipient_email', '=', email).execute();
  // The cards issued from what the person bought as a guest with their email (no account to find them
  // by): their words and name go from the card as from the purchase, before its buyer_email is replaced.
  await trx
    .updateTable('gift_card')
    .set({ message: '', sender_name: '' })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('virtual_gift_card_purchase')
        .select('gift_card_id')
        .where('buyer_email', '=', email)
        .where('gift_card_id', 'is not', null),
    )
    .execute();
  const bought = trx
    .updateTable('virtual_gift_card_purchase')
    .set({ buyer_email: subject.erasedEmail, message: '', sender_name: '' })
    .where((eb) =>
      ids.length === 0 ? eb('buyer_email', '=', email) : eb.or([eb('buyer_email', '=', email), eb('buyer_client_account_id', 'in', ids)]),
    );
  await bought.execute();
  if (ids.length > 0)
    await trx.updateTable('gift_card').set({ message: '', sender_name: '' }).where('buyer_client_account_id', 'in', ids).execute();
}

/** The gift cards module's part of "your data". */
export const giftCardsPersonalData: PersonalDataPart = { name: 'giftCards', export: exportGiftCards, erase: eraseFromGiftCards };
