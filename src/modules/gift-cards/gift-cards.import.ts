import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import { lockedOnPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';
import { DateValue, LineError, Money, cents, endTimestamp, inLineTransaction, lineKind, lineParser } from '../catalogue-import/index.js';
import { adjustImported, createCard, expiredNotRestored, restoreExpired } from './gift-card-ledger.js';
import { checkCharacterHolds, codeHint, codeKey, normaliseCode, type CodeKey } from './gift-card-code.js';

// `import gift-cards`: the back office's physical gift cards, upserted by code. `balance` is the
// card's value as the back office loaded it: a new card starts with it; for a known card the
// change of that value since the last import is written to the ledger as an IMPORT entry, so
// what the card paid online is kept and the same file imported twice changes nothing. The
// code itself is never stored (its HMAC and last four characters are), and no error names it.
// `expiresAt` is the back office's date the same way: what the shop did to the card's date keeps,
// the date money given back to it gave (gift-card-ledger.ts, RETURN_VALID_DAYS; the latest
// `extended_to` of its entries) when that is later, so the card's line imported again with its old
// date does not take away the days a refund gave the shopper to spend it.

const GiftCardLine = Type.Object(
  {
    code: Type.String({ minLength: 8, maxLength: 64, pattern: '^[A-Za-z0-9 -]+$' }),
    balance: Money,
    expiresAt: DateValue,
  },
  { additionalProperties: false },
);
type GiftCardLine = Static<typeof GiftCardLine>;

const euros = (cents: number) => (cents / 100).toFixed(2);

interface CardRecord {
  code: string;
  loadedCents: number;
  expiresAt: number;
}

function convert(line: GiftCardLine): CardRecord {
  const code = normaliseCode(line.code);
  if (code.length < 8) throw new LineError('/code: at least 8 letters or digits');
  if (!checkCharacterHolds(code)) throw new LineError('/code: a 17-character code must end in its check character');
  // A date alone is the last day the card is valid: it ends at the next midnight in Tallinn, as every import's end date.
  return { code, loadedCents: cents(line.balance, 'balance'), expiresAt: endTimestamp(line.expiresAt, 'expiresAt')! };
}

/** The latest date money given back to the card gave it (0: none); read under the card's lock on PostgreSQL. */
async function latestExtension(trx: Transaction<Database>, cardId: number): Promise<number> {
  const row = await trx
    .selectFrom('gift_card_entry')
    .select((eb) => eb.fn.max('extended_to').as('until'))
    .where('gift_card_id', '=', cardId)
    .executeTakeFirst();
  return Number(row?.until ?? 0);
}

async function upsertCard(trx: Transaction<Database>, key: CodeKey, record: CardRecord, now: number): Promise<string> {
  const codeHmac = key.hmac(record.code);
  const stored = await lockedOnPostgres(
    trx,
    trx.selectFrom('gift_card').select(['id', 'kind', 'initial_cents', 'balance_cents', 'expires_at']).where('code_hmac', '=', codeHmac),
  ).executeTakeFirst();
  if (!stored) {
    await createCard(
      trx,
      {
        code_hmac: codeHmac,
        code_hint: codeHint(record.code),
        kind: 'PHYSICAL',
        initial_cents: record.loadedCents,
        expires_at: record.expiresAt,
        order_id: null,
        order_position: null,
        buyer_client_account_id: null,
        recipient_name: null,
        recipient_email: null,
        message: null,
        store_code: null,
        language: null,
        deliver_at: null,
        mailed_at: null,
      },
      'IMPORT',
      now,
    );
    return 'created';
  }
  if (stored.kind !== 'PHYSICAL') throw new LineError('/code: the code of a card bought in the shop');
  const delta = record.loadedCents - Number(stored.initial_cents);
  const extendedTo = await latestExtension(trx, Number(stored.id));
  const expiresAt = Math.max(record.expiresAt, extendedTo);
  // A card the back office's own date no longer held (past it, or valid only for money given back to it
  // since: a refund onto the expired card gives it 30 days) given a date of its own still to come: what
  // the hourly expiry took comes back (the value is the back office's loaded one less what the card paid
  // online), as it would have stayed had this line come before the expiry ran. Judged by the card's date
  // alone, a refund before this line left the expiry's take on the card lost, one after it did not.
  const currentAt = Number(stored.expires_at);
  const lapsed = currentAt <= now || currentAt === extendedTo;
  const restoredCents = lapsed && record.expiresAt > now ? await expiredNotRestored(trx, Number(stored.id)) : 0;
  if (delta === 0 && restoredCents === 0 && currentAt === expiresAt) return 'unchanged';
  // Lowered by more than is left on it (spent or held online since it was loaded): the balance would go
  // below zero. The line is refused and the card keeps its value; the row is locked on PostgreSQL, so
  // no checkout spends it between this read and the write.
  const balanceCents = Number(stored.balance_cents) + restoredCents;
  const spentCents = Number(stored.initial_cents) - balanceCents;
  if (balanceCents + delta < 0)
    throw new LineError(`/balance: ${euros(record.loadedCents)} is less than the ${euros(spentCents)} already spent from the card`);
  if (restoredCents > 0) await restoreExpired(trx, Number(stored.id), restoredCents, now);
  if (delta !== 0) await adjustImported(trx, Number(stored.id), delta, now);
  await trx
    .updateTable('gift_card')
    .set({ initial_cents: record.loadedCents, expires_at: expiresAt, updated_at: now })
    .where('id', '=', stored.id)
    .execute();
  return 'updated';
}

export const giftCardsKind = lineKind(
  'import gift-cards <file.ndjson>     physical gift cards and their balances',
  ({ db, clock, log }) => ({
    parse: lineParser(GiftCardLine, convert),
    async apply(record: CardRecord) {
      const key = await codeKey(db, clock.now());
      return inLineTransaction(db, log, (trx) => upsertCard(trx, key, record, clock.now()));
    },
  }),
);
