import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeShelfSubscriber, bill, mitPayments, startSubscriptionShop, subscriptionRow, type SubscriptionShop } from './helpers.js';

// EveryPay documents no length for a card token; the shop takes one of up to 256 characters
// (everypay.wire.ts). It keeps the token sealed (card-tokens.ts), some 60 characters of key id, IV and
// tag and the token's bytes in base64url, a third longer: on PostgreSQL a token of more than about 147
// characters did not fit subscription_card.token, varchar(256), and the settled card check, paid at
// EveryPay, saved no card.

describe('a long card token', () => {
  let s: SubscriptionShop;
  beforeAll(async () => {
    s = await startSubscriptionShop({}, { everypay: { cardTokenLength: 256 } });
  });
  afterAll(async () => s?.close());

  it('of 256 characters is saved, and the first month and the renewal charge it', async () => {
    const { id, end, token } = await activeShelfSubscriber(s);
    expect(token).toHaveLength(256);
    await bill(s, end + 1000);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    expect(mitPayments(s, id).map((r) => (r.body as Record<string, unknown>).token)).toEqual([token, token]);
  });
});
