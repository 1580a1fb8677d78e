import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/infra/clock.js';
import { createWebhookDispatcher, eventFeedCommand, type WebhookDispatcher } from '../../src/modules/integrations/index.js';
import { addEndpoint } from '../../src/modules/integrations/webhooks.service.js';
import {
  createAccountsTestApp,
  GOOD_PASSWORD,
  register,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { startWebhookReceiver, type WebhookReceiver } from '../integrations/webhook-receiver.js';
import { subscribeConfirmed } from '../newsletter/helpers.js';
import { as } from '../profile/helpers.js';

// The events of an address without an account (a newsletter subscription, a guest's orders) are in
// the stream `email:<address>`. The erasure of the person whose confirmed login email it became
// blanks their data, and the stream's name, which is the address itself, goes too: the pull feed,
// the webhooks still to send and the stream's counter name the placeholder's stream instead.

let t: AccountsTestApp;
let receiver: WebhookReceiver;
let dispatcher: WebhookDispatcher;
let feedToken: string;
beforeAll(async () => {
  t = await createAccountsTestApp();
  receiver = await startWebhookReceiver();
  await addEndpoint(
    t.database.db,
    { name: 'crm', url: receiver.url, eventTypes: 'consent.,customer.', maxAttempts: 10, fromStart: false },
    Date.now(),
  );
  dispatcher = createWebhookDispatcher({ db: t.database.db, log: t.app.log, clock: systemClock, backoffBaseMs: 1 });
  const lines: string[] = [];
  await eventFeedCommand({ db: t.database.db, clock: systemClock }, ['add', 'platform'], (line) => lines.push(line));
  feedToken = lines.at(-1)!;
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function feedText(): Promise<string> {
  const pages: unknown[] = [];
  let after = '0';
  for (;;) {
    const response = await t.app.inject({
      method: 'GET',
      url: `/integration/events?after=${after}&limit=1000`,
      headers: { authorization: `Bearer ${feedToken}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json() as { events: unknown[]; next: string };
    if (page.events.length === 0) return JSON.stringify(pages);
    pages.push(...page.events);
    after = page.next;
  }
}

describe('the erasure of a person whose address had events of its own (before the account)', () => {
  it('leaves the address in no stream: neither the feed, the webhooks nor the tables name it', async () => {
    const email = uniqueEmail('streamed');
    await subscribeConfirmed(t, email);
    // The platform is down: the consent event's delivery waits for its retry.
    receiver.answer = () => 503;
    await dispatcher.runOnce();
    expect(receiver.received.some((r) => r.body.stream === `email:${email}`)).toBe(true);
    expect(await feedText()).toContain(email);

    expect((await register(t, email)).statusCode).toBe(200);
    const mail = await t.smtp.waitFor((m) => (m.text ?? '').includes('verificationToken=') && JSON.stringify(m.to).includes(email));
    const verified = await verify(t, tokenFromMail(mail, 'verificationToken'));
    expect(verified.statusCode, verified.body).toBe(200);
    const token = verified.json().accessToken as string;
    // The export names the platform the waiting webhook is for.
    const exported = await as(t, token)('GET', '/client-account/export');
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().partnerDeliveries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ platform: 'crm', eventType: 'consent.changed', status: 'pending', deliveredAt: null }),
      ]),
    );
    const erased = await as(t, token)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);

    expect(await feedText()).not.toContain(email);
    const db = t.database.db;
    expect(await db.selectFrom('integration_event').select('id').where('stream', 'like', `%${email}%`).execute()).toEqual([]);
    expect(await db.selectFrom('integration_stream').select('stream').where('stream', 'like', `%${email}%`).execute()).toEqual([]);
    expect(await db.selectFrom('webhook_delivery').select('id').where('stream', 'like', `%${email}%`).execute()).toEqual([]);

    // The platform is back: the waiting delivery goes out naming no address, in the order of its stream.
    receiver.received.length = 0;
    receiver.answer = () => 200;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await dispatcher.runOnce();
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(receiver.received.map((r) => r.raw).join('\n')).not.toContain(email);
  }, 60_000);
});
