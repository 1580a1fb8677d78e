import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/infra/clock.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createJobRunner, type JobRunner } from '../../src/worker.js';
import { askEmailChange, mailTo, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { engine, migratedScratchDatabase, TEST_CARD_TOKEN_KEYS } from '../helpers/test-app.js';
import { oneClick, oneClickPath, subscribeConfirmed } from './helpers.js';

// The CLI opens the database itself (one command as a process of its own), so the database is a
// file (SQLite) or a scratch database (PostgreSQL) that it and the app share.
let dir: string;
let env: Record<string, string>;
let drop: () => Promise<void> = async () => {};
let database: DatabaseHandle;
let app: App;
let jobs: JobRunner;
let smtp: SmtpCatcher;
let t: AccountsTestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-newsletter-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  // The app built below opens saved cards' tokens as the commands do (PostgreSQL requires the key).
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}`, CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS };
  if (scratch) drop = scratch.drop;
  expect((await runCli(['migrate'], env)).code).toBe(0);
  smtp = await startSmtpCatcher();
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', SMTP_URL: smtp.url, MAIL_DIR: dir });
  database = createDatabase(env.DATABASE_URL!);
  app = await buildApp(config, { database });
  jobs = createJobRunner(database, config, app.log, { clock: systemClock });
  t = { app, database, config, clock: systemClock, jobs, smtp, drainJobs: () => jobs.worker.drain() } as unknown as AccountsTestApp;
});

afterAll(async () => {
  await jobs?.stop();
  await app?.close();
  await database?.close();
  await smtp?.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('storefront newsletter export', () => {
  const kept = uniqueEmail('export-kept');
  const gone = uniqueEmail('export-gone');

  it('prints the current subscribers as NDJSON: email, language, store and consent time; not withdrawn ones', async () => {
    await subscribeConfirmed(t, kept, 'ru', 'WEB2');
    await oneClick(t, oneClickPath(await subscribeConfirmed(t, gone)));
    const result = await runCliProcess(['newsletter', 'export'], env);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([{ email: kept, language: 'ru', store: 'WEB2', consentedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) }]);
  });

  it('prints CSV with a header, quoting where needed, and filters by store', async () => {
    const now = Date.now();
    const tricky = 'quote"comma,@example.ee';
    await database.db
      .insertInto('newsletter_subscriber')
      .values({
        email: tricky,
        store_code: 'WEB',
        language: 'et',
        source: 'import',
        consented_at: now,
        withdrawn_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const csv = await runCli(['newsletter', 'export', '--format=csv'], env);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toBe('email,language,store,consentedAt');
    expect(rows).toContain(`"quote""comma,@example.ee",et,WEB,${new Date(now).toISOString()}`);
    expect(rows.some((row) => row.startsWith(`${kept},ru,WEB2,`))).toBe(true);
    expect(rows).toHaveLength(3);
    const web2 = await runCli(['newsletter', 'export', '--store=WEB2'], env);
    expect(web2.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('reads page by page: every current subscriber of more than a page, once, in order', async () => {
    const now = Date.now();
    const values = Array.from({ length: 1203 }, (_, i) => ({
      email: `bulk${i}@example.ee`,
      store_code: 'WEB',
      language: 'en',
      source: 'import',
      consented_at: now,
      withdrawn_at: i % 3 === 0 ? now : null,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < values.length; i += 300)
      await database.db
        .insertInto('newsletter_subscriber')
        .values(values.slice(i, i + 300))
        .execute();
    const result = await runCli(['newsletter', 'export'], env);
    expect(result.code, result.stderr).toBe(0);
    const emails = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).email as string);
    const bulk = emails.filter((email) => email.startsWith('bulk'));
    expect(bulk).toEqual(values.filter((v) => v.withdrawn_at === null).map((v) => v.email));
    expect(new Set(emails).size).toBe(emails.length);
  });

  it('shows a subscription that a confirmed email change moved at the new address only, with its consent time', async () => {
    const oldEmail = uniqueEmail('export-moved-old');
    const newEmail = uniqueEmail('export-moved-new');
    const access = await registerVerified(t, oldEmail);
    await subscribeConfirmed(t, oldEmail, 'ru', 'WEB2');
    const exportedRows = async () =>
      (await runCli(['newsletter', 'export', '--store=WEB2'], env)).stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((row) => row.email === oldEmail || row.email === newEmail);
    const [before] = await exportedRows();
    expect(before).toMatchObject({ email: oldEmail, language: 'ru', store: 'WEB2' });

    expect((await askEmailChange(t, access, newEmail)).statusCode).toBe(200);
    const token = /[?&]token=([A-Za-z0-9_-]+)/.exec((await mailTo(t, newEmail, /Confirm your new email/)).text ?? '')![1]!;
    const confirmed = await app.inject({
      method: 'POST',
      url: '/user/me/confirm-email',
      headers: { authorization: `Bearer ${access}`, store: 'WEB' },
      payload: { token },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);

    expect(await exportedRows()).toEqual([{ ...before, email: newEmail }]);
  });

  it('leaves out an address the mail server refused as no mailbox, until a mail to it is accepted', async () => {
    const dead = uniqueEmail('export-dead');
    await subscribeConfirmed(t, dead, 'et', 'WEB');
    const exportedEmails = async () =>
      (await runCli(['newsletter', 'export', '--store=WEB'], env)).stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).email as string);
    expect(await exportedEmails()).toContain(dead);

    await database.db.insertInto('refused_mail_address').values({ address: dead, refused_at: Date.now() }).execute();
    const without = await exportedEmails();
    expect(without).not.toContain(dead);
    expect(without).toContain('bulk1@example.ee');

    await database.db.deleteFrom('refused_mail_address').where('address', '=', dead).execute();
    expect(await exportedEmails()).toContain(dead);
  });

  it('refuses unknown arguments with exit 2', async () => {
    for (const args of [
      ['newsletter', 'import'],
      ['newsletter', 'export', '--format=xml'],
      ['newsletter', 'export', '--store=SHOP'],
    ]) {
      const result = await runCli(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: /);
    }
  }, 60_000);
});
