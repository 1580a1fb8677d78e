import { importNdjson, withImportLock, type ImportDeps, type ImportSummary, type RunImport } from '../../infra/import/index.js';
import { priceLines, productFeed, stockLines } from '../catalogue-import/index.js';

// The feeds a supplier pushes: the back office's import formats (docs/import.md), each limited to
// the supplier's own products. The product feed is full for the supplier: its active products the
// feed does not list are deactivated, and a feed that would deactivate more than half of them is
// refused, as for the back office's feed. One feed of a kind per supplier runs at a time.

export const SUPPLIER_FEED_KINDS = ['stock', 'prices', 'products'] as const;
export type SupplierFeedKind = (typeof SUPPLIER_FEED_KINDS)[number];

export const isSupplierFeedKind = (kind: string): kind is SupplierFeedKind => (SUPPLIER_FEED_KINDS as readonly string[]).includes(kind);

function feed(deps: ImportDeps, kind: SupplierFeedKind, supplierId: number, force: boolean): RunImport {
  switch (kind) {
    case 'products':
      return productFeed(deps, { force }, { supplierId });
    case 'stock':
      return (file, report, progress) => importNdjson(file, stockLines(deps, { supplierId }), report, deps.log, progress);
    case 'prices':
      return (file, report, progress) => importNdjson(file, priceLines(deps, { supplierId }), report, deps.log, progress);
  }
}

/**
 * Runs the supplier's feed of `kind` on the file; ImportRefusedError / ImportRunningError as the imports.
 * `admit` runs once the kind's lock is held, before the first line: what it throws refuses the feed, and
 * a feed refused for the lock has not reached it (the request is not spent: it may be sent again).
 */
export function runSupplierFeed(
  deps: ImportDeps,
  supplier: { id: number },
  kind: SupplierFeedKind,
  file: string,
  report: (line: string) => void,
  admit: () => Promise<void> = async () => {},
): Promise<ImportSummary> {
  const lockName = `${kind}@supplier-${supplier.id}`;
  const run = feed({ ...deps, log: deps.log.child({ importKind: lockName }) }, kind, supplier.id, false);
  return withImportLock(
    deps.db,
    lockName,
    async () => {
      await admit();
      return run(file, report);
    },
    undefined,
    deps.clock,
  );
}
