import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer, type SealingKey } from '../../src/infra/sealed-secret.js';
import { billDue, cardTokensFor } from '../../src/modules/subscriptions/index.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { expectFieldErrors } from '../helpers/http.js';
import { createTestApp, engine, migratedScratchDatabase } from '../helpers/test-app.js';
import {
  activeShelfSubscriber,
  bill,
  chargesOf,
  mailJobs,
  mitPayments,
  saveCard,
  startSubscriptionShop,
  subscribe,
  subscriptionRow,
  type SubscriptionShop,
} from './helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { sample, scrape } from '../metrics/metrics-text.js';

// Saved cards' gateway tokens are sealed at rest under a key kept outside the database
// (modules/subscriptions/card-tokens.ts): the row holds no token in clear, and the charges still send
// the gateway its token. A token no configured key opens is never sent: the customer is told to save the
// card again when subscribing, and a renewal waits for the right key (the operator's to fix); tokens stored in clear before, or under a rotated-out key, are sealed anew.

const OTHER_KEY: SealingKey = { id: 'test2', key: Buffer.alloc(32, 9) };
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** The tokens EveryPay was sent to charge for the subscription, in order. */
const chargedTokens = (s: SubscriptionShop, id: number) => mitPayments(s, id).map((r) => (r.body as Record<string, unknown>).token);

async function storedToken(s: SubscriptionShop, subscriptionId: number): Promise<{ cardId: number; token: string }> {
  const row = await s.t.database.db
    .selectFrom('subscription_card')
    .innerJoin('subscription', 'subscription.card_id', 'subscription_card.id')
    .select(['subscription_card.id', 'subscription_card.token'])
    .where('subscription.id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
  return { cardId: Number(row.id), token: row.token! };
}

const setStoredToken = (s: SubscriptionShop, cardId: number, token: string) =>
  s.t.database.db.updateTable('subscription_card').set({ token }).where('id', '=', cardId).execute();

/** The shop's card tokens over other keys, as a process configured with them has (errors logged into `logged`). */
function cardTokensOver(s: SubscriptionShop, keys: SealingKey[], logged: unknown[] = []) {
  return cardTokensFor(
    { databaseUrl: s.t.config.databaseUrl, cardTokenKeys: keys },
    { error: (...line: unknown[]) => void logged.push(line) },
  );
}

describe('saved card tokens at rest', () => {
  let s: SubscriptionShop;
  beforeAll(async () => {
    s = await startSubscriptionShop({ METRICS_TOKEN });
  });
  /** The renewals billing runs of this process left due for a card token key, as /metrics tells them. */
  const unopenedMetric = async () => sample(await scrape(s.t, METRICS_TOKEN), 'storefront_subscription_renewals_card_unopened_total');
  afterAll(async () => s?.close());

  it('stores the gateway token sealed, and the first month and the renewal send the gateway the token itself', async () => {
    const { id, end, token } = await activeShelfSubscriber(s);
    const stored = await storedToken(s, id);
    expect(stored.token).toMatch(/^v1\.test1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored.token).not.toContain(token);
    await bill(s, end + 1000);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    expect(chargedTokens(s, id)).toEqual([token, token]);
  });

  it('seals a token stored in clear before sealing began at the next billing run, which charges it', async () => {
    const { id, end, token } = await activeShelfSubscriber(s);
    const { cardId } = await storedToken(s, id);
    await setStoredToken(s, cardId, token);
    await bill(s, end + 1000);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    expect(chargedTokens(s, id)).toEqual([token, token]);
    const sealed = (await storedToken(s, id)).token;
    expect(sealed).toMatch(/^v1\.test1\./);
    expect(s.cardTokens.open(sealed, cardId)).toBe(token);
  });

  it('refuses to subscribe with a card whose token no configured key opens (422 on cardId), charging nothing', async () => {
    const customer = await createCustomer(s.t.database.db);
    const cardId = await saveCard(s, customer);
    const token = s.everypay.cards().at(-1)!.token;
    // Sealed under another key of the same id: what a process with a wrong CARD_TOKEN_KEYS reads.
    await setStoredToken(s, cardId, createSealer([{ id: 'test1', key: OTHER_KEY.key }], 'subscription_card.token').seal(token));
    const before = s.everypay.requests.length;
    const refused = await subscribe(s, customer, 'SHELF5', cardId);
    expect(expectFieldErrors(refused)).toEqual(['cardId']);
    expect(refused.json()[0].message).toBe(`Salvestatud kaardilt ${cardId} ei saa enam makset võtta; palun salvestage kaart uuesti.`);
    expect(s.everypay.requests.slice(before).map((r) => r.path)).toEqual([]);
    const subscriptions = await s.t.database.db.selectFrom('subscription').select('id').where('card_id', '=', cardId).execute();
    expect(subscriptions).toEqual([]);
  });

  it('with a wrong key a renewal is not sent, failed nor mailed, one warning counts it; the run with the right key charges it once', async () => {
    const { id, end, token } = await activeShelfSubscriber(s);
    const { token: sealed } = await storedToken(s, id);
    const mailsBefore = await mailJobs(s, id);
    const logged: unknown[] = [];
    const warnings: unknown[] = [];
    const wrong = cardTokensOver(s, [{ id: 'test1', key: OTHER_KEY.key }], logged);
    const log = { warn: (details: unknown) => void warnings.push(details), error: (details: unknown) => void logged.push(details) };
    const countedBefore = (await unopenedMetric())!;
    const report = await billDue(s.t.database.db, s.gateways, end + 1000, { cardTokens: wrong, log });
    expect(report).toMatchObject({ failed: 0, charged: 0, cardsUnopened: 1 });
    // The key is the operator's to put right: one warning with the count, no line per card, no token, and a counter to alert on.
    expect(warnings).toEqual([{ cardsUnopened: 1 }]);
    expect(await unopenedMetric()).toBe(countedBefore + 1);
    expect(logged).toEqual([]);
    expect(chargedTokens(s, id)).toEqual([token]);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 1, failed_attempts: 0 });
    expect(await mailJobs(s, id)).toEqual(mailsBefore);
    // Left as it is: the key may come back.
    expect((await storedToken(s, id)).token).toBe(sealed);
    await bill(s, end + 2000);
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    expect(chargedTokens(s, id)).toEqual([token, token]);
    expect(await unopenedMetric()).toBe(countedBefore + 1);
    expect((await chargesOf(s, id)).map((c) => c.state)).toEqual(['settled', 'settled']);
  });
});

