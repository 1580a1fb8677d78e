import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { captureLogs, type LogCapture } from './log-capture.js';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.js';

// An app and the API key its back office calls the admin routes (imports, content) with.

export interface BackOfficeApp {
  t: TestApp;
  key: string;
}

export async function createBackOfficeApp(options: TestAppOptions = {}): Promise<BackOfficeApp> {
  const t = await createTestApp(options);
  const key = await createApiKey(t.database.db, 'back-office', Date.now());
  return { t, key };
}

/** A back office whose app's error lines are kept (`logs`), for the tests of errors reported by id. */
export async function createLoggedBackOfficeApp(): Promise<BackOfficeApp & { logs: LogCapture }> {
  const logs = captureLogs();
  return { ...(await createBackOfficeApp({ env: { LOG_LEVEL: 'error' }, logStream: logs.stream })), logs };
}

/** An import file's text: one line each, an object as its JSON, a string as it is (to send a bad line). */
export const ndjson = (lines: unknown[]) => lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
