#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { CliUsageError } from './cli/usage.js';
import { ConfigError, loadConfig } from './config.js';
import { createDatabase, type DatabaseHandle } from './db/database.js';
import { importKinds } from './import-kinds.js';
import { systemClock } from './infra/clock.js';
import { createImporter, importUsage } from './infra/import/index.js';
import { migrateToLatest } from './db/migrate.js';
import { seedDemo } from './demo/seed.js';
import { JOBS_USAGE, jobsCommand } from './infra/jobs/jobs.cli.js';
import { WHOLESALE_USAGE, wholesaleCommand } from './modules/accounts/index.js';
import { API_KEY_USAGE, apiKeyCommand } from './modules/admin/index.js';
import { EXPORT_USER_USAGE, exportUserCommand } from './modules/data-export/index.js';
import { STORE_USAGE, storeCommand } from './modules/store/index.js';
import { SEARCH_USAGE, searchCommand } from './modules/search/search.cli.js';
import { serve, work } from './server.js';
// The modules' messages, registered with translate() (src/messages.ts).
import './messages.js';

const USAGE = `usage: npm run cli -- <command>   (or: storefront <command>)

commands:
  serve [--seed-demo]                 run the API (migrates the embedded SQLite database first;
                                      --seed-demo also loads demo data, as npm start does)
  migrate                             bring the database schema up to date
  seed --demo                         load demo data (idempotent)
${importUsage(importKinds)}
  worker                              run background jobs (mails, events) until stopped; any number
                                      may run beside the API (set WORKER=off on the API to use only these)
${JOBS_USAGE}
${STORE_USAGE}
${WHOLESALE_USAGE}
${API_KEY_USAGE}
${EXPORT_USER_USAGE}
${SEARCH_USAGE}
  help                                show this text

Configuration comes from the environment; see README.md.`;

const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    print(USAGE);
    return command === undefined ? 2 : 0;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      expectOnly(args, ['--seed-demo'], 'serve');
      await serve(config, { seedDemo: args.includes('--seed-demo') });
      return -1; // keeps running until a signal
    case 'migrate':
      expectOnly(args, [], 'migrate');
      return withDatabase(config.databaseUrl, async (database) => {
        const applied = await migrateToLatest(database);
        print(applied.length === 0 ? 'The database is up to date.' : `Applied: ${applied.join(', ')}`);
      });
    case 'seed':
      if (args.length !== 1 || args[0] !== '--demo') throw new CliUsageError('seed takes --demo');
      return withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        print(`Demo data ready: ${JSON.stringify(await seedDemo(database))}`);
      });
    case 'worker':
      expectOnly(args, [], 'worker');
      await work(config);
      return -1; // keeps running until a signal
    case 'store':
      return withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        await storeCommand(database.db, args, print);
      });
    case 'jobs':
      return withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        await jobsCommand(database.db, args, print);
      });
    case 'import': {
      const force = args.includes('--force');
      const [kind, file, ...rest] = args.filter((arg) => arg !== '--force');
      const known = kind !== undefined && Object.hasOwn(importKinds, kind);
      if (!known || file === undefined || rest.length > 0) {
        throw new CliUsageError(kind === undefined || known ? 'import <kind> <file.ndjson> [--force]' : `import: unknown kind "${kind}"`);
      }
      if (!existsSync(file)) throw new CliUsageError(`no such file: ${file}`);
      let failed = 0;
      await withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        const run = createImporter(importKinds, { db: database.db, clock: systemClock }).start(kind, { force });
        const summary = await run(file, (line) => process.stderr.write(`${line}\n`));
        failed = summary.errors;
        print(`${summary.lines} lines: ${JSON.stringify(summary.outcomes)}, ${summary.errors} bad`);
      });
      return failed > 0 ? 1 : 0;
    }
    case 'export-user':
      return withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        await exportUserCommand({ db: database.db, clock: systemClock }, args, print);
      });
    case 'api-key':
      return withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        await apiKeyCommand({ db: database.db, clock: systemClock }, args, print);
      });
    case 'wholesale':
      return withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        await wholesaleCommand({ db: database.db, config }, args, print);
      });
    case 'search':
      return withDatabase(config.databaseUrl, async (database) => {
        await migrateEmbedded(database);
        await searchCommand(database, args, print, (line) => process.stderr.write(`${line}\n`));
      });
    default:
      throw new CliUsageError(`unknown command "${command}"`);
  }
}

function expectOnly(args: string[], allowed: string[], command: string): void {
  const unknown = args.filter((arg) => !allowed.includes(arg));
  if (unknown.length > 0) throw new CliUsageError(`${command}: unknown argument ${unknown.join(' ')}`);
}

async function withDatabase(url: string, work: (database: DatabaseHandle) => Promise<void>): Promise<number> {
  const database = createDatabase(url);
  try {
    await work(database);
    return 0;
  } finally {
    await database.close();
  }
}

/** The embedded database is migrated by whatever opens it; PostgreSQL only by `migrate`. */
async function migrateEmbedded(database: DatabaseHandle): Promise<void> {
  if (database.engine === 'sqlite') await migrateToLatest(database);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CliUsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
