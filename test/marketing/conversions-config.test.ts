import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// The CompleteRegistration event goes to the Conversions API only with its URL, pixel id and access
// token; without them it is skipped (README). One or two of the three set is a misconfiguration (a
// mistyped name, one left out of a deploy), not the choice of no endpoint: every registration's event
// was ended as skipped, for good and with no word but an info line per job. The process refuses to
// start instead, naming what is missing, as for BACKOFFICE_ORDERS_URL without its secret.

const DATABASE = { DATABASE_URL: 'sqlite::memory:' };
const ALL = {
  CONVERSIONS_API_URL: 'https://graph.example/v19.0',
  CONVERSIONS_PIXEL_ID: '1234567890',
  CONVERSIONS_ACCESS_TOKEN: 'token-0123456789',
};

describe('the Conversions API settings', () => {
  it('are taken all three, or none', async () => {
    expect((await runCli(['migrate'], { ...DATABASE, ...ALL })).code).toBe(0);
    expect((await runCli(['migrate'], DATABASE)).code).toBe(0);
  });

  it('are refused at start when only some are set, naming the missing ones', async () => {
    for (const missing of Object.keys(ALL) as Array<keyof typeof ALL>) {
      const env: Record<string, string> = { ...DATABASE, ...ALL };
      delete env[missing];
      const result = await runCli(['migrate'], env);
      expect(result.code, missing).toBe(1);
      expect(result.stderr).toContain(missing);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const onlyUrl = await runCli(['migrate'], { ...DATABASE, CONVERSIONS_API_URL: ALL.CONVERSIONS_API_URL });
    expect(onlyUrl.code).toBe(1);
    expect(onlyUrl.stderr).toContain('CONVERSIONS_PIXEL_ID');
    expect(onlyUrl.stderr).toContain('CONVERSIONS_ACCESS_TOKEN');
  });
});
