import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import cliProgress from 'cli-progress';

export interface ImportSummary {
  lines: number;
  /** Count per outcome the apply step reported, e.g. { created: 3, unchanged: 1 }. */
  outcomes: Record<string, number>;
  errors: number;
}

export interface LineImporter<T> {
  /** Parses and checks one record; returns an error message for a bad one. */
  parse(value: unknown): { record: T } | { error: string };
  /** Applies one record in a transaction of its own, so a failing line leaves nothing behind. */
  apply(record: T): Promise<string>;
}

/**
 * Reads an NDJSON file line by line (constant memory), applies each record, and reports a bad
 * line by its number and skips it whole. Shows a progress bar when stderr is a terminal.
 */
export async function importNdjson<T>(
  file: string,
  importer: LineImporter<T>,
  report: (line: string) => void,
): Promise<ImportSummary> {
  const size = statSync(file).size;
  const input = createReadStream(file);
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar({ stream: process.stderr, format: ' {bar} {percentage}% | {value}/{total} bytes | {lines} lines' }, cliProgress.Presets.shades_classic)
    : undefined;
  bar?.start(size, 0, { lines: 0 });
  const summary: ImportSummary = { lines: 0, outcomes: {}, errors: 0 };
  const fail = (lineNumber: number, message: string) => {
    summary.errors += 1;
    bar?.stop();
    report(`line ${lineNumber}: ${message}`);
    bar?.start(size, input.bytesRead, { lines: summary.lines });
  };
  try {
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      summary.lines += 1;
      const lineNumber = summary.lines;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        fail(lineNumber, 'not valid JSON');
        continue;
      }
      const parsed = importer.parse(value);
      if ('error' in parsed) {
        fail(lineNumber, parsed.error);
        continue;
      }
      try {
        const outcome = await importer.apply(parsed.record);
        summary.outcomes[outcome] = (summary.outcomes[outcome] ?? 0) + 1;
      } catch (error) {
        fail(lineNumber, error instanceof Error ? error.message : String(error));
      }
      bar?.update(input.bytesRead, { lines: summary.lines });
    }
  } finally {
    bar?.update(size, { lines: summary.lines });
    bar?.stop();
  }
  return summary;
}
