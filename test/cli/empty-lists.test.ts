import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliScratch, runCli, type CliScratch } from '../helpers/cli.js';

// Every other list of the command line says when it is empty ("No API keys.", "no jobs"); these two
// printed nothing, which an operator cannot tell from a command that did not run, and `business list`
// did not say whether any store waits for the back office at all (BUSINESS_APPROVAL_STORES).

let cli: CliScratch;
beforeAll(async () => {
  cli = await cliScratch('storefront-empty-lists-');
});
afterAll(() => cli.remove());

describe('an empty list of decisions to take', () => {
  it('of wholesale applications says none waits', async () => {
    expect(await runCli(['wholesale', 'list'], cli.env)).toEqual({
      code: 0,
      stdout: 'No wholesale application waits for a decision.\n',
      stderr: '',
    });
  });

  it('of business accounts says none waits, and which stores wait for approval', async () => {
    expect(await runCli(['business', 'list'], { ...cli.env, BUSINESS_APPROVAL_STORES: 'WEB,WEB2' })).toEqual({
      code: 0,
      stdout: 'No business account waits for approval (BUSINESS_APPROVAL_STORES=WEB,WEB2).\n',
      stderr: '',
    });
    expect((await runCli(['business', 'list'], cli.env)).stdout).toBe(
      'No business account waits for approval (BUSINESS_APPROVAL_STORES is not set: registrations are mailed their confirmation link at once).\n',
    );
  });
});