describe('rotating the card token key', () => {
  let s: SubscriptionShop;
  beforeAll(async () => {
    s = await startSubscriptionShop();
  });
  afterAll(async () => s?.close());

  it('charges cards sealed under the old key while it is listed, seals them under the new one, and then needs only the new one', async () => {
    const { id, end, token } = await activeShelfSubscriber(s);
    const rotated = cardTokensOver(s, [OTHER_KEY, ...s.t.config.subscriptions.cardTokenKeys!]);
    await billDue(s.t.database.db, s.gateways, end + 1000, { cardTokens: rotated });
    expect(chargedTokens(s, id)).toEqual([token, token]);
    expect((await storedToken(s, id)).token).toMatch(/^v1\.test2\./);
    const newOnly = cardTokensOver(s, [OTHER_KEY]);
    const renewed = Number((await subscriptionRow(s, id)).period_end);
    await billDue(s.t.database.db, s.gateways, renewed + 1000, { cardTokens: newOnly });
    expect(await subscriptionRow(s, id)).toMatchObject({ status: 'ACTIVE', period_number: 3 });
    expect(chargedTokens(s, id)).toEqual([token, token, token]);
  });
});

describe.skipIf(engine !== 'sqlite')('without CARD_TOKEN_KEYS on SQLite', () => {
  let s: SubscriptionShop;
  beforeAll(async () => {
    s = await startSubscriptionShop({ CARD_TOKEN_KEYS: '' }, { sqliteFile: true });
  });
  afterAll(async () => s?.close());

  it('seals with a key file made beside the database, readable by its owner only, and charges with it', async () => {
    const { id, end, token } = await activeShelfSubscriber(s);
    const keyFile = `${s.t.config.databaseUrl.slice('sqlite:'.length)}.card-token-keys`;
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const stored = (await storedToken(s, id)).token;
    expect(stored).toMatch(/^v1\.f[0-9a-f]{6}\./);
    expect(stored).not.toContain(token);
    await bill(s, end + 1000);
    expect(chargedTokens(s, id)).toEqual([token, token]);
  });
});

describe.skipIf(engine !== 'postgres')('without CARD_TOKEN_KEYS on PostgreSQL', () => {
  it('an app, a worker and a billing run refuse to start, saying what to set', async () => {
    const message = /CARD_TOKEN_KEYS must be set with PostgreSQL/;
    await expect(createTestApp({ env: { CARD_TOKEN_KEYS: '' } })).rejects.toThrow(message);
    const scratch = await migratedScratchDatabase();
    try {
      const billing = await runCli(['subscription', 'bill'], { DATABASE_URL: scratch.url, CARD_TOKEN_KEYS: '' });
      expect(billing.code).toBe(1);
      expect(billing.stderr).toMatch(message);
      const worker = await runCliProcess(['worker'], { DATABASE_URL: scratch.url, CARD_TOKEN_KEYS: '' });
      expect(worker.code).toBe(1);
      expect(worker.stderr).toMatch(message);
      // The commands that open no token need no key.
      expect((await runCli(['subscription', 'stats'], { DATABASE_URL: scratch.url, CARD_TOKEN_KEYS: '' })).code).toBe(0);
    } finally {
      await scratch.drop();
    }
  });
});

describe('a malformed CARD_TOKEN_KEYS', () => {
  it('stops serve at start with a message naming the variable, never the key', async () => {
    const short = Buffer.alloc(16, 5).toString('base64');
    const result = await runCliProcess(['serve'], { DATABASE_URL: 'sqlite::memory:', PORT: '0', CARD_TOKEN_KEYS: `k1:${short}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('CARD_TOKEN_KEYS: entry 1 (key id "k1") must be a key of 32 bytes in base64');
    expect(result.stderr).not.toContain(short);
  });
});
