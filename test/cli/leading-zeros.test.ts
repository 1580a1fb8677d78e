import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliScratch, runCli, type CliScratch } from '../helpers/cli.js';

// The HTTP API refuses a number written with leading zeros (05 for 5, src/http/plain-numbers.ts): one
// spelling per number. The command line read them as the number: `jobs retry 007` retried job 7,
// `--limit=010` listed 10, `store set WEB --guest-discount=05` set 5 %. Each is now a usage error
// (exit 2) naming the value, and nothing runs; the plain spelling still works.

let cli: CliScratch;
beforeAll(async () => {
  cli = await cliScratch('storefront-leading-zeros-');
});
afterAll(() => cli.remove());

it.each([
  [['jobs', 'retry', '007'], /"007" is not a job id/],
  [['jobs', 'list', '--limit=010'], /--limit must be a whole number .*no leading zeros.*"010"/],
  [['subscription', 'mark-refunded', '01'], /"01" is not a charge id/],
  [['gift-card', 'redeliver', '07', 'saaja@example.ee'], /"07" is not a gift card's id/],
  [['webhook', 'deliveries', 'crm', '--limit', '05'], /--limit needs a whole number.*"05"/],
  [['store', 'set', 'WEB', '--guest-discount=05'], /--guest-discount must be a percentage.*"05"/],
])('refuses %j as a usage error (exit 2)', async (args, message) => {
  const result = await runCli(args, cli.env);
  expect(result.code, result.stdout + result.stderr).toBe(2);
  expect(result.stderr).toMatch(message);
});

it('still takes the plain spelling, and 0 where 0 is allowed', async () => {
  expect((await runCli(['jobs', 'list', '--limit=10'], cli.env)).code).toBe(0);
  const set = await runCli(['store', 'set', 'WEB', '--guest-discount=0', '--logged-in-discount=7.5'], cli.env);
  expect(set.code, set.stderr).toBe(0);
  const retry = await runCli(['jobs', 'retry', '7'], cli.env);
  // Refused by what the database holds (no such job), not by its spelling.
  expect(retry.code).toBe(1);
  expect(retry.stderr).toMatch(/no job with id 7/);
});
