import { existsSync, statSync } from 'node:fs';
import { CliUsageError } from './infra/cli-usage.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Env } from './infra/env.js';
import type { DatabaseHandle } from './db/database.js';
import type { Logger } from './infra/logger.js';
import type { ImportSummary } from './infra/import/index.js';
import { systemClock } from './infra/clock.js';

// The command line, `storefront <command>`: src/main.ts (the binary) runs it on the process's own
// arguments, environment and streams, and tests call runCli directly, without a process of their
// own. Everything a command reads or writes goes through the CliIo it is given: nothing here reads
// process.env, writes to process.stdout or sets process.exitCode, so two runs in one process do
// not see each other's settings or output.
//
// Each command imports what it runs when it runs (`await import(...)`): `store list` need not
// load Fastify, the routes and every module the server does, and starts several times faster.
// The usage text names every command, so it is put together only when it is shown.

/**
 * Registers the modules' messages with translate() (src/messages.ts), which loads every module's
 * index. Commands that run module code load it first; `store`, `jobs` and `migrate` print only
 * their own text and skip it (serve and worker get it from app.ts and worker.ts).
 */
const loadMessages = () => import('./messages.js');

/**
 * Commands that hash passwords (seed, export-user) size the process's hashing queue from their
 * settings first, as buildApp does for serve: it is the process's, not the run's (infra/passwords.ts).
 */
async function sizePasswordHashing(config: Config): Promise<void> {
  const { setPasswordHashConcurrency } = await import('./infra/passwords.js');
  setPasswordHashConcurrency(config.passwordHashConcurrency);
}

const USAGE_HEAD = 'usage: npm run cli -- <command>   (or: storefront <command>)';

/** Each command family's lines of the usage, with the commands they cover, in the order `help` shows them. */
async function usageSections(): Promise<Array<{ commands: string[]; text: string }>> {
  const [
    { importKinds },
    { importUsage },
    { JOBS_USAGE },
    { WHOLESALE_USAGE },
    { BUSINESS_USAGE },
    { API_KEY_USAGE },
    { EXPORT_USER_USAGE },
    { STORE_USAGE },
    { SEARCH_USAGE },
    { NEWSLETTER_USAGE },
    { GDPR_USAGE },
    { SUBSCRIPTION_USAGE },
    { ORDER_USAGE },
    { CONTACT_USAGE },
    { GIFT_CARD_USAGE },
    { PRODUCT_FILE_USAGE },
    { SITEMAP_USAGE },
    { SUPPLIER_USAGE },
    { WEBHOOK_USAGE },
    { EVENT_FEED_USAGE },
    { BACKUP_USAGE },
    { MAIL_USAGE },
  ] = await Promise.all([
    import('./import-kinds.js'),
    import('./infra/import/index.js'),
    import('./infra/jobs/jobs.cli.js'),
    import('./modules/accounts/wholesale.cli.js'),
    import('./modules/accounts/business.cli.js'),
    import('./modules/admin/api-keys.cli.js'),
    import('./modules/data-export/export-user.cli.js'),
    import('./modules/store/store.cli.js'),
    import('./modules/search/search.cli.js'),
    import('./modules/newsletter/newsletter.cli.js'),
    import('./modules/gdpr/gdpr.cli.js'),
    import('./modules/subscriptions/subscriptions.cli.js'),
    import('./modules/orders/orders.cli.js'),
    import('./modules/contact/contact.cli.js'),
    import('./modules/gift-cards/gift-cards.cli.js'),
    import('./modules/downloads/product-files.cli.js'),
    import('./modules/sitemap/sitemap.cli.js'),
    import('./modules/integrations/suppliers.cli.js'),
    import('./modules/integrations/webhooks.cli.js'),
    import('./modules/integrations/feed-clients.js'),
    import('./db/backup.js'),
    import('./infra/mail/mail.cli.js'),
  ]);
  return [
    {
      commands: ['serve'],
      text: `  serve [--seed-demo]                 run the API (migrates the embedded SQLite database first;
                                      --seed-demo also loads demo data, as npm start does)`,
    },
    {
      commands: ['migrate'],
      text: `  migrate                             bring the database schema up to date (on SQLite it makes the file when
                                      it is not there, as seed --demo does; the other commands refuse one)`,
    },
    { commands: ['seed'], text: '  seed --demo                         load demo data (idempotent)' },
    { commands: ['import'], text: importUsage(importKinds) },
    {
      commands: ['worker'],
      text: `  worker                              run background jobs (mails, events) until stopped; any number
                                      may run beside the API (set WORKER=off on the API to use only these)`,
    },
    { commands: ['jobs'], text: JOBS_USAGE },
    { commands: ['store'], text: STORE_USAGE },
    { commands: ['wholesale'], text: WHOLESALE_USAGE },
    { commands: ['business'], text: BUSINESS_USAGE },
    { commands: ['api-key'], text: API_KEY_USAGE },
    { commands: ['export-user'], text: EXPORT_USER_USAGE },
    { commands: ['search'], text: SEARCH_USAGE },
    { commands: ['newsletter'], text: NEWSLETTER_USAGE },
    { commands: ['mail'], text: MAIL_USAGE },
    { commands: ['gdpr'], text: GDPR_USAGE },
    { commands: ['subscription'], text: SUBSCRIPTION_USAGE },
    { commands: ['order'], text: ORDER_USAGE },
    { commands: ['contact'], text: CONTACT_USAGE },
    { commands: ['gift-card'], text: GIFT_CARD_USAGE },
    { commands: ['product-file'], text: PRODUCT_FILE_USAGE },
    { commands: ['sitemap'], text: SITEMAP_USAGE },
    { commands: ['supplier'], text: SUPPLIER_USAGE },
    { commands: ['webhook'], text: WEBHOOK_USAGE },
    { commands: ['event-feed'], text: EVENT_FEED_USAGE },
    { commands: ['backup', 'restore'], text: BACKUP_USAGE },
    {
      commands: ['help'],
      text: `  help [<command>]                    show this text, or one command's (also: <command> --help)`,
    },
  ];
}

