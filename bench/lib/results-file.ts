import { existsSync, readFileSync, writeFileSync } from 'node:fs';

// bench/RESULTS.md is made of sections, one per part of the benchmark (core HTTP, catalogue,
// search, export, ...), each between its own markers. A part that ran rewrites only its own
// section, so a long part can be re-run alone (`npm run bench -- --only <part>`) without
// discarding what the others measured; each section says when and by what command it was made.

const HEADER = `# Benchmark results

Written by \`bench/run.ts\`. Each section below is rewritten by the part of the benchmark it names
(\`npm run bench\` runs every part; \`npm run bench -- --only <part>\` one of them) and carries its own date,
machine and command: ratios are only ever taken between rows of the same section, measured in the same run.
`;

const begin = (part: string) => `<!-- bench:${part} -->`;
const end = (part: string) => `<!-- /bench:${part} -->`;

/**
 * Replaces the part's section of RESULTS.md (appending it the first time), keeping the others and
 * the notes written by hand after a section's end marker (up to the next section), which stay with
 * the section they follow.
 */
export function writeResultsSection(file: string, part: string, markdown: string, order: readonly string[]): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const sections = new Map<string, string>();
  const notes = new Map<string, string>();
  for (const match of current.matchAll(
    /<!-- bench:([a-z-]+) -->\n([\s\S]*?)\n<!-- \/bench:\1 -->([\s\S]*?)(?=<!-- bench:[a-z-]+ -->|$)/g,
  )) {
    sections.set(match[1]!, match[2]!);
    const after = match[3]!.trim();
    if (after !== '') notes.set(match[1]!, after);
  }
  sections.set(part, markdown.trim());
  const parts = [...order.filter((name) => sections.has(name)), ...[...sections.keys()].filter((name) => !order.includes(name))];
  const body = parts
    .map((name) => `${begin(name)}\n${sections.get(name)}\n${end(name)}${notes.has(name) ? `\n\n${notes.get(name)}` : ''}`)
    .join('\n\n');
  writeFileSync(file, `${HEADER}\n${body}\n`);
}
