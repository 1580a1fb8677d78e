import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { BAD_LINES_SHOWN } from './bad-lines-shown.js';
import { withImportLock } from './import-lock.js';
import type { ImportSummary } from './ndjson-import.js';
import type { ImportProgress } from './progress.js';

/** What every importer may use; the CLI and `POST /admin/import/:kind` both build it. */
export interface ImportDeps {
  db: Kysely<Database>;
  /** Timestamps of the rows a line writes (created_at, updated_at). */
  clock: Clock;
  /** Where a line's unexpected error is logged in full (the report names it by an id only). */
  log: Logger;
}

export interface ImportOptions {
  /** `--force` / `?force=true`: lets a kind go past a safety check (e.g. mass deactivation). */
  force: boolean;
}

/**
 * Imports one NDJSON file; `report` receives one line per bad input line (`line N: message`), and
 * `progress`, when given (the CLI on a terminal), a progress bar.
 */
export type RunImport = (file: string, report: (line: string) => void, progress?: ImportProgress) => Promise<ImportSummary>;

/** One kind of `import <kind> <file>`; `D` is what its importer needs beyond the database and clock. */
export interface ImportKind<D extends ImportDeps = ImportDeps> {
  /** Its lines of the CLI usage: the command, padded to column 38, then what it does. */
  usage: string;
  create(deps: D, options: ImportOptions): RunImport;
}

export type ImportKinds<D extends ImportDeps = ImportDeps> = Record<string, ImportKind<D>>;

/** The import kinds bound to their deps: what the CLI and the HTTP route run. */
export interface Importer {
  /** The kind names, in the registry's order. */
  kinds(): string[];
  has(kind: string): boolean;
  /**
   * The run of a kind. It holds the kind's import lock while it runs, so imports of one kind never
   * overlap, in any process; a second one is refused (ImportRunningError).
   */
  start(kind: string, options: ImportOptions): RunImport;
}

/** Binds `kinds` to `deps`. A kind is looked up when it is started, so the registry may grow (tests add kinds). */
export function createImporter<D extends ImportDeps>(kinds: ImportKinds<D>, deps: D): Importer {
  const has = (kind: string) => Object.hasOwn(kinds, kind);
  return {
    kinds: () => Object.keys(kinds),
    has,
    start(kind, options) {
      if (!has(kind)) throw new Error(`unknown import kind "${kind}"`);
      const run = kinds[kind]!.create({ ...deps, log: deps.log.child({ importKind: kind }) }, options);
      return (file, report, progress) => withImportLock(deps.db, kind, () => run(file, report, progress), undefined, deps.clock);
    },
  };
}

/** The `import` block of the CLI usage. */
export function importUsage(kinds: Readonly<Record<string, { usage: string }>>): string {
  const lines = Object.values(kinds).map((kind) => `  ${kind.usage}`);
  return [
    ...lines,
    '                                      (NDJSON, see docs/import.md; a bad line is reported by number, the',
    `                                      first ${BAD_LINES_SHOWN} in full, and skipped, exit 1; --force where a kind has a`,
    '                                      safety check)',
  ].join('\n');
}
