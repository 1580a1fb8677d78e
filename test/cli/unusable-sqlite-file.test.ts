import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli.js';

// A SQLite DATABASE_URL naming a folder, or a file that is not a SQLite database, failed with
// better-sqlite3's "unable to open database file" or "file is not a database", naming neither the
// variable nor the path. Every command, `serve` and `worker` too, refuses it as a bad setting (exit 1,
// the variable, the file in full, what is wrong and what to do), and changes nothing. SQLite's alone,
// on either engine's run; as processes, the way an operator meets it.

const dir = mkdtempSync(join(tmpdir(), 'storefront-unusable-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const folder = join(dir, 'data');
mkdirSync(folder);
const notADatabase = join(dir, 'orders.csv');
const CSV = 'code,total\nORD-1,9.90\n';
writeFileSync(notADatabase, CSV);
const publishers = join(dir, 'publishers.ndjson');
writeFileSync(publishers, `${JSON.stringify({ code: 'PUB-1', name: 'Varrak' })}\n`);

const refusal = (file: string, problem: string) =>
  `Invalid configuration:\n  - DATABASE_URL (sqlite:${file}) names the SQLite file ${file}, ${problem}\n`;
const FOLDER = `which is a folder, not a database file: name the file itself, e.g. sqlite:${join(folder, 'storefront.db')}`;
const NOT_A_DATABASE =
  "which is not a SQLite database: check DATABASE_URL: it names the shop's database, the file storefront migrate or serve made";

/** `serve` and `worker` run until stopped once they start: killed after this, their code is null. */
const KILLED_AFTER_MS = 30_000;

const commands = [
  [['store', 'list']],
  [['migrate']],
  [['seed', '--demo']],
  [['import', 'publishers', publishers]],
  [['backup', join(dir, 'backup.db')]],
  [['restore', publishers]],
  [['serve']],
  [['worker']],
];

describe.each([
  ['a folder', folder, FOLDER],
  ['a file that is not a SQLite database', notADatabase, NOT_A_DATABASE],
])('DATABASE_URL naming %s', (_, file, problem) => {
  it.each(commands)(
    '%j exits 1 at once naming the variable, the file and what is wrong',
    async (args) => {
      const started = performance.now();
      const result = await runCliProcess(args, { DATABASE_URL: `sqlite:${file}`, PORT: '0' }, { killAfterMs: KILLED_AFTER_MS });
      expect(result).toEqual({ code: 1, stdout: '', stderr: refusal(file, problem) });
      // Not held open by anything it started (a process is killed, code null, past KILLED_AFTER_MS).
      expect(performance.now() - started).toBeLessThan(KILLED_AFTER_MS);
      // Nothing was made in the folder or beside the file (a -wal, a -shm, a card key file), nor changed.
      expect(readdirSync(folder)).toEqual([]);
      expect(readdirSync(dir).sort()).toEqual(['data', 'orders.csv', 'publishers.ndjson']);
      expect(readFileSync(notADatabase, 'utf8')).toBe(CSV);
    },
    60_000,
  );
});

describe('DATABASE_URL naming a file whose folder is a file', () => {
  it('is refused as a file that cannot be read, by a command that would make the database too', async () => {
    const file = join(notADatabase, 'shop.db');
    const result = await runCliProcess(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: refusal(
        file,
        `which cannot be read (ENOTDIR: not a directory, stat '${file}'): check DATABASE_URL, and that the user the process runs as may read and write the file and its folder`,
      ),
    });
  }, 60_000);
});
