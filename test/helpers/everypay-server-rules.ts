// The payments of the local EveryPay, what it accepts in a request body (the fields as the v4
// documentation describes them), and its hosted payment page.

export type EveryPayState =
  | 'initial'
  | 'waiting_for_sca'
  | 'waiting_for_3ds_response'
  | 'sent_for_processing'
  | 'authorised'
  | 'settled'
  | 'failed'
  | 'abandoned'
  | 'voided'
  | 'refunded'
  | 'chargebacked';

export interface FakePayment {
  reference: string;
  orderReference: string;
  accountName: string;
  /** The currency of its account (EveryPay keeps one per processing account), e.g. EUR. */
  currency: string;
  initialCents: number;
  standingCents: number;
  state: EveryPayState;
  customerUrl: string;
  email: string | null;
  customerIp: string | null;
  locale: string | null;
  nonce: string;
  createdAt: string;
  /** The token agreement a one-off asked to save the card under (`request_token: true`); null: not saved. */
  tokenAgreement?: 'unscheduled' | 'recurring' | null;
  /** The card this payment saved (issued when it settles). */
  card?: import('./everypay-server-mit.js').FakeCard | null;
  /** The saved card a merchant-initiated payment charged. */
  paidWith?: import('./everypay-server-mit.js').FakeCard | null;
}

export interface ApiError {
  status: number;
  code: number;
  message: string;
}

const invalid = (field: string, why: string): ApiError => ({ status: 422, code: 4220, message: `${field} ${why}` });

/** Decimal euros, a JSON number or a numeric string, above zero (or zero), at most two decimals; in cents. */
function amountCents(value: unknown, zeroAllowed = false): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(text)) return undefined;
  const [whole, fraction = ''] = text.split('.');
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return cents > 0 || (zeroAllowed && cents === 0) ? cents : undefined;
}

function text(fields: Record<string, unknown>, name: string, max = 255): string | ApiError {
  const value = fields[name];
  if (typeof value !== 'string' || value.trim() === '') return invalid(name, 'is required');
  return value.length > max ? invalid(name, `is longer than ${max}`) : value;
}

function optionalText(fields: Record<string, unknown>, name: string): string | null | ApiError {
  const value = fields[name];
  if (value === undefined || value === null) return null;
  return typeof value === 'string' && value.length <= 255 ? value : invalid(name, 'must be a string');
}

function timestamp(fields: Record<string, unknown>): ApiError | null {
  const value = fields.timestamp;
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(value) || Number.isNaN(Date.parse(value))) {
    return invalid('timestamp', 'must be an ISO 8601 time');
  }
  return null;
}

export interface ValidOneoff {
  accountName: string;
  orderReference: string;
  initialCents: number;
  customerUrl: string;
  email: string | null;
  customerIp: string | null;
  locale: string | null;
  nonce: string;
  tokenAgreement: 'unscheduled' | 'recurring' | null;
}

export function validateOneoff(
  fields: Record<string, unknown>,
  context: { accounts: Readonly<Record<string, string>>; nonces: Set<string>; taken: (orderReference: string) => boolean },
): ValidOneoff | ApiError {
  const accountName = fields.account_name;
  if (typeof accountName !== 'string' || !Object.hasOwn(context.accounts, accountName))
    return { status: 422, code: 4221, message: 'Account name is invalid' };
  if (fields.request_token !== undefined && typeof fields.request_token !== 'boolean') return invalid('request_token', 'must be a boolean');
  const requestToken = fields.request_token === true;
  const agreement = fields.token_agreement;
  if (requestToken && agreement !== 'unscheduled' && agreement !== 'recurring')
    return invalid('token_agreement', 'must be unscheduled or recurring when a token is requested');
  // Saving a card may take nothing: a zero-amount payment that only checks the card.
  const initialCents = amountCents(fields.amount, requestToken);
  if (initialCents === undefined) return invalid('amount', 'must be a positive amount in euros with at most two decimals');
  const values = [text(fields, 'order_reference'), text(fields, 'nonce'), text(fields, 'customer_url', 2048)];
  const optional = [optionalText(fields, 'email'), optionalText(fields, 'customer_ip'), optionalText(fields, 'locale')];
  const wrong = [...values, ...optional].find((value): value is ApiError => typeof value === 'object' && value !== null);
  if (wrong) return wrong;
  const [orderReference, nonce, customerUrl] = values as string[];
  const [email = null, customerIp = null, locale = null] = optional as (string | null)[];
  const late = timestamp(fields);
  if (late) return late;
  if (!/^https?:\/\/[^/\s]+/.test(customerUrl!)) return invalid('customer_url', 'must be an http(s) URL');
  if (email !== null && !/^[^@\s]+@[^@\s]+$/.test(email)) return invalid('email', 'is not an email address');
  if (locale !== null && !/^[a-z]{2}$/.test(locale)) return invalid('locale', 'must be a two-letter language');
  if (context.nonces.has(nonce!)) return { status: 422, code: 4222, message: 'Nonce has already been used' };
  if (context.taken(orderReference!)) return { status: 422, code: 4223, message: 'Order reference has already been used' };
  const tokenAgreement = requestToken ? (agreement as 'unscheduled' | 'recurring') : null;
  return {
    accountName,
    orderReference: orderReference!,
    initialCents,
    customerUrl: customerUrl!,
    email,
    customerIp,
    locale,
    nonce: nonce!,
    tokenAgreement,
  };
}

export function validateRefund(
  fields: Record<string, unknown>,
  context: { nonces: Set<string>; payment: (reference: string) => FakePayment | undefined },
): { payment: FakePayment; amountCents: number; nonce: string } | ApiError {
  const reference = text(fields, 'payment_reference');
  const nonce = text(fields, 'nonce');
  if (typeof reference !== 'string') return reference;
  if (typeof nonce !== 'string') return nonce;
  const late = timestamp(fields);
  if (late) return late;
  const cents = amountCents(fields.amount);
  if (cents === undefined) return invalid('amount', 'must be a positive amount in euros with at most two decimals');
  if (context.nonces.has(nonce)) return { status: 422, code: 4222, message: 'Nonce has already been used' };
  const payment = context.payment(reference);
  if (!payment) return { status: 404, code: 4040, message: 'Payment not found' };
  if (payment.state !== 'settled' && payment.state !== 'refunded')
    return { status: 422, code: 4224, message: `Payment in state ${payment.state} cannot be refunded` };
  if (cents > payment.standingCents) return { status: 422, code: 4225, message: 'Refund amount exceeds the standing amount' };
  return { payment, amountCents: cents, nonce };
}

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function paymentPage(payment: FakePayment): string {
  const hidden = `<input type="hidden" name="payment_reference" value="${escape(payment.reference)}">`;
  const button = (action: string, label: string) =>
    `<form method="post" action="/lp/${action}">${hidden}<button type="submit">${label}</button></form>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>EveryPay</title></head><body>
<h1>Order ${escape(payment.orderReference)}</h1><p>Amount: <span id="amount">${(payment.initialCents / 100).toFixed(2)}</span> EUR</p>
${button('pay', 'Pay')}${button('decline', 'Decline')}${button('cancel', 'Cancel')}</body></html>`;
}
