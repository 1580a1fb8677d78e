import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeResultsSection } from '../../bench/lib/results-file.js';

// bench/RESULTS.md's sections are rewritten one at a time by scripts that each know a few of the
// others: a rewritten section stays where it is, with every other section and hand-written note.

const dir = mkdtempSync(join(tmpdir(), 'results-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const section = (part: string, text: string) => `<!-- bench:${part} -->\n${text}\n<!-- /bench:${part} -->`;
const sectionsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/<!-- bench:([a-z-]+) -->/g)].map((m) => m[1]);

describe('writeResultsSection', () => {
  it('rewrites a section in its place, keeping the sections its script does not name and the notes after each', () => {
    const file = join(dir, 'RESULTS.md');
    writeFileSync(
      file,
      `# Benchmark results\n\n${section('core', 'core 1')}\n\n${section('stall', 'stall 1')}\n\nstall notes\n\n${section('wishlist', 'wishlist 1')}\n\nwishlist notes\n`,
    );
    writeResultsSection(file, 'wishlist', 'wishlist 2', ['core', 'wishlist']);
    writeResultsSection(file, 'core', 'core 2', ['core', 'wishlist']);
    const text = readFileSync(file, 'utf8');
    expect(sectionsOf(file)).toEqual(['core', 'stall', 'wishlist']);
    expect(text).toContain(`${section('stall', 'stall 1')}\n\nstall notes\n\n${section('wishlist', 'wishlist 2')}\n\nwishlist notes\n`);
    expect(text).toContain(section('core', 'core 2'));
  });

  it('puts a new section after the last one before it in its order, or at the end', () => {
    const file = join(dir, 'NEW.md');
    writeFileSync(file, `# Benchmark results\n\n${section('core', 'c')}\n\n${section('stall', 's')}\n`);
    writeResultsSection(file, 'basket', 'b', ['core', 'basket']);
    writeResultsSection(file, 'soak', 'k', []);
    expect(sectionsOf(file)).toEqual(['core', 'basket', 'stall', 'soak']);
  });
});
