import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestConsentEvents } from '../../src/modules/profile/profile.repository.js';
import { createCustomer, type TestCustomer, userIdOf } from '../helpers/customers.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from './helpers.js';

// GET /client-account shows when each marketing consent was last given and last withdrawn. A user
// adds an event with every toggle; the answer reads only the newest of each consent and answer (of
// EMAIL, in the store), through marketing_consent_event_latest_idx (migration 0500) and
// marketing_consent_event_store_idx (migration 2026_12_11_1500), however long
// the history.

const TOGGLES = 30;
const BASE = Date.UTC(2026, 0, 1);
let t: TestApp;
let dora: TestCustomer;
beforeAll(async () => {
  t = await createTestApp();
  dora = await createCustomer(t.database.db);
});
afterAll(async () => t?.close());
const db = () => t.database.db;

/** The consents as the whole history says, event by event (what the profile read before). */
async function fromHistory(userId: number) {
  const events = await db().selectFrom('marketing_consent_event').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const state = (consent: string) => {
    let granted = false;
    let givenAt: string | null = null;
    let withdrawnAt: string | null = null;
    for (const event of events.filter((e) => e.consent === consent)) {
      granted = Boolean(event.granted);
      const at = new Date(Number(event.created_at)).toISOString();
      if (granted) givenAt = at;
      else withdrawnAt = at;
    }
    return { granted, givenAt, withdrawnAt };
  };
  return { email: state('EMAIL'), sms: state('SMS'), personalisation: state('PERSONALISATION') };
}

describe('the marketing consents after many toggles', () => {
  it("shows each consent's latest state and times", async () => {
    const call = as(t, dora.token);
    for (let toggle = 0; toggle < TOGGLES; toggle += 1) {
      // SMS and email toggle every time; personalisation is given, withdrawn, given, left as it is.
      const body = { marketingConsents: { sms: toggle % 2 === 0, personalisation: toggle % 3 !== 1, email: toggle % 2 === 1 } };
      const response = await call('PUT', '/client-account', body);
      expect(response.statusCode, response.body).toBe(200);
    }
    const userId = await userIdOf(db(), dora);
    // Each event its own time, in the order they were made, so the latest of each is told apart.
    const events = await db().selectFrom('marketing_consent_event').select('id').where('user_id', '=', userId).execute();
    expect(events.length).toBeGreaterThan(TOGGLES);
    for (const event of events) {
      await db()
        .updateTable('marketing_consent_event')
        .set({ created_at: BASE + Number(event.id) * 1000 })
        .where('id', '=', event.id)
        .execute();
    }
    const expected = await fromHistory(userId);
    // The email consent's toggles subscribed the login email each time too, and its times count
    // (email-consent-times.test.ts): the subscription is given the same history's last consent time.
    const email = (await db().selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email;
    await db()
      .updateTable('newsletter_subscriber')
      .set({ consented_at: Date.parse(expected.email.givenAt!) })
      .where('email', '=', email)
      .execute();
    const response = await call('GET', '/client-account');
    expect(response.statusCode, response.body).toBe(200);
    // The last toggle (29) left SMS withdrawn, personalisation and email given.
    expect(expected.sms.granted).toBe(false);
    expect(expected.personalisation.granted).toBe(true);
    expect(expected.email.granted).toBe(true);
    expect(expected.sms.givenAt).not.toBeNull();
    expect(expected.sms.withdrawnAt).not.toBeNull();
    expect(response.json().marketingConsents).toEqual(expected);
  });

  it('reads them through marketing_consent_event_store_idx and _latest_idx, one seek each', async () => {
    const { db: recorded, statements } = recordingStatements(db());
    const userId = await userIdOf(db(), dora);
    expect((await latestConsentEvents(recorded, userId, 'WEB')).length).toBe(6);
    // The plugin sees each part of the union too; the statement run is the whole union.
    const union = statements.find((statement) => statement.sql.split(' union all ').length === 6)!;
    expect(union).toBeDefined();
    const plan = await planOfStatement(db(), union);
    // EMAIL's two (given and withdrawn in the store) by store; SMS's and PERSONALISATION's two each.
    expect(plan.match(/marketing_consent_event_store_idx/g)?.length, plan).toBe(2);
    expect(plan, plan).not.toMatch(/Filter:/);
    expect(plan.match(/marketing_consent_event_latest_idx/g)?.length, plan).toBe(4);
    expect(plan).not.toMatch(/TEMP B-TREE|Sort|SCAN marketing_consent_event\b(?! USING)/);
  });
});
