import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliScratch, runCli, type CliScratch } from '../helpers/cli.js';

// A store's front-end URL starts every link the service writes (mails' verification and reset links,
// order and gift card links, the sitemap): `<front-end URL><path>?token=…`. The column is varchar(500)
// on PostgreSQL, where a longer URL was an uncaught database error instead of a usage error; and a URL
// with a query or a fragment put the link's path after it (`https://shop.example/?a=1/verify-email?token=…`),
// so every link of the store led to its home page.

describe('store set --frontend-url', () => {
  let cli: CliScratch;
  beforeAll(async () => {
    cli = await cliScratch('storefront-frontend-url-');
  });
  afterAll(async () => cli?.remove());

  it.each([
    ['longer than 500 characters', `https://shop.example/${'a'.repeat(480)}`],
    ['with a query', 'https://shop.example/?utm_source=mail'],
    ['with an empty query', 'https://shop.example/shop?'],
    ['with a fragment', 'https://shop.example/#/'],
  ])("refuses a URL %s (exit 2, a usage error) and keeps the store's URL", async (_, url) => {
    const before = await runCli(['store', 'list'], cli.env);
    const result = await runCli(['store', 'set', 'WEB', `--frontend-url=${url}`], cli.env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^error: --frontend-url must be /);
    expect((await runCli(['store', 'list'], cli.env)).stdout).toBe(before.stdout);
  });

  it('takes a URL of 500 characters with a path, without its trailing slash', async () => {
    const url = `https://shop.example/${'a'.repeat(479)}`;
    expect(url).toHaveLength(500);
    const result = await runCli(['store', 'set', 'WEB', `--frontend-url=${url}/`], cli.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`\t${url}\t`);
  });
});
