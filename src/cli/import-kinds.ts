import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { importUsers } from '../modules/accounts/users-import.js';
import { withImportLock } from '../modules/admin/import-lock.js';
import { catalogueImportKinds } from '../modules/catalogue-import/kinds.js';
import { importSalesHistory } from '../modules/data-export/sales-history-import.js';
import type { ImportSummary } from './ndjson-import.js';

/** What every importer may use; the CLI and `POST /admin/import/:kind` both build it. */
export interface ImportDeps {
  db: Kysely<Database>;
  config: Config;
}

export interface ImportOptions {
  /** `--force` / `?force=true`: lets a kind go past a safety check (e.g. mass deactivation). */
  force: boolean;
}

/** Imports one NDJSON file; `report` receives one line per bad input line (`line N: message`). */
export type RunImport = (file: string, report: (line: string) => void) => Promise<ImportSummary>;

export interface ImportKind {
  /** Its lines of the CLI usage: the command, padded to column 38, then what it does. */
  usage: string;
  create(deps: ImportDeps, options: ImportOptions): RunImport;
}

/**
 * The kinds `import <kind> <file>` and `POST /admin/import/:kind` accept. Add a kind here (and a
 * section to docs/import.md); the CLI usage and the HTTP route pick it up.
 */
export const importKinds: Record<string, ImportKind> = {
  users: {
    usage: 'import users <file.ndjson>          users of the previous system',
    create: (deps) => (file, report) => importUsers(deps, file, report),
  },
  ...catalogueImportKinds,
  'sales-history': {
    usage: 'import sales-history <file.ndjson>  orders from the back office, for the data export',
    create: (deps) => (file, report) => importSalesHistory(deps.db, file, report),
  },
};

/**
 * The kind to run (the CLI, the HTTP route): it holds the kind's import lock while it runs, so
 * imports of one kind never overlap, in any process; a second one is refused (ImportRunningError).
 */
export function importKind(kind: string): ImportKind | undefined {
  if (!Object.hasOwn(importKinds, kind)) return undefined;
  const { usage, create } = importKinds[kind]!;
  return { usage, create: (deps, options) => (file, report) => withImportLock(deps.db, kind, () => create(deps, options)(file, report)) };
}

/** The `import` block of the CLI usage. */
export function importUsage(): string {
  const kinds = Object.values(importKinds).map((kind) => `  ${kind.usage}`);
  return [
    ...kinds,
    '                                      (NDJSON, see docs/import.md; a bad line is reported by number',
    '                                      and skipped, exit 1; --force where a kind has a safety check)',
  ].join('\n');
}