/** Every command's usage: what `help` prints. */
async function usage(): Promise<string> {
  const sections = await usageSections();
  return `${USAGE_HEAD}

commands:
${sections.map((section) => section.text).join('\n')}

Configuration comes from the environment; see README.md.`;
}

/**
 * The usage of one command, under a message about its command line or for `<command> --help`:
 * its own lines, where the error can be seen, not at the top of some 150 lines of every command's.
 * Undefined for a command there is none of.
 */
async function commandUsage(command: string | undefined): Promise<string | undefined> {
  const section = (await usageSections()).find((candidate) => command !== undefined && candidate.commands.includes(command));
  if (section === undefined) return undefined;
  return `${USAGE_HEAD}\n\n${section.text}\n\nEvery command: help (storefront help, or npm run cli -- help)`;
}

/**
 * The log of a command that has one (an import's unexpected line errors): on stderr, beside the
 * report of its bad lines (stdout has its summary), with the API's serializers and redaction, in
 * LOG_FORMAT (readable lines on a terminal). `output` is stderr, or the import's progress terminal
 * on it, which writes a log line under its bar rather than over it.
 */
async function commandLog(config: Config, output: CliOutput & { isTTY?: boolean }): Promise<Logger> {
  const [{ privateLogger }, { logDestination }] = await Promise.all([import('./http/request-log.js'), import('./infra/log-format.js')]);
  const destination = logDestination(config.logFormat, output) ?? { write: (line: string) => void output.write(line) };
  return privateLogger(config.logLevel, destination);
}

/** Where a run's output goes; the binary's is its process's own. */
export interface CliOutput {
  write(text: string): unknown;
}

export interface CliIo {
  /** The settings (see README.md); the binary's is process.env. */
  env: Env;
  stdout: CliOutput;
  stderr: CliOutput;
  /** A terminal to draw an import's progress bar on: the binary's stderr when it is one. */
  progress?: NodeJS.WriteStream;
  /** What a command reads from standard input (`mail bounce`): the binary's stdin. */
  stdin?: AsyncIterable<Buffer | string>;
}

