import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_CHANGE_MAILS_PER_ADDRESS } from '../../src/modules/profile/profile.mails.js';
import {
  askEmailChange,
  createAccountsTestApp,
  mailsTo,
  registerVerified,
  uniqueEmail,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { MINUTE, keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

// An email change mails its confirmation link to the new address, which the asking user types.
// The limit per user (5 an hour) bounds one account; anyone can register many, and each could mail
// one address five times an hour. The worker sends one address at most
// EMAIL_CHANGE_MAILS_PER_ADDRESS of them in its window, however many users ask.

const SUBJECT = /Confirm your new email/;

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

keepEachTestInOneRateLimitWindow(EMAIL_CHANGE_MAILS_PER_ADDRESS.windowMs, MINUTE);

const askFor = (token: string, email: string) => askEmailChange(t, token, email);

const confirmations = (email: string) => mailsTo(t, email).filter((mail) => SUBJECT.test(mail.subject ?? ''));

describe('email change confirmations', () => {
  it('reach one address at most EMAIL_CHANGE_MAILS_PER_ADDRESS times however many users ask for it', async () => {
    const victim = uniqueEmail('wanted-by-many');
    const users = EMAIL_CHANGE_MAILS_PER_ADDRESS.max + 2;
    for (let i = 0; i < users; i++) {
      const token = await registerVerified(t, uniqueEmail(`asker-${i}`));
      // Each is answered as usual: nobody learns from the answer what others asked.
      const asked = await askFor(token, victim);
      expect(asked.statusCode, asked.body).toBe(200);
      expect(asked.json().pendingEmail).toBe(victim);
    }
    await t.drainJobs();
    expect(confirmations(victim)).toHaveLength(EMAIL_CHANGE_MAILS_PER_ADDRESS.max);

    // Another address is still mailed.
    const other = uniqueEmail('wanted-by-one');
    expect((await askFor(await registerVerified(t, uniqueEmail('asker')), other)).statusCode).toBe(200);
    await t.drainJobs();
    await t.smtp.waitFor(() => confirmations(other).length === 1, 5000);
  });

  it('counts a confirmation once: a send the mail server failed and the worker retried is not another', async () => {
    const wanted = uniqueEmail('wanted-retried');
    const tokens = [];
    for (let i = 0; i < EMAIL_CHANGE_MAILS_PER_ADDRESS.max; i++) tokens.push(await registerVerified(t, uniqueEmail(`retry-asker-${i}`)));
    t.smtp.failNext(2);
    for (const token of tokens) expect((await askFor(token, wanted)).statusCode).toBe(200);
    await t.jobs.worker.drain({ includeDelayed: true });
    expect(confirmations(wanted)).toHaveLength(EMAIL_CHANGE_MAILS_PER_ADDRESS.max);
  });

  it("counts each mail of a change asked for again, though the first mail's job minted its token already", async () => {
    const wanted = uniqueEmail('wanted-again');
    // Asked for, then another address, then the first again, before the worker runs: the change pending
    // is the first address again, with both its jobs due (the one of the other address does nothing).
    const users = Math.ceil(EMAIL_CHANGE_MAILS_PER_ADDRESS.max / 2) + 1;
    for (let i = 0; i < users; i++) {
      const token = await registerVerified(t, uniqueEmail(`again-asker-${i}`));
      for (const email of [wanted, uniqueEmail(`elsewhere-${i}`), wanted]) expect((await askFor(token, email)).statusCode).toBe(200);
    }
    await t.drainJobs();
    expect(confirmations(wanted)).toHaveLength(EMAIL_CHANGE_MAILS_PER_ADDRESS.max);
  });
});
