import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { runCli } from '../helpers/cli.js';
import { configProblems } from '../helpers/config.js';

// DATABASE_URL (and DATABASE_REPLICA_URL) may carry the database password. A mistyped scheme
// (postgress://) printed the whole value, password and all, to the terminal and into the log of
// whatever started the process; a PostgreSQL URL the driver cannot read (a port past 65535, an
// unencoded ":" in the password) passed the start and failed at the first statement with "error:
// Invalid URL", naming no setting. Both are now start-up errors that name the variable and show no password.

const SECRET = 's3cret-pass';

describe('DATABASE_URL and DATABASE_REPLICA_URL', () => {
  it('never show a password in a configuration error', async () => {
    const result = await runCli(['migrate'], {
      DATABASE_URL: `postgress://shop:${SECRET}@db.example:5432/shop`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'DATABASE_URL must be sqlite:<file>, sqlite::memory: or postgres://..., got (a URL with a user or password, not shown)',
    );
    expect(result.stderr).not.toContain(SECRET);
    const replica = configProblems({
      DATABASE_URL: 'postgres://shop@db/shop',
      DATABASE_REPLICA_URL: `mysql://shop:${SECRET}@replica/shop`,
    });
    expect(replica).toEqual([expect.stringContaining('DATABASE_REPLICA_URL must be a postgres://')]);
    expect(replica.join()).not.toContain(SECRET);
    // Nor when the scheme is mangled or missing, or the password holds a slash.
    for (const url of [`shop:${SECRET}@db.example/shop`, `postgres:/shop:${SECRET}@db/shop`, `mysql://shop:s3/${SECRET}@db/shop`])
      expect(configProblems({ DATABASE_URL: url }).join()).not.toContain(SECRET);
    // A value without a user still says what it got.
    expect(configProblems({ DATABASE_URL: 'mysql://x' })).toEqual([expect.stringContaining('got "mysql://x"')]);
  });

  it('refuse at start a PostgreSQL URL the driver cannot read, naming the variable', async () => {
    for (const url of [`postgres://shop:${SECRET}@db.example:99999/shop`, `postgres://shop:${SECRET}:x@db.example:5432:1/shop`]) {
      const result = await runCli(['jobs', 'list'], { DATABASE_URL: url });
      expect(result.code, url).toBe(1);
      expect(result.stderr).toContain('Invalid configuration:\n  - DATABASE_URL is not a URL the driver can read');
      expect(result.stderr).not.toContain(SECRET);
    }
    expect(configProblems({ DATABASE_URL: 'postgres://shop@db/shop', DATABASE_REPLICA_URL: 'postgres://shop@replica:70000/shop' })).toEqual(
      [expect.stringMatching(/^DATABASE_REPLICA_URL is not a URL the driver can read/)],
    );
  });

  it('take the URLs the driver takes', () => {
    for (const url of [
      'postgres://shop:p%40ss@db.example:5432/shop?sslmode=require',
      'postgresql://shop@/shop?host=/var/run/postgresql',
      'postgres:///shop',
    ]) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });
});
