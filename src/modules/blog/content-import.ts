import type { ImportKinds } from '../../infra/import/index.js';
import { inLineTransaction, lineKind } from '../catalogue-import/index.js';
import { contentKinds } from './content-kinds.js';

const USAGE: Record<string, string> = {
  'blog-categories': 'import blog-categories <file.ndjson>  blog categories (translated names)',
  'blog-posts': 'import blog-posts <file.ndjson>      blog posts (one language each)',
  news: 'import news <file.ndjson>            news (translated)',
  redirects: 'import redirects <file.ndjson>       old URLs and where they live now',
  'shop-schedules': 'import shop-schedules <file.ndjson>  opening hours and holidays of shops',
};

/** The module's NDJSON import kinds (docs/import.md): upsert by code, one transaction a line. */
export const blogImportKinds: ImportKinds = Object.fromEntries(
  Object.entries(contentKinds).map(([name, kind]) => [
    name,
    lineKind(USAGE[name]!, ({ db, clock, log }) => ({
      parse: (value) => kind.parse(value),
      apply: (record) => inLineTransaction(db, log, (trx) => kind.apply(trx, record, clock.now())),
    })),
  ]),
);
