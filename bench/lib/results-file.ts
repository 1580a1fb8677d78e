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
 * Replaces the part's section of RESULTS.md where it stands, keeping the others in their places and
 * the notes written by hand after a section's end marker (up to the next section), which stay with
 * the section they follow. A section written the first time goes after the last section before it in
 * `order` that the file has (at the end when none): each script knows only a few of the others, and
 * sections it does not name must not move.
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
  const parts = [...sections.keys()];
  if (!sections.has(part)) {
    const before = order.slice(0, Math.max(0, order.indexOf(part))).filter((name) => sections.has(name));
    const after = before.length > 0 ? parts.indexOf(before.at(-1)!) + 1 : parts.length;
    parts.splice(after, 0, part);
  }
  sections.set(part, markdown.trim());
  const body = parts
    .map((name) => `${begin(name)}\n${sections.get(name)}\n${end(name)}${notes.has(name) ? `\n\n${notes.get(name)}` : ''}`)
    .join('\n\n');
  writeFileSync(file, `${HEADER}\n${body}\n`);
}
