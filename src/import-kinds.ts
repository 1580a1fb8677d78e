import type { Config } from './config.js';
import type { ImportDeps, ImportKinds } from './infra/import/import-kind.js';
import { importUsers } from './modules/accounts/users-import.js';
import { catalogueImportKinds } from './modules/catalogue-import/index.js';
import { salesHistoryKind } from './modules/data-export/index.js';

/** What the kinds below need: the database and clock of every import, and the config users read. */
export interface AppImportDeps extends ImportDeps {
  config: Config;
}

/**
 * The kinds `import <kind> <file>` and `POST /admin/import/:kind` accept: a composition root, the
 * one place that knows every module's import kinds. Add a kind here (and a section to
 * docs/import.md); the CLI usage and the HTTP route pick it up.
 */
export const importKinds: ImportKinds<AppImportDeps> = {
  users: {
    usage: 'import users <file.ndjson>          users of the previous system',
    create: (deps) => (file, report) => importUsers(deps, file, report),
  },
  ...catalogueImportKinds,
  'sales-history': salesHistoryKind,
};
