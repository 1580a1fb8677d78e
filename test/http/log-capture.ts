import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createJobRunner } from '../../src/worker.js';
import type { AccountsTestApp } from '../helpers/accounts.js';
import { startHttpReceiver } from '../helpers/http-receiver.js';
import { startSmtpCatcher } from '../helpers/smtp.js';
import { scratchDatabase } from '../helpers/test-app.js';

export interface LoggedTestApp extends AccountsTestApp {
  /** Every line the app (and its job runner) logged, as written. */
  lines: string[];
  /** All lines as one text, to search for what must never be there. */
  logText(): string;
  /** Registers test-only routes; call before the first request. */
  app: App;
}

/**
 * An app that logs at `info` (the level of production) into memory, with mail to a real SMTP
 * server so that the account flows can run end to end and their logs be read.
 */
export async function createLoggedTestApp(env: Record<string, string> = {}, beforeReady?: (app: App) => void): Promise<LoggedTestApp> {
  const scratch = await scratchDatabase();
  const smtp = await startSmtpCatcher();
  const conversions = await startHttpReceiver();
  const lines: string[] = [];
  let database: DatabaseHandle | undefined;
  try {
    const config = loadConfig({
      LOG_LEVEL: 'info',
      STORE_CACHE_TTL_MS: '0',
      CATALOGUE_CACHE_TTL_MS: '0',
      CATALOGUE_LIST_CACHE_TTL_MS: '0',
      AUTH_RATE_LIMIT_PER_IP: '100000/1m',
      AUTH_RATE_LIMIT_PER_EMAIL: '100000/1m',
      SMTP_URL: smtp.url,
      CONVERSIONS_API_URL: conversions.url,
      CONVERSIONS_PIXEL_ID: 'pixel-1',
      CONVERSIONS_ACCESS_TOKEN: 'capi-secret',
      ...env,
      DATABASE_URL: scratch.url,
    });
    database = createDatabase(config.databaseUrl);
    await migrateToLatest(database);
    const app = await buildApp(config, { database, logStream: { write: (line: string) => void lines.push(line) } });
    beforeReady?.(app);
    await app.ready();
    const jobs = createJobRunner(database, config, app.log);
    const handle = database;
    return {
      app,
      database: handle,
      config,
      jobs,
      smtp,
      conversions,
      lines,
      logText: () => lines.join(''),
      drainJobs: () => jobs.worker.drain(),
      async close() {
        await jobs.stop();
        await app.close();
        await handle.close();
        await scratch.drop();
        await smtp.close();
        await conversions.close();
      },
    };
  } catch (error) {
    await database?.close().catch(() => {});
    await scratch.drop().catch(() => {});
    await smtp.close();
    await conversions.close();
    throw error;
  }
}
