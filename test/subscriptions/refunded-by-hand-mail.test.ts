import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import {
  bill,
  DAY,
  mailsReceivedBy,
  REFUND_PATH,
  releaseHeldCallbacks,
  setMailLanguage,
  startMailingShop,
  type MailingShop,
} from './helpers.js';
import { settledForNothing } from './late-settle-helpers.js';

// `subscription mark-refunded` records a charge the gateway would not refund that the operator paid back by
// hand: in the merchant portal, or by a bank transfer when the gateway will not refund the payment at all
// (README). Its customer was mailed the gateway refund's words, "was refunded to your card", of money that
// may have gone to their bank account. A refund made by hand is now told as paid back to them, in every
// language, without naming the card.

let s: MailingShop;
let env: Record<string, string>;
beforeAll(async () => {
  // A database file on SQLite, which the commands open beside the shop.
  s = await startMailingShop({}, { sqliteFile: true });
  env = { DATABASE_URL: s.t.config.databaseUrl, ...everypayEnv(s.everypay), TEST_GATEWAY: 'off' };
});
afterAll(() => s.close());
afterEach(async () => {
  s.everypay.breakApi(null);
  await releaseHeldCallbacks(s);
});

const chargeOf = (chargeId: number) =>
  s.t.database.db.selectFrom('subscription_charge').selectAll().where('id', '=', chargeId).executeTakeFirstOrThrow();

const SAYS = {
  en: { card: 'to your card', back: 'was refunded to you' },
  et: { card: 'kaardile', back: 'on teile tagastatud' },
  ru: { card: 'на карту', back: 'возвращён вам' },
} as const;

describe('a refund the operator made by hand (mark-refunded)', () => {
  for (const language of ['en', 'et', 'ru'] as const) {
    it(`is mailed as refunded to the customer, not to their card (${language})`, async () => {
      const { customer, chargeId } = await settledForNothing(s);
      await setMailLanguage(s, customer, language);
      const dueSince = Number((await chargeOf(chargeId)).updated_at);
      s.everypay.breakApi({ status: 500 }, Infinity, REFUND_PATH);
      await s.t.jobs.worker.drain({ includeDelayed: true });
      const since = s.smtp.mails.length;
      expect(await bill(s, dueSince + 3 * DAY)).toMatchObject({ refundsRefused: 1 });

      const marked = await runCli(['subscription', 'mark-refunded', String(chargeId)], env);
      expect(marked.code, marked.stderr).toBe(0);
      const mails = await mailsReceivedBy(s, customer, since);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).not.toContain(SAYS[language].card);
      expect(mails[0]!.text).toContain(SAYS[language].back);
    });
  }
});