/**
 * Runs `storefront <argv>` and resolves with its exit status: 0 done, 1 failed, 2 a command line
 * it cannot run (the message and the usage on stderr). `serve` and `worker` resolve with -1 once
 * they run; they stop on a signal (src/server.ts), which only the binary should receive.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (err) {
    if (err instanceof CliUsageError) {
      io.stderr.write(`error: ${err.message}\n\n${(await commandUsage(argv[0])) ?? (await usage())}\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.stderr.write(`${err.message}\n`);
      return 1;
    }
    io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function main(argv: string[], io: CliIo): Promise<number> {
  const print = (line: string) => void io.stdout.write(`${line}\n`);
  const report = (line: string) => void io.stderr.write(`${line}\n`);
  const [command, ...args] = argv;
  if (command === 'help' && args.length > 0) {
    const asked = await commandUsage(args[0]);
    if (args.length > 1) throw new CliUsageError('help takes one command, e.g. help jobs');
    if (asked === undefined) throw new CliUsageError(`help: there is no command "${args[0]}"; help alone lists them all`);
    print(asked);
    return 0;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    print(await usage());
    return command === undefined ? 2 : 0;
  }
  // Before the configuration is read: the help of a command needs no valid settings.
  if (args.includes('--help') || args.includes('-h')) {
    const asked = await commandUsage(command);
    if (asked !== undefined) {
      print(asked);
      return 0;
    }
  }
  const config = loadConfig(io.env);
  switch (command) {
    case 'serve': {
      expectOnly(args, ['--seed-demo'], 'serve');
      const { serve } = await import('./server.js');
      await serve(config, { seedDemo: args.includes('--seed-demo') }).catch(explainListenError(config));
      return -1; // keeps running until a signal
    }
    case 'migrate':
      expectOnly(args, [], 'migrate');
      return withDatabase(config, async (database) => {
        const { migrateToLatest } = await import('./db/migrate.js');
        const applied = await migrateToLatest(database, {
          timeoutMs: config.migrateLockTimeoutMs,
          retries: config.migrateLockRetries,
          onWait: report,
        });
        print(applied.length === 0 ? 'The database is up to date.' : `Applied: ${applied.join(', ')}`);
      });
    case 'seed':
      if (args.length !== 1 || args[0] !== '--demo') throw new CliUsageError('seed takes --demo');
      // A shop with demo data is what it is for: on a new SQLite file too, as `serve --seed-demo` makes one.
      return withSchema(
        config,
        async (database) => {
          await Promise.all([loadMessages(), sizePasswordHashing(config)]);
          const { seedDemo } = await import('./demo/seed.js');
          print(`Demo data ready: ${JSON.stringify(await seedDemo(database, { now: systemClock.now() }))}`);
        },
        { createsDatabase: true },
      );
    case 'worker': {
      expectOnly(args, [], 'worker');
      // A worker on a mistyped path would wait on a new empty file for jobs that never come while the
      // shop's own pile up: it runs on the database serve or migrate made (docs/deployment.md).
      await refuseNoSqliteDatabase(config.databaseUrl);
      const { work } = await import('./server.js');
      await work(config).catch(explainListenError(config));
      return -1; // keeps running until a signal
    }
    case 'store':
      return withSchema(config, async (database) => {
        const { storeCommand } = await import('./modules/store/store.cli.js');
        await storeCommand(database.db, args, print);
      });
    case 'jobs':
      return withSchema(config, async (database) => {
        const { jobsCommand } = await import('./infra/jobs/jobs.cli.js');
        await jobsCommand(database.db, args, print);
      });
    case 'import': {
      const [{ importKinds }, { BAD_LINES_SHOWN, createImporter, ImportProgress, showingFirstBadLines }] = await Promise.all([
        import('./import-kinds.js'),
        import('./infra/import/index.js'),
        loadMessages(),
      ]);
      const force = args.includes('--force');
      const [kind, file, ...rest] = args.filter((arg) => arg !== '--force');
      const known = kind !== undefined && Object.hasOwn(importKinds, kind);
      if (!known || file === undefined || rest.length > 0) {
        throw new CliUsageError(kind === undefined || known ? 'import <kind> <file.ndjson> [--force]' : `import: unknown kind "${kind}"`);
      }
      if (!existsSync(file)) throw new CliUsageError(`no such file: ${file}`);
      // A folder (a path cut short, a glob that did not expand) failed mid-read with EISDIR, exit 1.
      if (!statSync(file).isFile()) throw new CliUsageError(`not a file: ${file} (give the path of the NDJSON file itself)`);
      let failed = false;
      await withSchema(config, async (database) => {
        const progress = io.progress && new ImportProgress(io.progress);
        const log = await commandLog(config, progress ?? io.stderr);
        // On the bar's terminal a line is written under the bar, not over it.
        const reportLine = progress ? (line: string) => progress.write(`${line}\n`) : report;
        const run = createImporter(importKinds, { db: database.db, clock: systemClock, log }).start(kind, { force });
        const shown = showingFirstBadLines(reportLine);
        const summary = await run(file, shown.report, progress);
        const notShown = shown.notShown();
        if (notShown !== undefined) report(notShown);
        failed = summary.errors > 0 || (summary.failedSteps ?? 0) > 0;
        print(`${summary.lines} lines: ${JSON.stringify(summary.outcomes)}, ${summary.errors} bad${failedStepsNote(summary)}`);
        if (failed) report(whatToDoAfterImport(summary, BAD_LINES_SHOWN));
        // Its products are searchable when it exits; a first import's search answers 503 until then.
        const { foldImportedChanges } = await import('./modules/search/index.js');
        if (!(await foldImportedChanges(database, report, log.child({ importKind: kind })))) failed = true;
      });
      return failed ? 1 : 0;
    }
    case 'export-user':
      return withSchema(config, async (database) => {
        await Promise.all([loadMessages(), sizePasswordHashing(config)]);
        const { exportUserCommand } = await import('./modules/data-export/export-user.cli.js');
        await exportUserCommand({ db: database.db, clock: systemClock }, args, print);
      });
    case 'api-key':
      return withSchema(config, async (database) => {
        await loadMessages();
        const { apiKeyCommand } = await import('./modules/admin/api-keys.cli.js');
        await apiKeyCommand({ db: database.db, clock: systemClock }, args, print);
      });
    case 'supplier':
    case 'webhook':
    case 'event-feed':
      return withSchema(config, async (database) => {
        await loadMessages();
        const { supplierCommand, webhookCommand, eventFeedCommand } = await import('./modules/integrations/index.js');
        const run = command === 'supplier' ? supplierCommand : command === 'webhook' ? webhookCommand : eventFeedCommand;
        await run({ db: database.db, clock: systemClock }, args, print);
      });
    case 'wholesale':
      return withSchema(config, async (database) => {
        await loadMessages();
        const { wholesaleCommand } = await import('./modules/accounts/wholesale.cli.js');
        await wholesaleCommand({ db: database.db, config }, args, print);
      });
    case 'business':
      return withSchema(config, async (database) => {
        await loadMessages();
        const { businessCommand } = await import('./modules/accounts/business.cli.js');
        await businessCommand({ db: database.db, config }, args, print);
      });
    case 'search':
      return withSchema(config, async (database) => {
        await loadMessages();
        const { searchCommand } = await import('./modules/search/search.cli.js');
        await searchCommand(database, args, print, report);
      });
    case 'mail':
      return withSchema(config, async (database) => {
        const { mailCommand } = await import('./infra/mail/mail.cli.js');
        const env = { ORIGINAL_RECIPIENT: io.env.ORIGINAL_RECIPIENT, RECIPIENT: io.env.RECIPIENT };
        await mailCommand({ db: database.db, clock: systemClock, mail: config.mail, env, stdin: io.stdin }, args, print);
      });
    case 'newsletter':
      return withSchema(config, async (database) => {
        const { newsletterCommand } = await import('./modules/newsletter/newsletter.cli.js');
        await newsletterCommand(database.db, args, print);
      });
    case 'gdpr':
      return withSchema(config, async (database) => {
        await loadMessages();
        const { gdprCommand } = await import('./modules/gdpr/gdpr.cli.js');
        await gdprCommand({ db: database.db, clock: systemClock }, args, print);
      });
    case 'subscription':
      return withSchema(config, async (database) => {
        await loadMessages();
        const [{ subscriptionCommand }, { workerGateways }] = await Promise.all([
          import('./modules/subscriptions/subscriptions.cli.js'),
          import('./worker.js'),
        ]);
        const gateways = workerGateways(database, config);
        // A billing run from the command line logs what a worker's run logs (refunds left or refused,
        // stuck charges, unopened cards): its printed counts alone do not say which charges.
        let logger: Promise<Logger> | undefined;
        const log = () => (logger ??= commandLog(config, io.stderr));
        // Only a billing run opens saved cards' tokens: the other subscription commands need no key.
        const cardTokens = async () => {
          const { cardTokensFor } = await import('./modules/subscriptions/index.js');
          const settings = { databaseUrl: config.databaseUrl, cardTokenKeys: config.subscriptions.cardTokenKeys };
          return cardTokensFor(settings, await log());
        };
        await subscriptionCommand(
          { db: database.db, gateways, cardTokens, clock: systemClock, concurrency: config.subscriptions.billingConcurrency, log },
          args,
          print,
        );
      });
    case 'contact':
      return withSchema(config, async (database) => {
        const { contactCommand } = await import('./modules/contact/contact.cli.js');
        await contactCommand(database.db, args, print);
      });
    case 'order':
      return withSchema(config, async (database) => {
        const { orderCommand } = await import('./modules/orders/orders.cli.js');
        await orderCommand({ db: database.db, clock: systemClock }, args, print);
      });
    case 'gift-card':
      return withSchema(config, async (database) => {
        const { giftCardCommand } = await import('./modules/gift-cards/gift-cards.cli.js');
        await giftCardCommand(database.db, args, print);
      });
    case 'product-file':
      return withSchema(config, async (database) => {
        const [{ productFileCommand }, { createFileStore }] = await Promise.all([
          import('./modules/downloads/product-files.cli.js'),
          import('./infra/file-store/index.js'),
        ]);
        await productFileCommand({ db: database.db, fileStore: await createFileStore(config.fileStore) }, args, print);
      });
    case 'sitemap': {
      let code = 0;
      await withSchema(config, async (database) => {
        const [{ sitemapCommand }, { createFileStore }] = await Promise.all([
          import('./modules/sitemap/sitemap.cli.js'),
          import('./infra/file-store/index.js'),
        ]);
        const fileStore = await createFileStore(config.fileStore);
        code = await sitemapCommand(
          { db: database.db, fileStore, serviceUrl: `${config.orders.publicUrl}${config.basePath}`, warn: report },
          args,
          print,
        );
      });
      return code;
    }
    case 'backup':
    case 'restore': {
      // No migration: a backup copies the database as it is, and a restore must not open it first.
      const { backupCommand, restoreCommand } = await import('./db/backup.js');
      return command === 'backup' ? backupCommand(config.databaseUrl, args, print, io) : restoreCommand(config.databaseUrl, args, print);
    }
    default:
      throw new CliUsageError(`unknown command "${command}"`);
  }
}

function expectOnly(args: string[], allowed: string[], command: string): void {
  const unknown = args.filter((arg) => !allowed.includes(arg));
  if (unknown.length > 0) throw new CliUsageError(`${command}: unknown argument ${unknown.join(' ')}`);
}

/**
 * withDatabase on the schema this build expects, what every command but `migrate` runs on: the embedded
 * one is migrated by whatever opens it; on PostgreSQL only `migrate` migrates, and a command refuses
 * while one is pending (db/migrate.ts prepareSchema). A SQLite file that is not there (or empty) is refused
 * (refuseNoSqliteDatabase) unless `createsDatabase`: only a command whose point is a new database makes one.
 */
