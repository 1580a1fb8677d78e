import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// `backup` on PostgreSQL runs pg_dump with DATABASE_URL. The URL went in its arguments whole,
// password and all, where every user of the machine reads it (ps, /proc/<pid>/cmdline) for as long
// as the dump runs. The password now goes in PGPASSWORD, which only the process's own user can read.
// A stand-in pg_dump on PATH records what it was given; no database is needed.

const dir = mkdtempSync(join(tmpdir(), 'storefront-backup-password-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fakePgDump = join(dir, 'pg_dump');
writeFileSync(
  fakePgDump,
  `#!/bin/sh\nprintf '%s\\n' "$@" > '${dir}/args'\nprintf '%s' "$PGPASSWORD" > '${dir}/password'\nprintf '%s' "$PGAPPNAME" > '${dir}/appname'\n`,
);
chmodSync(fakePgDump, 0o755);

const backup = async (url: string, file: string) => {
  const result = await runCli(['backup', join(dir, file)], { DATABASE_URL: url, PATH: dir, PGAPPNAME: 'ops-shell' });
  expect(result.code, result.stderr + result.stdout).toBe(0);
  // Named pg_dump whatever the environment names connections: the data export's settle cut leaves that name's long read out.
  expect(readFileSync(join(dir, 'appname'), 'utf8')).toBe('pg_dump');
  return { args: readFileSync(join(dir, 'args'), 'utf8'), password: readFileSync(join(dir, 'password'), 'utf8') };
};

describe('backup on PostgreSQL', () => {
  it('gives pg_dump the password in PGPASSWORD, never in its arguments', async () => {
    const { args, password } = await backup('postgres://shop:s3cr%40t@db.example:5432/shop?sslmode=require', 'a.dump');
    expect(args).not.toContain('s3cr');
    expect(args).toContain('--dbname=postgres://shop@db.example:5432/shop?sslmode=require\n');
    expect(password).toBe('s3cr@t');
  });

  it('takes a password given as a query parameter out too, and passes a URL without one as it is', async () => {
    const inQuery = await backup('postgresql://shop@db.example/shop?password=hunter2&sslmode=require', 'b.dump');
    expect(inQuery.args).not.toContain('hunter2');
    expect(inQuery.password).toBe('hunter2');
    const none = await backup('postgres://shop@db.example/shop', 'c.dump');
    expect(none.args).toContain('--dbname=postgres://shop@db.example/shop\n');
    expect(none.password).toBe('');
  });

  it('takes it out of a socket URL too, and leaves the rest of the query as written', async () => {
    const socket = await backup('postgres://shop:s3cret@/shop?host=/var/run/postgresql&options=-c%20search_path%3Dx', 'd.dump');
    expect(socket.args).not.toContain('s3cret');
    expect(socket.args).toContain('--dbname=postgres://shop@/shop?host=/var/run/postgresql&options=-c%20search_path%3Dx\n');
    expect(socket.password).toBe('s3cret');
  });
});
