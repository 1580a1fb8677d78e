import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/infra/jobs/queue.js';
import { createTestGateway } from '../../src/modules/payments/index.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { sample, scrape } from './metrics-text.js';

// The figures of /metrics move with the work: requests by route and status, SQL statements, jobs
// in the outbox, mails through a real SMTP server, payment outcomes, cache lookups. Counters are the
// process's (shared by the test files of a worker), so each check compares before and after.

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TestApp;
let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    env: { METRICS_TOKEN: TOKEN, SMTP_URL: smtp.url, TEST_GATEWAY: 'on', CATALOGUE_CACHE_TTL_MS: '30000' },
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const metrics = () => scrape(t, TOKEN);

/** Registration queues a job whose mail the worker sends (test/helpers/accounts.ts does the same). */
async function register(email: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/auth/register-simple',
    headers: { store: 'WEB' },
    payload: { email, firstName: 'Mari', lastName: 'Maasikas' },
  });
  await t.drainJobs();
  return response;
}
const requestCount = (text: string, route: string, status: string) =>
  sample(text, 'storefront_http_request_duration_seconds_count', { method: 'GET', route, status }) ?? 0;

describe('/metrics values', () => {
  it('counts and times requests by route pattern and status, never by raw URL', async () => {
    const before = await metrics();
    for (let i = 0; i < 5; i += 1) expect((await t.app.inject({ method: 'GET', url: '/site/health' })).statusCode).toBe(200);
    for (const id of [1, 2, 999_999]) await t.app.inject({ method: 'GET', url: `/product/${id}?token=secret` });
    await t.app.inject({ method: 'GET', url: '/no/such/path/4711' });
    const after = await metrics();
    expect(requestCount(after, '/site/health', '200') - requestCount(before, '/site/health', '200')).toBe(5);
    expect(requestCount(after, '/product/:id', '404') - requestCount(before, '/product/:id', '404')).toBeGreaterThanOrEqual(1);
    expect(requestCount(after, '(unmatched)', '404') - requestCount(before, '(unmatched)', '404')).toBe(1);
    const bucket = sample(after, 'storefront_http_request_duration_seconds_bucket', { route: '/site/health', status: '200', le: '+Inf' });
    expect(bucket).toBe(requestCount(after, '/site/health', '200'));
    // Sample values are numbers with any digits (a _sum of 5.716471114999836 s once matched 4711): the
    // names, labels and help texts are what must not hold a raw URL or a query value.
    const withoutValues = after
      .split('\n')
      .map((line) => (line.startsWith('#') ? line : line.replace(/ \S+$/, '')))
      .join('\n');
    expect(withoutValues).not.toMatch(/4711|\/product\/1\b|\/product\/999999|secret/);
  });

  it("times the database's statements and reports its connections", async () => {
    const count = (text: string) => sample(text, 'storefront_db_statement_duration_seconds_count', { engine }) ?? 0;
    const before = await metrics();
    await t.app.inject({ method: 'GET', url: '/country' });
    const after = await metrics();
    expect(count(after)).toBeGreaterThan(count(before));
    expect(sample(after, 'storefront_db_statement_duration_seconds_sum', { engine })).toBeGreaterThan(0);
    expect(sample(after, 'storefront_db_connections', { state: 'max' })).toBe(engine === 'postgres' ? 10 : 1);
    expect(sample(after, 'storefront_db_connections', { state: 'open' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'storefront_db_connections', { state: 'waiting' })).toBe(0);
  });

  it('reports jobs pending, dead and the age of the oldest due one, read from the outbox at scrape time', async () => {
    const before = await metrics();
    const jobs = (text: string, status: string) => sample(text, 'storefront_jobs', { status }) ?? 0;
    const now = Date.now();
    await enqueueJob(
      t.database.db,
      { type: 'metrics-test.no-handler', payload: {}, runAt: now - 90_000, maxAttempts: 1 },
      { maxAttempts: 1, now },
    );
    const queued = await metrics();
    expect(jobs(queued, 'pending')).toBe(jobs(before, 'pending') + 1);
    expect(sample(queued, 'storefront_job_oldest_due_age_seconds')).toBeGreaterThanOrEqual(90);
    await t.drainJobs();
    const done = await metrics();
    expect(jobs(done, 'pending')).toBe(0);
    expect(jobs(done, 'dead')).toBe(jobs(before, 'dead') + 1);
    expect(sample(done, 'storefront_job_oldest_due_age_seconds')).toBe(0);
  });

  it('counts mails sent, failed and refused for good through a real SMTP server', async () => {
    const mails = (text: string, result: string) => sample(text, 'storefront_mails_total', { result }) ?? 0;
    const before = await metrics();
    expect((await register('metrics-sent@raamat.ee')).statusCode).toBe(200);
    await smtp.waitFor((mail) => mail.text?.includes('verificationToken') ?? false);
    const sent = await metrics();
    expect(mails(sent, 'sent')).toBe(mails(before, 'sent') + 1);
    expect(mails(sent, 'failed')).toBe(mails(before, 'failed'));

    smtp.failNext(1);
    expect((await register('metrics-failed@raamat.ee')).statusCode).toBe(200);
    const failed = await metrics();
    expect(mails(failed, 'failed')).toBe(mails(sent, 'failed') + 1);
    expect(mails(failed, 'sent')).toBe(mails(sent, 'sent'));

    // A mailbox that does not exist: refused, and its job ends there instead of retrying until it is dead.
    smtp.refuseRecipient('metrics-nobody@raamat.ee', '550 5.1.1 No such user');
    expect((await register('metrics-nobody@raamat.ee')).statusCode).toBe(200);
    const refused = await metrics();
    expect(mails(refused, 'refused')).toBe(mails(failed, 'refused') + 1);
    expect(mails(refused, 'failed')).toBe(mails(failed, 'failed'));
    const job = await t.database.db
      .selectFrom('job')
      .select(['status', 'attempts', 'result', 'last_error'])
      .where('last_error', 'like', '%5.1.1 No such user%')
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'done', attempts: 1, result: 'refused: no such mailbox' });
  });

  it('counts payment statuses by gateway, state and outcome', async () => {
    const outcome = (text: string) =>
      sample(text, 'storefront_payments_total', { gateway: 'test', state: 'pending', applied_to: 'none', outcome: 'unknown' }) ?? 0;
    const gateway = createTestGateway(t.database, { publicUrl: t.config.social.publicUrl, basePath: t.config.basePath });
    // A payment the gateway has and no order of the shop knows: its callback is applied as unknown.
    const created = await gateway.createPayment({
      orderReference: 'WT000001',
      amountCents: 1000,
      currency: 'EUR',
      customerEmail: 'buyer@example.com',
      customerIp: '127.0.0.1',
      locale: 'et',
      returnUrl: 'http://127.0.0.1:9/return',
      callbackUrl: 'http://127.0.0.1:9/callback',
      idempotencyKey: 'metrics-test-payment',
    });
    const before = await metrics();
    const callback = await t.app.inject({ method: 'GET', url: `/payment/test/callback?payment_reference=${created.reference}` });
    expect(callback.statusCode).toBe(404);
    expect(outcome(await metrics())).toBe(outcome(before) + 1);
  });

  it("reports the catalogue caches' hit ratios", async () => {
    await t.app.inject({ method: 'GET', url: '/product?per-page=5' });
    const before = await metrics();
    const lookups = (text: string, result: string) =>
      sample(text, 'storefront_cache_lookups_total', { cache: 'guest-answers', result }) ?? 0;
    await t.app.inject({ method: 'GET', url: '/product?per-page=5' });
    const after = await metrics();
    expect(lookups(after, 'hit')).toBe(lookups(before, 'hit') + 1);
    const ratio = sample(after, 'storefront_cache_hit_ratio', { cache: 'guest-answers' });
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThanOrEqual(1);
  });

  it('reports search changes waiting and the event-loop lag', async () => {
    const text = await metrics();
    expect(sample(text, 'storefront_search_changes_pending')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });
});
