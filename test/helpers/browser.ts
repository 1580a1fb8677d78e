import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { describe } from 'vitest';

// Headless Chromium for the tests of pages a person uses (the test gateway's payment page):
// Debian's `chromium` package driven by playwright-core, which downloads no browser of its own.

/** The browser: CHROMIUM_PATH, or Debian's. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why no browser test can run on this machine, or undefined when one can. */
export const browserMissing: string | undefined = existsSync(chromiumPath)
  ? undefined
  : `no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;

// No first-run dialogs, no network of its own (updates, sync, QUIC probes), no GPU in a container.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `describe` for tests that need the browser. Without one they are skipped locally, saying why;
 * on CI (CI=true) they run and fail, since a CI that silently skips them would prove nothing.
 */
export function describeInBrowser(name: string, tests: () => void): void {
  if (browserMissing !== undefined && process.env.CI !== 'true') {
    describe.skip(`${name} (skipped: ${browserMissing})`, tests);
    return;
  }
  describe(name, tests);
}

export interface TestBrowser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile of its own; one per test file is enough. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (browserMissing !== undefined) throw new Error(`browser tests cannot run: ${browserMissing}`);
  const profile = mkdtempSync(join(tmpdir(), 'storefront-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ARGS,
      timeout: 30_000,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