async function withSchema(
  config: Config,
  work: (database: DatabaseHandle) => Promise<void>,
  { createsDatabase = false }: { createsDatabase?: boolean } = {},
): Promise<number> {
  if (!createsDatabase) await refuseNoSqliteDatabase(config.databaseUrl);
  return withDatabase(config, async (database) => {
    const { prepareSchema } = await import('./db/migrate.js');
    await prepareSchema(database);
    await work(database);
  });
}

/**
 * Refuses a SQLite DATABASE_URL whose file is not there or empty (no database yet), before anything
 * opens it. Opening one makes the file and its folder, and migrating it makes an empty shop: a command
 * run on a mistyped path answered as if the shop had no data (two default stores, no jobs, no keys) and an import filled a
 * shop nobody serves, all with exit 0. A folder or a file of another kind is refused alike (and by
 * whatever opens the database). Nothing to check for `sqlite::memory:` or PostgreSQL.
 */
async function refuseNoSqliteDatabase(databaseUrl: string): Promise<void> {
  const { refuseUnusableSqliteFile } = await import('./db/sqlite-file.js');
  refuseUnusableSqliteFile(databaseUrl, {
    consequence: ', and this command makes no database',
    advice: 'check DATABASE_URL, or make the database first with storefront migrate (storefront seed --demo for one with demo data)',
  });
}

