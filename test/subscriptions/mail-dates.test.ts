import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bill,
  call,
  createCustomer,
  mailsReceivedBy,
  saveCard,
  setMailLanguage,
  subscribe,
  type MailingShop,
  startMailingShop,
} from './helpers.js';

// The day a subscription's mail says it can be used until is the day in Tallinn on which its period ends.
// Read in UTC, a period ending in the first two or three hours of a day in Tallinn was named the day before.

let s: MailingShop;
beforeAll(async () => {
  s = await startMailingShop();
});
afterAll(() => s.close());

describe("a subscription mail's date", () => {
  it('is the day in Tallinn its period ends: 00:30 there on 5 January is the 5th (22:30 UTC on the 4th)', async () => {
    const customer = await createCustomer(s.t.database.db);
    await setMailLanguage(s, customer, 'en');
    await saveCard(s, customer);
    const trial = await subscribe(s, customer, 'AUDIO1');
    expect(trial.json()).toMatchObject({ status: 'TRIAL' });
    const id = trial.json().id as number;
    await s.t.database.db
      .updateTable('subscription')
      .set({ period_end: Date.parse('2027-01-05T00:30:00+02:00') })
      .where('id', '=', id)
      .execute();
    expect((await call(s, customer, 'DELETE', `/subscription/${id}`)).statusCode).toBe(200);
    const cancelled = (await mailsReceivedBy(s, customer)).find((mail) => mail.subject?.endsWith('is cancelled'));
    expect(cancelled?.text).toContain('You can use it until 2027-01-05;');
  });

  it('is left out when the subscription ends at the cancel: one cancelled while its renewal failed has no day left', async () => {
    const customer = await createCustomer(s.t.database.db);
    await setMailLanguage(s, customer, 'en');
    await saveCard(s, customer);
    await s.everypay.callbacksIdle();
    const made = await subscribe(s, customer, 'SHELF5');
    expect(made.json()).toMatchObject({ status: 'ACTIVE' });
    const id = made.json().id as number;
    s.everypay.setCardOutcome(s.everypay.cards().at(-1)!.token, 'failed');
    await bill(s, Date.parse(made.json().currentPeriodEnd) + 1000);
    const cancel = await call(s, customer, 'DELETE', `/subscription/${id}`);
    expect(cancel.json()).toMatchObject({ status: 'ENDED' });
    const cancelled = (await mailsReceivedBy(s, customer)).find((mail) => mail.subject?.endsWith('is cancelled'));
    expect(cancelled?.text).toContain('is cancelled and has ended; nothing more will be charged.');
    expect(cancelled?.text).not.toContain('until');
  });
});
