import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_LINES_SHOWN } from '../../src/infra/import/index.js';
import { cliScratch, runCli, type CliScratch } from '../helpers/cli.js';

// A wrong file given to `import` (a CSV, a JSON array, another kind's NDJSON) has every line bad: one
// of 100,000 lines wrote 100,000 messages to stderr, the summary and the advice lost above them. The
// command shows the first BAD_LINES_SHOWN in full and one line counting the rest; the summary counts
// every line, and the advice under them is the same.

const NOT_NDJSON = 'No line was imported: is this an NDJSON file of that kind (one JSON object a line, docs/import.md)?';

let cli: CliScratch;
beforeAll(async () => {
  cli = await cliScratch('storefront-import-bad-lines-');
});
afterAll(() => cli.remove());

/** A CSV export of `rows` rows under its header: no line of it is NDJSON. */
function csvFile(name: string, rows: number): string {
  const path = join(cli.dir, name);
  writeFileSync(path, ['code,name', ...Array.from({ length: rows }, (_, i) => `PUB-${i},Publisher ${i}`)].join('\n'));
  return path;
}

const notJson = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}: not valid JSON`);

describe('import of a file with more bad lines than it shows', () => {
  it(`shows the first ${BAD_LINES_SHOWN} of a CSV's 1,000 lines, counts the rest on one line, and sums up all of them`, async () => {
    expect(await runCli(['import', 'publishers', csvFile('publishers.csv', 999)], cli.env)).toEqual({
      code: 1,
      stdout: '1000 lines: {}, 1000 bad\n',
      stderr: [...notJson(1, 20), 'and 980 more bad lines, not shown (the first 20 are above)', NOT_NDJSON, ''].join('\n'),
    });
  });

  it('counts the lines imported between bad ones exactly, and keeps the advice', async () => {
    // Every other line another kind's (a person: no name of a publisher), the others publishers.
    const lines = Array.from({ length: 60 }, (_, i) =>
      i % 2 === 0 ? { code: `MIX-${i}`, name: `Kirjastus ${i}` } : { code: `PERSON-${i}`, firstName: 'Anton', lastName: 'Tammsaare' },
    );
    const imported = await runCli(['import', 'publishers', cli.ndjsonFile('mixed.ndjson', lines)], cli.env);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toBe('60 lines: {"created":30}, 30 bad\n');
    const stderr = imported.stderr.split('\n');
    const reported = stderr.filter((line) => /^line \d+: /.test(line));
    expect(reported.map((line) => Number(/^line (\d+)/.exec(line)![1]))).toEqual(Array.from({ length: 20 }, (_, i) => 2 * i + 2));
    expect(stderr.slice(stderr.indexOf(reported.at(-1)!) + 1, stderr.indexOf(reported.at(-1)!) + 3)).toEqual([
      'and 10 more bad lines, not shown (the first 20 are above)',
      'The other lines were imported. Fix the 30 bad lines (the first 20 are above) and import the whole file again: lines imported already stay unchanged.',
    ]);
  });

  it(`shows every one of ${BAD_LINES_SHOWN} bad lines and no count, and counts a single one left as one line`, async () => {
    const all = await runCli(['import', 'publishers', csvFile('twenty.csv', 19)], cli.env);
    expect(all.stderr).toBe([...notJson(1, 20), NOT_NDJSON, ''].join('\n'));
    const oneMore = await runCli(['import', 'publishers', csvFile('twenty-one.csv', 20)], cli.env);
    expect(oneMore.stdout).toBe('21 lines: {}, 21 bad\n');
    expect(oneMore.stderr).toBe([...notJson(1, 20), 'and 1 more bad line, not shown (the first 20 are above)', NOT_NDJSON, ''].join('\n'));
  });
});
