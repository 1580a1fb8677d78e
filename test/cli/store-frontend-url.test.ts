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

  it('refuses a URL with a user name or password (exit 2): every mailed link would carry them', async () => {
    const result = await runCli(['store', 'set', 'WEB', '--frontend-url=https://staging:secret@shop.example'], cli.env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^error: --frontend-url must be an http\(s\) URL without a user name or password/);
  });

  // Links are the URL and a path after it, as every mail writes them (`${frontendUrl}/verify-email?…`).
  // Kept as typed, a stray backslash made them `https://shop.example\/verify-email`, which a browser
  // opens at `//verify-email`: a page the front-end does not have.
  it.each([
    ['a stray backslash', 'https://Shop.Example\\', 'https://shop.example'],
    ['an upper-case scheme and host', 'HTTPS://SHOP.EXAMPLE/Pood/', 'https://shop.example/Pood'],
    ['an internationalised host and path', 'https://pööd.example/raamatud-ä', 'https://xn--pd-fkaa.example/raamatud-%C3%A4'],
    ['a default port and a backslash in the path', 'https://shop.example:443\\pood', 'https://shop.example/pood'],
  ])('keeps a URL with %s as a browser reads it, so that links after it land on their path', async (_, typed, kept) => {
    const result = await runCli(['store', 'set', 'WEB', `--frontend-url=${typed}`], cli.env);
    expect(result.code, result.stderr).toBe(0);
    const shown = (await runCli(['store', 'list'], cli.env)).stdout.split('\n').find((line) => line.startsWith('WEB\t'))!;
    const url = shown.split('\t')[6]!;
    expect(url).toBe(kept);
    const link = new URL(`${url}/verify-email?verificationToken=t`);
    expect(link.pathname).toBe(`${new URL(kept).pathname.replace(/\/$/, '')}/verify-email`);
    expect(link.href).toBe(`${url}/verify-email?verificationToken=t`);
  });

  it('takes a URL of 500 characters with a path, without its trailing slash', async () => {
    const url = `https://shop.example/${'a'.repeat(479)}`;
    expect(url).toHaveLength(500);
    const result = await runCli(['store', 'set', 'WEB', `--frontend-url=${url}/`], cli.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`\t${url}\t`);
  });
});
