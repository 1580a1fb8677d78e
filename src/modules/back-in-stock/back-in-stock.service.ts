import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import type { Language } from '../../i18n/index.js';
import { addressKey } from '../../infra/address-key.js';
import { conflict, invalidField, notFound, unauthenticated } from '../../infra/domain-error.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { audienceKey, type Caller } from '../catalogue/index.js';
import type { BackInStockSection } from './back-in-stock.config.js';
import { clientEmail, requestableProduct, upsertRequest, type BackInStockRow } from './back-in-stock.repository.js';

// The rules of a back-in-stock request: a guest gives an email, a client is told at its own; only
// a product the requester may see and that is not available now; one request per store, product
// and address (asking again is the same request, for another 14 days); counted per client address
// and per email before any work.

export const REQUEST_LIFETIME_MS = 14 * 86_400_000;

export interface BackInStockInput {
  caller: Caller;
  storeCode: string;
  language: Language;
  now: number;
  ip: string;
  productId: number;
  email?: string;
}

export async function requestBackInStock(
  db: Db,
  limits: BackInStockSection,
  input: BackInStockInput,
): Promise<{ row: BackInStockRow; created: boolean }> {
  const { caller, now } = input;
  let email: string;
  let language: string = input.language;
  if (caller.clientAccountId !== null) {
    const own = await clientEmail(db, caller.clientAccountId);
    if (!own) throw unauthenticated('backInStock.loginRequired');
    // The mail goes to the login email: one that is not confirmed is its owner's mailbox, and the
    // request would also take over the owner's own guest request for the product.
    if (!own.confirmed) throw conflict('backInStock.emailUnconfirmed');
    if (input.email !== undefined && normaliseEmail(input.email) !== own.email) throw invalidField('email', 'backInStock.ownEmail');
    email = own.email;
    language = own.language;
  } else {
    if (input.email === undefined) throw invalidField('email', 'backInStock.emailRequired');
    email = normaliseEmail(input.email);
  }
  await consumeRateLimit(db, `back-in-stock:ip:${addressKey(input.ip)}`, limits.perIp, now);
  await consumeRateLimit(db, `back-in-stock:email:${email}`, limits.perEmail, now);

  const product = await requestableProduct(db, input.storeCode, caller, input.productId);
  if (!product) throw notFound('backInStock.unknownProduct', { id: input.productId });
  if (product.available) throw conflict('backInStock.available');
  return upsertRequest(db, {
    storeCode: input.storeCode,
    productId: input.productId,
    email,
    clientAccountId: caller.clientAccountId,
    language,
    audience: audienceKey(caller),
    now,
    expiresAt: now + REQUEST_LIFETIME_MS,
  });
}

/** The logged-in client's account id; a guest has no list of requests (401). */
export function requestingClient(caller: Caller): number {
  if (caller.clientAccountId === null) throw unauthenticated('backInStock.loginRequired');
  return caller.clientAccountId;
}
