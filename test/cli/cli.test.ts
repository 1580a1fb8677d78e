import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { createEveryPayGateway } from '../../src/modules/payments/index.js';
import { everypayEnv } from '../orders/everypay-helpers.js';
import { MIT_PATH } from '../subscriptions/helpers.js';
import { runCli, runCliProcess, startCli } from '../helpers/cli.js';
import { createCustomer, userIdOf } from '../helpers/customers.js';
import { startEveryPayServer } from '../helpers/everypay-server.js';
import { engine, scratchDatabase } from '../helpers/test-app.js';
import { storedRateLimitKey } from '../../src/infra/rate-limit.js';

let env: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-cli-'));
  const scratch = engine === 'postgres' ? await scratchDatabase() : undefined;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
  cleanup = async () => {
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  };
});
afterAll(() => cleanup());

describe('the CLI', () => {
  // The binary itself: its arguments, output and exit status (0, 1 on bad settings, 2 on a bad
  // command line) are runCli's. The other tests here, and the commands' own files, call runCli.
  it('migrates, and a second migrate has nothing to do', async () => {
    const first = await runCliProcess(['migrate'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('create_web_store');
    const second = await runCli(['migrate'], env);
    expect(second.stdout).toContain('up to date');
  });

  it('seeds demo data idempotently', async () => {
    const first = await runCli(['seed', '--demo'], env);
    const second = await runCli(['seed', '--demo'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout).toMatch(/"countries":\d+/);
    // Two whole demo seeds: about 12 s on a quiet PostgreSQL here (in child processes, as they
    // were), past the default 20 s when the machine is shared.
  }, 60_000);

  it('runs `subscription bill` and prints what the run did', async () => {
    const result = await runCli(['subscription', 'bill'], { ...env, TEST_GATEWAY: 'on' });
    expect(result.code, result.stderr).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout) as object).sort()).toEqual(
      [
        'cardsUnopened',
        'charged',
        'ended',
        'failed',
        'pending',
        'reconciled',
        'refunded',
        'refundsRefused',
        'refundsLeft',
        'skipped',
        'stuck',
      ].sort(),
    );
  });

  it("answers `subscription charges` without one list (--pending, --mismatched or --refund-refused) with that command's usage, not as an unknown command", async () => {
    const lists = [['charges'], ['charges', '--all'], ['charges', '--pending', 'extra'], ['charges', '--mismatched', '--pending']];
    for (const args of lists) {
      const result = await runCli(['subscription', ...args], env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(
        /^error: subscription charges --pending \(the charges still pending after 10 minutes\) \| --mismatched \(pending, paid otherwise than asked\) \| --refund-refused \(refunds the gateway refused for good\)\n/,
      );
      expect(result.stderr).not.toContain('unknown subscription command');
    }
    for (const list of ['--pending', '--mismatched', '--refund-refused']) {
      const listed = await runCli(['subscription', 'charges', list], env);
      expect(listed.code, listed.stderr).toBe(0);
    }
  });

  // The run charges through the gateways worker.ts's workerGateways builds from the command's own
  // settings: a subscription due on a card saved at EveryPay is charged at the local EveryPay server
  // the EVERYPAY_* variables name, once, and renewed. Gateways built without EveryPay (or with another
  // server) would leave the charge pending and EveryPay without a request.
  it('runs `subscription bill` through the EveryPay its settings name: a due subscription on an EveryPay card is charged there', async () => {
    const everypay = await startEveryPayServer();
    const database = createDatabase(env.DATABASE_URL!);
    try {
      expect((await runCli(['migrate'], env)).code).toBe(0);
      // A card saved at EveryPay as the card page saves one: a token-requesting payment the shopper pays.
      const config = {
        apiUrl: everypay.url,
        apiUsername: everypay.apiUsername,
        apiSecret: everypay.apiSecret,
        accountName: everypay.accountName,
      };
      const saving = await createEveryPayGateway({ ...config, timeoutMs: 1500 }).createPayment({
        orderReference: `CARDCLI${Date.now()}`,
        amountCents: 0,
        currency: 'EUR',
        customerEmail: 'cli-bill@example.ee',
        customerIp: null,
        locale: 'et',
        returnUrl: 'http://shop.invalid/return',
        callbackUrl: 'http://shop.invalid/callback',
        idempotencyKey: `cli-card-${Date.now()}`,
        requestToken: true,
      });
      await everypay.shopper(saving.reference, 'pay');
      const token = everypay.cards().at(-1)!.token;
      const db = database.db;
      const customer = await createCustomer(db);
      const userId = await userIdOf(db, customer);
      const now = Date.now();
      const plan = await db
        .insertInto('subscription_plan')
        .values({
          code: `CLI${now}`,
          kind: 'EBOOK_SHELF',
          titles: JSON.stringify({ et: 'CLI riiul', en: null, ru: null }),
          credits_per_month: null,
          shelf_size: 3,
          price_cents: 650,
          trial_days: 0,
          stores: 'WEB',
          position: 1,
          is_active: true,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const card = await db
        .insertInto('subscription_card')
        .values({
          client_account_id: customer.clientAccountId,
          store_code: 'WEB',
          gateway: 'everypay',
          state: 'ACTIVE',
          order_reference: `CARDCLI${now}`,
          payment_reference: saving.reference,
          redirect: null,
          token,
          brand: 'master_card',
          last_four: '1002',
          expiry_month: 12,
          expiry_year: new Date().getUTCFullYear() + 3,
          is_default: true,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const sub = await db
        .insertInto('subscription')
        .values({
          client_account_id: customer.clientAccountId,
          user_id: Number(userId),
          store_code: 'WEB',
          plan_id: Number(plan.id),
          status: 'ACTIVE',
          live_key: `${customer.clientAccountId}:EBOOK`,
          card_id: Number(card.id),
          trial: false,
          period_number: 1,
          period_start: now - 31 * 86_400_000,
          period_end: now - 60_000,
          next_plan_id: null,
          cancel_at_period_end: false,
          failed_attempts: 0,
          next_attempt_at: null,
          created_at: now,
          updated_at: now,
          ended_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(sub.id);

      const result = await runCli(['subscription', 'bill'], { ...env, ...everypayEnv(everypay), TEST_GATEWAY: 'off' });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ charged: 1, pending: 0, failed: 0 });
      const charges = everypay.requests.filter((r) => r.path === MIT_PATH);
      expect(charges.map((r) => (r.body as Record<string, unknown>).order_reference)).toEqual([`SUB${id}-2P1`]);
      expect(charges[0]!.body).toMatchObject({ token, amount: 6.5 });
      const charge = await db.selectFrom('subscription_charge').selectAll().where('subscription_id', '=', id).executeTakeFirstOrThrow();
      expect(charge).toMatchObject({ gateway: 'everypay', state: 'settled', period_number: 2, amount_cents: 650 });
      expect(await db.selectFrom('subscription').selectAll().where('id', '=', id).executeTakeFirstOrThrow()).toMatchObject({
        status: 'ACTIVE',
        period_number: 2,
      });
    } finally {
      await database.close();
      await everypay.close();
    }
  });

  it('locks, unlocks and changes a store', async () => {
    const locked = await runCli(['store', 'lock', 'WEB', '--until', '2099-01-01T00:00:00Z'], env);
    expect(locked.code, locked.stderr).toBe(0);
    expect(locked.stdout).toContain('LOCKED until 2099-01-01');
    const set = await runCli(
      [
        'store',
        'set',
        'WEB2',
        '--active=false',
        '--languages=et,en',
        '--default-language=en',
        '--guest-discount=5',
        '--logged-in-discount=7.5',
      ],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('discounts: guest 5%, logged-in 7.5%');
    const list = await runCliProcess(['store', 'list'], env);
    expect(list.stdout).toMatch(/^WEB\t.*LOCKED/m);
    expect(list.stdout).toMatch(/^WEB2\t.*active=false\topen\tlanguages=et,en\tdefault=en/m);
    const unlocked = await runCli(['store', 'unlock', 'WEB'], env);
    expect(unlocked.stdout).toMatch(/^WEB\t.*\topen\t/m);
  });

  it("refuses a store name or front-end URL with a control character (exit 2) and leaves the store's as it was", async () => {
    const before = await runCli(['store', 'list'], env);
    for (const option of [
      '--name=Raamatu\tpood',
      '--name=Raamatu\npood',
      '--name=Raamatu\u001bpood',
      '--frontend-url=https://shop.example/\u0007',
    ]) {
      const result = await runCli(['store', 'set', 'WEB', option], env);
      expect(result.code, result.stdout).toBe(2);
      expect(result.stderr).toMatch(/^error: --(name|frontend-url) must be /);
    }
    expect((await runCli(['store', 'list'], env)).stdout).toBe(before.stdout);
  });

  it.each([
    [['frobnicate']],
    [[]],
    [['store', 'lock']],
    [['store', 'lock', 'SHOP']],
    [['store', 'set', 'WEB', '--active=maybe']],
    [['store', 'set', 'WEB', '--languages=et,de']],
    [['store', 'set', 'WEB', '--default-language=ru', '--languages=et']],
    [['store', 'set', 'WEB']],
    [['store', 'set', 'WEB', '--colour=red']],
    [['store', 'set', 'WEB', '--guest-discount=101']],
    [['store', 'set', 'WEB', '--logged-in-discount=-5']],
    [['store', 'set', 'WEB', '--guest-discount=5.123']],
    [['store', 'lock', 'WEB', '--until', 'yesterday']],
    [['seed']],
    [['serve', '--fast']],
  ])('refuses %j with a message and a non-zero exit', async (args) => {
    const result = await runCli(args, env);
    expect(result.code).not.toBe(0);
    expect(result.stderr.length + result.stdout.length).toBeGreaterThan(0);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  // Date.parse read a time without a zone in the server's own zone (a UTC container: 2 or 3 hours
  // off the shop's) and also took 'Dec 1 2099' and '2099-12-01 6:00'; the import refuses a moment
  // without a zone, and so does the lock.
  it.each([['2099-12-01T06:00:00'], ['2099-12-01'], ['Dec 1 2099 06:00 GMT'], ['2099-02-30T06:00:00Z'], ['2099-12-01 06:00:00Z']])(
    'refuses store lock --until %s, a time without a zone or not RFC 3339 (exit 2)',
    async (until) => {
      const result = await runCli(['store', 'lock', 'WEB', '--until', until], env);
      expect(result.code, result.stdout).toBe(2);
      expect(result.stderr).toContain('--until must be');
      expect((await runCli(['store', 'list'], env)).stdout).toMatch(/^WEB\t.*\topen\t/m);
    },
  );

  it('locks until a time with an offset', async () => {
    const locked = await runCli(['store', 'lock', 'WEB', '--until', '2099-12-01T08:00:00+02:00'], env);
    expect(locked.code, locked.stderr).toBe(0);
    expect(locked.stdout).toContain('LOCKED until 2099-12-01T06:00:00.000Z');
    expect((await runCli(['store', 'unlock', 'WEB'], env)).code).toBe(0);
  });

  it('prints usage for help', async () => {
    const result = await runCli(['help'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('store lock <CODE>');
  });

  it('exits 2 with the message and the usage when the binary is given a command it does not know', async () => {
    const result = await runCliProcess(['frobnicate'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown command "frobnicate"\n\nusage: /);
    expect(result.stderr).toContain('store lock <CODE>');
  });

  // The command line is right, what it names is not there: a failure to act on, not a success that
  // did nothing (exit 0, "0 deliveries queued again.") nor a bad command line (exit 2, the message
  // above the command's usage).
  it.each([
    [['jobs', 'retry', '999999'], 'no job with id 999999'],
    [['webhook', 'replay', '999999'], 'no webhook delivery #999999 (webhook deliveries <name> lists them)'],
    [['webhook', 'attempts', '999999'], 'no webhook delivery #999999 (webhook deliveries <name> lists them)'],
    [['event-feed', 'revoke', 'nobody'], 'no event feed client named "nobody"'],
    [['export-user', 'remove', 'nobody'], 'export-user remove: no export user "nobody"'],
    [['wholesale', 'approve', '999999'], 'no wholesale request 999999'],
    [['business', 'approve', '999999'], 'no business account 999999'],
    [['product-file', 'remove', 'NOPE', 'PDF'], 'product-file remove: there is no product with the code "NOPE"'],
  ])('exits 1 with the message alone when %j names nothing that is there', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error: ${message}\n`);
    expect(result.stdout).toBe('');
  });

  it('exits 1 with the message alone when an event-feed name is taken, as api-key, supplier and webhook do', async () => {
    expect((await runCli(['event-feed', 'add', 'taken-feed'], env)).code).toBe(0);
    const result = await runCli(['event-feed', 'add', 'taken-feed'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: event-feed: a client named "taken-feed" exists already\n');
  });

  // What is given is never valid, whatever the database holds: a bad argument, as README says (exit
  // 2, the message above the usage), as a malformed export-user name already was; and nothing made.
  it.each([
    [['export-user', 'add', 'bad name!'], 'export-user add: the name must be'],
    [['supplier', 'add', '-bad code', 'Acme'], 'supplier add: a supplier code is 1 to 40'],
    [['supplier', 'add', 'ACME2', ' '], 'supplier add: a supplier name is one line of 1 to 200 characters'],
    [['api-key', 'add', '!key'], 'api-key add: a key name is 1 to 100'],
    [['webhook', 'add', 'crm', 'ftp://crm.example'], 'webhook add: the URL must be http(s)'],
    [['webhook', 'add', 'crm', 'not a url'], 'webhook add: "not a url" is not a URL'],
    [['webhook', 'add', 'crm', 'https://crm.example', '--events', 'ORDERS'], 'webhook add: --events is *'],
    [['webhook', 'add', 'crm', 'https://crm.example', '--max-attempts', '0'], 'webhook add: --max-attempts is a whole number'],
    [['event-feed', 'add', '!feed'], 'event-feed: a name is 1 to 100'],
  ])('exits 2 with the message and the usage when %j is malformed, and makes nothing', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(`error: ${message}`), result.stderr).toBe(true);
    expect(result.stderr).toContain('\n\nusage: ');
    expect(result.stdout).toBe('');
    const listed = await runCli([args[0]!, 'list'], env);
    expect(listed.stdout).not.toMatch(/ACME2|crm|!key|!feed|bad name/);
  });

  it('exits 1 with the message alone for a webhook replay range whose endpoint is not there, 2 for --from after --to', async () => {
    expect((await runCli(['webhook', 'add', 'range-hook', 'https://crm.example'], env)).code).toBe(0);
    const backwards = await runCli(['webhook', 'replay', 'range-hook', '--from', '5', '--to', '2'], env);
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/^error: webhook replay: --from is after --to\n\nusage: /);
    const nowhere = await runCli(['webhook', 'replay', 'nowhere', '--from', '1', '--to', '2'], env);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toBe('error: no webhook endpoint named "nowhere"\n');
  });

  it('fails fast with a clear message on bad configuration', async () => {
    const result = await runCliProcess(['migrate'], { ...env, PORT: 'eighty', DEFAULT_STORE: 'SHOP' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT must be');
    expect(result.stderr).toContain('DEFAULT_STORE must be');
  });
});

describe('serve', () => {
  it('exits 1 saying which address is taken and what to do when another process listens on PORT', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const result = await runCliProcess(['serve'], { ...env, PORT: String(port), PASSWORD_HASH_CONCURRENCY: '1' });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        `error: 127.0.0.1:${port} is in use by another process (a serve still running?): stop it, or set PORT (METRICS_PORT for the metrics listener) to a free port`,
      );
      expect(result.stderr).not.toContain('EADDRINUSE');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 60_000);

  // "getaddrinfo ENOTFOUND no-such-host.invalid" named neither the variable nor what to set.
  it.each([
    [{ HOST: 'no-such-host.invalid' }, 'HOST "no-such-host.invalid" is no address or host name this machine can resolve'],
    [{ HOST: '192.0.2.1' }, 'HOST "192.0.2.1" is not an address of this machine'],
    [{ METRICS_PORT: '0', METRICS_HOST: 'no-such-host.invalid' }, 'METRICS_HOST "no-such-host.invalid" is no address or host name'],
  ])(
    'exits 1 naming the variable and what to set when %j is no address of this machine',
    async (settings, message) => {
      const result = await runCliProcess(['serve'], { ...env, PORT: '0', PASSWORD_HASH_CONCURRENCY: '1', ...settings });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`error: ${message}`);
      expect(result.stderr).toContain('set one of its own addresses (127.0.0.1 for this machine only, 0.0.0.0 for every one)');
      expect(result.stderr).not.toMatch(/ENOTFOUND|EADDRNOTAVAIL/);
    },
    60_000,
  );

  // The address is tried before anything else: the database is not opened (nor a file made for it) and
  // the app not built, which took a second or two before the same error.
  it('exits 1 on a HOST of no address of this machine before it opens the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storefront-cli-host-'));
    try {
      const file = join(dir, 'never-made.db');
      const result = await runCliProcess(['serve'], { DATABASE_URL: `sqlite:${file}`, PORT: '0', HOST: '192.0.2.1' });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain('error: HOST "192.0.2.1" is not an address of this machine');
      expect(existsSync(file)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // A database host that does not resolve fails with ENOTFOUND too: it is DATABASE_URL's, not HOST's.
  it('exits 1 naming DATABASE_URL when its PostgreSQL host does not resolve', async () => {
    const result = await runCliProcess(['serve'], {
      ...env,
      PORT: '0',
      PASSWORD_HASH_CONCURRENCY: '1',
      DATABASE_URL: 'postgres://postgres@no-such-db-host.invalid:5432/shop',
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      `error: the host "no-such-db-host.invalid" of DATABASE_URL is no address or host name this machine can resolve: check the PostgreSQL server's name in DATABASE_URL`,
    );
    expect(result.stderr).not.toContain('HOST "');
  }, 60_000);

  it('serves, then on SIGTERM finishes the requests in flight and stops cleanly', async () => {
    const child = startCli(['serve'], { ...env, PORT: '0', LOG_LEVEL: 'info', PASSWORD_HASH_CONCURRENCY: '1' });
    let log = '';
    child.stdout!.on('data', (chunk) => (log += chunk));
    child.stderr!.on('data', (chunk) => (log += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      // A whole app starting in a fresh process: ~3 s here when quiet, over 15 s (with nothing
      // logged yet) in runs of these files on a shared 2-core machine.
      const timer = setTimeout(() => reject(new Error(`no listen line in: ${log}`)), 45_000);
      child.stdout!.on('data', () => {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const health = await fetch(`${url}/site/health`);
    expect(health.status).toBe(200);
    // Logins always run the slow hash; with one hash at a time these three are still in flight
    // when the signal comes, and each must still get its answer. fetch keeps its connections
    // alive, so this also shows that shutdown does not wait for the keep-alive timeout.
    const email = `nobody-${process.pid}-${Date.now()}@example.ee`;
    const logins = Array.from({ length: 3 }, () =>
      fetch(`${url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'whatever-123', web_store_nav_code: 'WEB' }),
      }),
    );
    // The signal comes once the server has taken all three: each login counts against its client
    // address's rate limit (in the database) before its hash, so three hits mean three taken.
    // A fixed sleep here once let the third request arrive after the signal (a 503).
    const database = createDatabase(env.DATABASE_URL!);
    try {
      const hits = async () =>
        (
          await database.db
            .selectFrom('rate_limit')
            .select('hits')
            .where('key', '=', storedRateLimitKey('auth:ip:127.0.0.1'))
            .executeTakeFirst()
        )?.hits ?? 0;
      await expect.poll(hits, { timeout: 10_000, interval: 5 }).toBe(3);
    } finally {
      await database.close();
    }
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    expect((await Promise.all(logins)).map((r) => r.status)).toEqual([422, 422, 422]);
    expect(await exited).toBe(0);
    expect(log).toContain('shut down cleanly');
  }, 60_000);
});
