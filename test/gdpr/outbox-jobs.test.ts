import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneExpired } from '../../src/infra/maintenance.js';
import { createAccountsTestApp, GOOD_PASSWORD, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { setUpShop, stockedBook } from '../orders/helpers.js';
import { placeOrder } from '../orders/purchase-helpers.js';
import { expectIndexMatchesPayloads, jobsNaming, storedJobs, writeJobBySql, type StoredJob } from '../helpers/job-emails.js';
import { as } from '../profile/helpers.js';

// The outbox's part of "your data" finds the jobs whose payload names the person through job_email,
// which triggers on job keep (migration 0400): the jobs the real flows queue (a registration, a
// reset asked in capitals, contact messages, a business registration, an order's jobs), a job an
// older process writes by plain SQL, and nobody else's. After every write the index is exactly
// what the payloads name, and the erasure's rewrite moves its rows to the erased address.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(async () => t?.close());

const exportOf = async (token: string) => {
  const response = await as(t, token)('GET', '/client-account/export');
  expect(response.statusCode, response.body).toBe(200);
  return response.json().outbox as Array<{ type: string; status: string; queuedAt: string }>;
};

const listed = (jobs: StoredJob[]) => jobs.map((job) => ({ type: job.type, status: job.status, queuedAt: expect.any(String) }));

const contact = (email: string, message: string) =>
  t.app.inject({ method: 'POST', url: '/contact', payload: { name: 'Mari Maasikas', email, subject: 'Küsimus', message } });

describe("the outbox's part of GET /client-account/export and DELETE /client-account", () => {
  it('lists exactly the jobs naming the person, and the erasure rewrites them and their index rows', async () => {
    const alice = uniqueEmail('alice');
    const bob = uniqueEmail('bob');
    const aliceToken = await registerVerified(t, alice);
    const bobToken = await registerVerified(t, bob);

    // An order of Alice's, processed by the worker (its jobs carry the order's id, not her address).
    const shop = await setUpShop(t);
    const book = await stockedBook(t, shop, 10, 12.5);
    const order = await placeOrder(t, shop, { bearer: aliceToken }, [[book, 1]], { form: { shippingEmail: alice, billingEmail: alice } });
    await t.drainJobs();

    // Queued and not yet run: a reset asked in capitals, her contact message (its address as she
    // typed it, a lone surrogate in the text, which jsonb refuses), a business
    // registration naming her as the contact, and Bob's message that mentions her address in its text.
    const reset = await t.app.inject({ method: 'POST', url: '/auth/reset-password', payload: { email: alice.toUpperCase() } });
    expect(reset.statusCode, reset.body).toBe(200);
    const mixedCase = alice.replace(/^a/, 'A').replace(/example\.ee$/, 'Example.EE');
    const sent = await contact(mixedCase, 'Tere \ud800 kas raamat on olemas?');
    expect(sent.statusCode, sent.body).toBe(202);
    expect((await contact(bob, `Please write to ${alice} as well`)).statusCode).toBe(202);
    const business = await t.app.inject({
      method: 'POST',
      url: '/auth/register-business',
      payload: {
        companyName: 'Raamatukoi OÜ',
        registryCode: '12345678',
        address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
        contact: { firstName: 'Alice', lastName: 'Aasmäe', email: alice, phone: '+3725551234' },
      },
    });
    expect(business.statusCode, business.body).toBe(200);
    // Written by plain SQL as an older process would: spaces and capitals around the address.
    const legacy = await writeJobBySql(t.database.db, 'legacy.mail', JSON.stringify({ to: `  ${alice.toUpperCase()} `, note: 'vana' }));
    // Not JSON: written all the same, and named by nothing.
    await writeJobBySql(t.database.db, 'legacy.broken', `{"to": "${alice}", oops`);

    const jobs = await storedJobs(t.database.db);
    const types = new Set(jobs.map((job) => job.type));
    expect([...types]).toEqual(expect.arrayContaining(['account.mail', 'contact.mail', 'order.process', 'order.mail', 'legacy.mail']));
    const alices = jobsNaming(jobs, alice);
    // The registration, the reset, her two contact mails, the business registration and the legacy job.
    expect(alices.map((job) => job.type).sort()).toEqual(
      ['account.mail', 'account.mail', 'account.mail', 'contact.mail', 'contact.mail', 'legacy.mail'].sort(),
    );
    expect(alices.map((job) => job.id)).toContain(legacy);
    await expectIndexMatchesPayloads(t.database.db);

    expect(await exportOf(aliceToken)).toEqual(listed(alices));
    const bobs = jobsNaming(jobs, bob);
    expect(bobs.map((job) => job.type).sort()).toEqual(['account.mail', 'contact.mail', 'contact.mail']);
    expect(await exportOf(bobToken)).toEqual(listed(bobs));

    await t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('id', '=', order.orderId).execute();
    const erased = await as(t, aliceToken)('DELETE', '/client-account', { password: GOOD_PASSWORD });
    expect(erased.statusCode, erased.body).toBe(204);

    const after = await storedJobs(t.database.db);
    expect(jobsNaming(after, alice)).toEqual([]);
    const { id: userId } = await t.database.db
      .selectFrom('app_user')
      .select('id')
      .where('email', 'like', 'erased-%@erased.invalid')
      .executeTakeFirstOrThrow();
    const erasedEmail = `erased-${Number(userId)}@erased.invalid`;
    // Her jobs now name the placeholder, the index with them; those not run are ended.
    expect(jobsNaming(after, erasedEmail).map((job) => job.id)).toEqual(alices.map((job) => job.id));
    const listedErased = await t.database.db
      .selectFrom('job_email')
      .select('job_id')
      .where('email', '=', erasedEmail)
      .orderBy('job_id')
      .execute();
    expect(listedErased.map((row) => Number(row.job_id))).toEqual(alices.map((job) => job.id));
    const pendingBefore = alices.filter((job) => job.status === 'pending').map((job) => job.id);
    expect(pendingBefore.length).toBe(5);
    const ended = await t.database.db.selectFrom('job').select(['id', 'status', 'result']).where('id', 'in', pendingBefore).execute();
    for (const job of ended) expect(job).toMatchObject({ status: 'done', result: 'cancelled: the person was erased' });
    // Bob's message that mentions her address in its text is his, not hers: left as it was, still queued.
    const bobsMention = after.find((job) => job.type === 'contact.mail' && job.payload.includes('Please write to'))!;
    expect(bobsMention.status).toBe('pending');
    expect(jobs.find((job) => job.id === bobsMention.id)!.payload).toBe(bobsMention.payload);
    expect(await exportOf(bobToken)).toEqual(listed(bobs));
    await expectIndexMatchesPayloads(t.database.db);
  });
});

describe('job_email, kept by triggers on job', () => {
  it('follows a payload changed by plain SQL, and a job whose payload is not JSON is written and named by nothing', async () => {
    const someone = uniqueEmail('someone');
    const id = await writeJobBySql(
      t.database.db,
      'legacy.mail',
      JSON.stringify({ to: someone, cc: [someone.toUpperCase(), { bcc: ' x@y.ee ' }], n: 1 }),
    );
    await expectIndexMatchesPayloads(t.database.db);
    const rowsOf = async (jobId: number) =>
      (await t.database.db.selectFrom('job_email').select('email').where('job_id', '=', jobId).orderBy('email').execute()).map(
        (row) => row.email,
      );
    expect(await rowsOf(id)).toEqual([someone, 'x@y.ee'].sort());

    await sql`update job set payload = ${JSON.stringify({ to: 'Other@Example.ee' })} where id = ${id}`.execute(t.database.db);
    expect(await rowsOf(id)).toEqual(['other@example.ee']);
    // A status change (the worker's claim) leaves the rows alone.
    await sql`update job set status = 'running' where id = ${id}`.execute(t.database.db);
    expect(await rowsOf(id)).toEqual(['other@example.ee']);
    await sql`update job set payload = 'not json other@example.ee' where id = ${id}`.execute(t.database.db);
    expect(await rowsOf(id)).toEqual([]);
    const broken = await writeJobBySql(t.database.db, 'legacy.broken', '{"to":"z@y.ee"');
    expect(await rowsOf(broken)).toEqual([]);
    // An address-length string is listed, a longer one (a free text) is not.
    const long = await writeJobBySql(
      t.database.db,
      'legacy.mail',
      JSON.stringify({ a: `${'a'.repeat(300)}@b.ee`, b: `${'a'.repeat(400)}@b.ee` }),
    );
    expect(await rowsOf(long)).toEqual([`${'a'.repeat(300)}@b.ee`]);
    await expectIndexMatchesPayloads(t.database.db);
  });

  it("lists at most 1 000 of a person's jobs, the oldest first", async () => {
    const email = uniqueEmail('many');
    const token = await registerVerified(t, email);
    const now = Date.now();
    const payload = JSON.stringify({ to: email });
    await sql`insert into job (type, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
      select 'legacy.mail', ${payload}, 'done', 1, 5, ${now}, ${now}, ${now} from (${sql.raw(
        t.database.engine === 'sqlite'
          ? 'with recursive s(n) as (select 1 union all select n + 1 from s where n < 1001) select n from s'
          : 'select generate_series(1, 1001) as n',
      )}) numbers`.execute(t.database.db);
    const outbox = await exportOf(token);
    expect(outbox).toHaveLength(1_000);
    // Her registration came first.
    expect(outbox[0]!.type).toBe('account.mail');
    expect(outbox.slice(1).every((job) => job.type === 'legacy.mail')).toBe(true);
  });

  it('loses the rows of the jobs the hourly prune deletes, and keeps the others', async () => {
    const db = t.database.db;
    const old = uniqueEmail('old');
    const kept = await writeJobBySql(t.database.db, 'legacy.mail', JSON.stringify({ to: old }));
    const done = await writeJobBySql(t.database.db, 'legacy.mail', JSON.stringify({ to: old }));
    const now = Date.now();
    await db
      .updateTable('job')
      .set({ status: 'done', updated_at: now - 31 * 86_400_000 })
      .where('id', '=', done)
      .execute();
    expect(
      (await db.selectFrom('job_email').select('job_id').where('email', '=', old).orderBy('job_id').execute()).map((row) =>
        Number(row.job_id),
      ),
    ).toEqual([kept, done]);
    expect((await pruneExpired(db, now)).jobs).toBeGreaterThanOrEqual(1);
    expect((await db.selectFrom('job_email').select('job_id').where('email', '=', old).execute()).map((row) => Number(row.job_id))).toEqual(
      [kept],
    );
    await expectIndexMatchesPayloads(t.database.db);
  });
});
