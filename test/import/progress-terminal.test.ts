import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { createDatabase } from '../../src/db/database.js';
import { BAD_LINES_SHOWN } from '../../src/infra/import/index.js';
import { runCli as runCliHelper } from '../helpers/cli.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// On a terminal the CLI import draws a progress bar on stderr, where its bad lines and its log go
// too. A log line (here of a line's unexpected error) written while the bar is drawn landed on the
// bar's line, after its text; so the bar's line is cleared first and the bar drawn again after.

/** A terminal as the CLI gets it on stderr: everything written to it, escapes included. */
function fakeTerminal() {
  let written = '';
  const stream = {
    isTTY: true,
    columns: 100,
    write(chunk: string | Uint8Array) {
      written += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    },
  };
  return { stream: stream as unknown as NodeJS.WriteStream, written: () => written };
}

const CLEAR_LINE = '\u001b[2K';
const SAVE_CURSOR = '\u001b7';

describe('the CLI import on a terminal', () => {
  let dir: string;
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'storefront-import-progress-'));
    const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
    drop = scratch?.drop;
    env = { PATH: process.env.PATH ?? '', DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}`, LOG_FORMAT: 'json' };
    expect((await runCliHelper(['migrate'], env)).code).toBe(0);
    // A second publisher of the same name fails in the database: an unexpected error, logged.
    const database = createDatabase(env.DATABASE_URL!);
    await sql`create unique index test_publisher_name_uq on publisher (name)`.execute(database.db);
    await database.close();
  });
  afterAll(async () => {
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('clears the bar before a log line or a report and draws it again after', async () => {
    const file = join(dir, 'publishers.ndjson');
    const lines = [
      { code: 'PUB-1', name: 'Varrak' },
      { code: 'PUB-2', name: 'Varrak' },
      { code: 'PUB-3', name: 'Tänapäev' },
    ];
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
    const terminal = fakeTerminal();
    let stdout = '';
    const code = await runCli(['import', 'publishers', file], {
      env,
      stdout: { write: (text: string) => (stdout += text) },
      stderr: terminal.stream,
      progress: terminal.stream,
    });
    expect(code).toBe(1);
    expect(stdout).toContain('3 lines: {"created":2}, 1 bad');
    const written = terminal.written();
    const logAt = written.indexOf('{"level":50');
    const reportAt = written.indexOf('line 2: could not be saved');
    expect(logAt).toBeGreaterThan(0);
    expect(reportAt).toBeGreaterThan(logAt);
    for (const at of [logAt, reportAt]) {
      // The bar was drawn before, its line cleared right before the line, and the bar drawn again after it.
      expect(written.slice(0, at)).toContain(' import ');
      expect(written.slice(0, at).endsWith(CLEAR_LINE), JSON.stringify(written.slice(at - 80, at))).toBe(true);
      const after = written.slice(written.indexOf('\n', at) + 1);
      expect(after.startsWith(SAVE_CURSOR), JSON.stringify(after.slice(0, 40))).toBe(true);
      expect(after.slice(0, after.indexOf('\n') === -1 ? undefined : after.indexOf('\n'))).toContain(' import ');
    }
  });

  // Only the first BAD_LINES_SHOWN bad lines are shown (test/cli/import-bad-lines.test.ts): the bar
  // was stopped and drawn again for every bad line, shown or not, some 370 bytes each, so a wrong file
  // of 100,000 lines still wrote 37 MB of bars to the terminal and took three times as long.
  it('draws the bar again under the bad lines it shows, not for those it leaves out', async () => {
    const file = join(dir, 'publishers.csv');
    writeFileSync(file, ['code,name', ...Array.from({ length: 1999 }, (_, i) => `PUB-${i},Publisher ${i}`)].join('\n'));
    const terminal = fakeTerminal();
    const code = await runCli(['import', 'publishers', file], {
      env,
      stdout: { write: () => true },
      stderr: terminal.stream,
      progress: terminal.stream,
    });
    expect(code).toBe(1);
    const written = terminal.written();
    expect(written.match(/line \d+: not valid JSON\n/g)).toHaveLength(BAD_LINES_SHOWN);
    expect(written).toContain('and 1980 more bad lines, not shown (the first 20 are above)\n');
    // Drawn at its start, again under each line shown, and now and then as the file is read.
    expect(written.split(SAVE_CURSOR).length - 1).toBeLessThan(BAD_LINES_SHOWN + 20);
  });
});
