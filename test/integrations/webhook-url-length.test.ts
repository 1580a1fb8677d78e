import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliScratch, runCli, type CliScratch } from '../helpers/cli.js';

// A webhook endpoint keeps its URL as requests are sent to it (the parsed URL, non-ASCII characters
// and quotes percent-encoded), in webhook_endpoint.url, varchar(2000). The 2,000-character limit was
// checked on the URL as typed: one a few hundred characters long with a path of non-ASCII letters
// was kept several times longer, on PostgreSQL an uncaught database error (exit 1) in place of the
// usage error, and a request URL few receivers take.

describe('webhook add and enable --url', () => {
  let cli: CliScratch;
  beforeAll(async () => {
    cli = await cliScratch('storefront-webhook-url-length-');
  });
  afterAll(async () => cli?.remove());

  const longWhenSent = [
    ['non-ASCII letters', `https://hooks.example/${'ä'.repeat(600)}`],
    ['quotes in its query', `https://hooks.example/in?q=${'"'.repeat(700)}`],
  ];

  it.each(longWhenSent)('refuses a URL of %s longer than 2,000 characters as sent (exit 2), adding nothing', async (_, url) => {
    expect(url.length).toBeLessThan(2000);
    const result = await runCli(['webhook', 'add', 'shop-hook', url], cli.env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^error: webhook add: the URL is longer than 2000 characters/);
    expect((await runCli(['webhook', 'list'], cli.env)).stdout).not.toContain('shop-hook');
  });

  it('takes a URL of non-ASCII letters within 2,000 characters as sent, and keeps it so', async () => {
    const url = `https://hooks.example/${'ä'.repeat(329)}x`;
    const sent = new URL(url).toString();
    expect(sent).toHaveLength(1997);
    const result = await runCli(['webhook', 'add', 'short-hook', url], cli.env);
    expect(result.code, result.stderr).toBe(0);
    expect((await runCli(['webhook', 'list'], cli.env)).stdout).toContain(`short-hook\t${sent}`);
  });
});
