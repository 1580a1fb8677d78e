// The local EveryPay's card tokens: a one-off payment with `request_token: true` and a token
// agreement saves the card once it settles (its `cc_details.token`), and POST /payments/mit charges
// that token without the shopper, under the agreement it was saved with (EveryPay API v4).
import { randomBytes } from 'node:crypto';
import type { ApiError, FakePayment } from './everypay-server-rules.js';

export type TokenAgreement = 'unscheduled' | 'recurring';

/** What the fake knows of a saved card. Only the token and these details ever leave it. */
export interface FakeCard {
  token: string;
  agreement: TokenAgreement;
  lastFour: string;
  month: string;
  year: string;
  type: string;
  /** How the next merchant-initiated charges of this card end. */
  outcome: 'settled' | 'failed';
  /** The charge is answered while its bank is still deciding (sent_for_processing), and ends as `outcome` right after, with its callback. */
  processing?: boolean;
}

/** The test card every shopper "enters" on the fake's page (EveryPay's own test Mastercard). */
const TEST_CARD = { lastFour: '1002', month: '12', year: String(new Date().getUTCFullYear() + 3), type: 'master_card', bin: '520474' };

export function issueCard(agreement: TokenAgreement, tokenLength = 48): FakeCard {
  const token = randomBytes(Math.ceil(tokenLength / 2))
    .toString('hex')
    .slice(0, tokenLength);
  return { token, agreement, ...TEST_CARD, outcome: 'settled' };
}

/** The `cc_details` of a payment: the card's public details, and its token when the payment saved it. */
export function ccDetailsOf(payment: FakePayment & { card?: FakeCard | null; paidWith?: FakeCard | null }) {
  if (payment.state === 'initial') return null;
  const card = payment.card ?? payment.paidWith ?? null;
  return {
    bin: TEST_CARD.bin,
    last_four_digits: card?.lastFour ?? TEST_CARD.lastFour,
    month: card?.month ?? TEST_CARD.month,
    year: card?.year ?? TEST_CARD.year,
    holder_name: 'Test Holder',
    type: card?.type ?? TEST_CARD.type,
    issuer_country: 'EE',
    // The token is only in the answer of the payment that saved the card.
    token: payment.card?.token ?? null,
  };
}

export interface ValidMit {
  /** The merchant's processing account the charge names: its payment is in that account's currency. */
  accountName: string;
  orderReference: string;
  initialCents: number;
  nonce: string;
  card: FakeCard;
  email: string | null;
}

const invalid = (field: string, why: string): ApiError => ({ status: 422, code: 4220, message: `${field} ${why}` });

export function validateMit(
  fields: Record<string, unknown>,
  context: {
    /** The merchant's processing accounts and the currency of each. */
    accounts: Record<string, string>;
    nonces: Set<string>;
    taken: (orderReference: string) => boolean;
    card: (token: string) => FakeCard | undefined;
  },
): ValidMit | ApiError {
  if (typeof fields.account_name !== 'string' || !Object.hasOwn(context.accounts, fields.account_name))
    return { status: 422, code: 4221, message: 'Account name is invalid' };
  const text = typeof fields.amount === 'number' ? String(fields.amount) : typeof fields.amount === 'string' ? fields.amount : '';
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(text)) return invalid('amount', 'must be a positive amount in euros with at most two decimals');
  const [whole, fraction = ''] = text.split('.');
  const initialCents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  if (initialCents <= 0) return invalid('amount', 'must be above zero');
  for (const name of ['order_reference', 'nonce', 'token', 'token_agreement', 'timestamp'])
    if (typeof fields[name] !== 'string' || (fields[name] as string).trim() === '') return invalid(name, 'is required');
  if (Number.isNaN(Date.parse(fields.timestamp as string))) return invalid('timestamp', 'must be an ISO 8601 time');
  const card = context.card(fields.token as string);
  if (!card) return { status: 422, code: 4226, message: 'Token is invalid' };
  if (fields.token_agreement !== card.agreement)
    return { status: 422, code: 4227, message: `Token agreement must be ${card.agreement}, as when the card was saved` };
  if (context.nonces.has(fields.nonce as string)) return { status: 422, code: 4222, message: 'Nonce has already been used' };
  if (context.taken(fields.order_reference as string)) return { status: 422, code: 4223, message: 'Order reference has already been used' };
  const email = typeof fields.email === 'string' ? fields.email : null;
  return {
    accountName: fields.account_name,
    orderReference: fields.order_reference as string,
    initialCents,
    nonce: fields.nonce as string,
    card,
    email,
  };
}
