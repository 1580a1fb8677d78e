import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { sitemapDatabase, type SitemapDatabase } from './helpers.js';

// The sitemap's index names its files at PUBLIC_URL + BASE_PATH, which comes from the environment of
// the command, usually a cron line's, not the API's; its pages are at the store's front-end URL, which
// is http://localhost:5173 until an operator sets it. Run without PUBLIC_URL (it defaults to
// http://127.0.0.1:3000), or before the front-end URL was set, `sitemap generate` wrote a sitemap no
// crawler can follow, exit 0 and not a word. It still writes it (a developer's local sitemap is fine),
// and says so on standard error.

let scratch: SitemapDatabase | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  scratch = await sitemapDatabase('unreachable');
  env = scratch.env;
  await createProduct(scratch.database.db);
}, 60_000);
afterAll(async () => scratch?.close());

describe('sitemap generate: addresses no crawler reaches', () => {
  it('warns when the index names its files at a loopback PUBLIC_URL (one not set)', async () => {
    const { PUBLIC_URL: _set, ...cronEnv } = env;
    const run = await runCli(['sitemap', 'generate', '--store=WEB'], cronEnv);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "warning: the sitemap index lists its files at http://127.0.0.1:3000/sitemap/, a loopback address no crawler reaches: run sitemap generate with the API's PUBLIC_URL",
    );
  });

  it('warns of a store whose front-end URL is a loopback address (never set), and of none once it is set', async () => {
    const before = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stderr).toBe(
      'warning: the sitemap of WEB lists pages at http://localhost:5173, a loopback address no crawler reaches: ' +
        "set the store's front-end URL (store set WEB --frontend-url=<URL>)\n",
    );
    const set = await runCli(['store', 'set', 'WEB', '--frontend-url=https://shop.example'], env);
    expect(set.code, set.stderr).toBe(0);
    const after = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toBe('');
  });
});
