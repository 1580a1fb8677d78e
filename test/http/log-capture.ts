import type { App } from '../../src/app.js';
import { createAccountsTestApp, type AccountsTestApp } from '../helpers/accounts.js';
import { captureLogs } from '../helpers/log-capture.js';

export interface LoggedTestApp extends AccountsTestApp {
  /** Every line the app (and its job runner) logged, as written. */
  lines: string[];
  /** All lines as one text, to search for what must never be there. */
  logText(): string;
}

/**
 * An app that logs at `info` (the level of production) into memory, with mail to a real SMTP
 * server so that the account flows can run end to end and their logs be read.
 */
export async function createLoggedTestApp(env: Record<string, string> = {}, beforeReady?: (app: App) => void): Promise<LoggedTestApp> {
  const logs = captureLogs();
  const t = await createAccountsTestApp({ env: { LOG_LEVEL: 'info', ...env }, logStream: logs.stream, beforeReady });
  return {
    ...t,
    get lines() {
      return logs.text().split('\n').filter(Boolean);
    },
    logText: logs.text,
  };
}