async function withDatabase(config: Config, work: (database: DatabaseHandle) => Promise<void>): Promise<number> {
  const { createDatabase } = await import('./db/database.js');
  const database = createDatabase(config.databaseUrl, {
    preparedStatements: config.databasePreparedStatements,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
  try {
    await work(database);
    return 0;
  } finally {
    await database.close();
  }
}

/** The import summary line's note of its failed steps of no line (empty when none failed). */
function failedStepsNote({ failedSteps = 0, stoppedBeforeFirstLine }: ImportSummary): string {
  if (stoppedBeforeFirstLine) return ', stopped before the first line';
  return failedSteps > 0 ? `, ${failedSteps} step${failedSteps === 1 ? '' : 's'} after the last line not completed` : '';
}

/**
 * The closing line of an import with bad lines or failed steps, on stderr under them: what the
 * operator does next. Every line of a file that is not this kind's NDJSON (a CSV, a JSON array,
 * another kind) is bad.
 */
function whatToDoAfterImport(
  { errors: bad, failedSteps = 0, outcomes, stoppedBeforeFirstLine, unexpectedErrors = 0 }: ImportSummary,
  shownAtMost: number,
): string {
  if (stoppedBeforeFirstLine) {
    return 'No line was imported. Fix the cause of what failed before the first line (in the log under its id) and import the file again.';
  }
  const noneImported = bad > 0 && Object.values(outcomes).every((count) => count === 0);
  // Every line refused by the database (a constraint or trigger the import does not know), not by
  // its rules: the file may be right, and asking whether it is NDJSON sent the operator the wrong way.
  if (noneImported && unexpectedErrors === bad) {
    return 'No line was imported: every line failed on an unexpected error, not on a rule of the file. Its cause is in the log under the ids above; fix it and import the file again.';
  }
  if (noneImported) {
    return 'No line was imported: is this an NDJSON file of that kind (one JSON object a line, docs/import.md)?';
  }
  const fix = [
    // Past the lines shown, the rest are not above: their cause is mended from the first ones.
    ...(bad > 0
      ? [`the ${bad} bad line${bad === 1 ? '' : 's'} ${bad > shownAtMost ? `(the first ${shownAtMost} are above)` : 'above'}`]
      : []),
    ...(failedSteps > 0 ? ['the cause of what failed after the last line (in the log under its id)'] : []),
  ];
  const imported = bad > 0 ? 'The other lines were imported' : 'The lines were imported';
  return `${imported}. Fix ${fix.join(' and ')} and import the whole file again: lines imported already stay unchanged.`;
}

/** The server's host name in a postgres:// DATABASE_URL; undefined for SQLite. */
function postgresHost(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('postgres')) return undefined;
  try {
    return new URL(databaseUrl).hostname;
  } catch {
    return undefined;
  }
}

/**
 * What stopped `serve` (or a worker's metrics listener) from listening, in the operator's terms: a port
 * another process listens on (a serve still running, a second one started), a HOST that names no
 * address of this machine, or a DATABASE_URL host that does not resolve ("getaddrinfo ENOTFOUND
 * not-a-host" named neither the variable nor what to set).
 */
function explainListenError(config: Config) {
  return (error: unknown): never => {
    const { code, address, port, hostname } = (error ?? {}) as { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown };
    if (code === 'EADDRINUSE') {
      throw new Error(
        `${String(address)}:${String(port)} is in use by another process (a serve still running?): stop it, or set PORT (METRICS_PORT for the metrics listener) to a free port`,
      );
    }
    const host = code === 'EADDRNOTAVAIL' ? address : code === 'ENOTFOUND' ? hostname : undefined;
    if (typeof host !== 'string') throw error;
    const unresolved = 'is no address or host name this machine can resolve';
    // The database is reached before anything listens: a PostgreSQL host that does not resolve fails the same way.
    if (code === 'ENOTFOUND' && host !== config.host && host === postgresHost(config.databaseUrl))
      throw new Error(`the host "${host}" of DATABASE_URL ${unresolved}: check the PostgreSQL server's name in DATABASE_URL`);
    const variable = host === config.host ? 'HOST' : host === config.metrics.host ? 'METRICS_HOST' : undefined;
    if (variable === undefined) throw error;
    const why = code === 'ENOTFOUND' ? unresolved : 'is not an address of this machine';
    throw new Error(`${variable} "${host}" ${why}: set one of its own addresses (127.0.0.1 for this machine only, 0.0.0.0 for every one)`);
  };
}
