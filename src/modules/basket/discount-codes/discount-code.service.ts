import type { Kysely } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { Database } from '../../../db/schema.js';
import { addressKey } from '../../../infra/address-key.js';
import { invalidField } from '../../../infra/domain-error.js';
import { consumeRateLimit, refundHit, type RateLimit } from '../../../infra/rate-limit.js';
import { touchBasket, type BasketRow } from '../basket.repository.js';
import type { BasketContext } from '../basket-pricing.js';
import { findDiscountCode } from './discount-code.repository.js';
import { blockingReason, type DiscountCode } from './discount-code.rules.js';

const wrongCodeKey = (ip: string) => `basket:code:${addressKey(ip)}`;

/**
 * The code as typed, looked up outside any transaction (the wrong-code counter must count even
 * though the request fails). Every attempt is counted first, in one atomic upsert, and an address
 * past its limit gets a 429 before the look-up, so the answer tells nothing about the code; a
 * right code takes its count back, a wrong one keeps it and is a 422. Counting after the look-up
 * let parallel wrong codes all pass the check before any of them was counted. `limit` is
 * DISCOUNT_CODE_GUESS_RATE_LIMIT_PER_IP (BasketSection.wrongCodesPerIp).
 */
export async function lookUpDiscountCode(
  db: Kysely<Database>,
  typed: string,
  ip: string,
  limit: RateLimit,
  now: number,
): Promise<DiscountCode> {
  await consumeRateLimit(db, wrongCodeKey(ip), limit, now);
  const code = await findDiscountCode(db, typed);
  if (!code) throw invalidField('code', 'basket.unknownCode');
  await refundHit(db, wrongCodeKey(ip), limit, now);
  return code;
}

/**
 * Puts the code on the basket (replacing any other: one code per basket). A code that cannot
 * apply to anybody's basket now (expired, used up, another store, another kind of customer) is a
 * 422 with the reason; one that merely does not apply to this basket yet (its minimum sum, no
 * product it covers) is kept and listed with the reason.
 */
export async function applyDiscountCode(trx: Db, context: BasketContext, basket: BasketRow, code: DiscountCode): Promise<BasketRow> {
  const reason = blockingReason(code, context.caller.kind, context.store.code, context.now);
  if (reason) throw invalidField('code', `basket.code.${reason}`);
  return touchBasket(trx, basket, context.now, { discount_code_id: code.id });
}

export async function removeDiscountCode(trx: Db, basket: BasketRow, now: number): Promise<BasketRow> {
  return touchBasket(trx, basket, now, { discount_code_id: null });
}
