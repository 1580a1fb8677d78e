import type { ImportKinds } from './infra/import/index.js';
import { importUsers } from './modules/accounts/index.js';
import { basketImportKinds } from './modules/basket/index.js';
import { blogImportKinds } from './modules/blog/index.js';
import { catalogueImportKinds } from './modules/catalogue-import/index.js';
import { contentImportKinds } from './modules/content/index.js';
import { salesHistoryKind } from './modules/data-export/index.js';
import { subscriptionPlansKind } from './modules/subscriptions/index.js';
import { giftCardsKind } from './modules/gift-cards/index.js';

/**
 * The kinds `import <kind> <file>` and `POST /admin/import/:kind` accept: a composition root, the
 * one place that knows every module's import kinds. Add a kind here (and a section to
 * docs/import.md); the CLI usage and the HTTP route pick it up.
 */
export const importKinds: ImportKinds = {
  users: {
    usage: 'import users <file.ndjson>          users of the previous system',
    create: (deps) => (file, report, progress) => importUsers(deps, file, report, progress),
  },
  ...catalogueImportKinds,
  'sales-history': salesHistoryKind,
  ...basketImportKinds,
  'subscription-plans': subscriptionPlansKind,
  ...contentImportKinds,
  'gift-cards': giftCardsKind,
  ...blogImportKinds,
};
