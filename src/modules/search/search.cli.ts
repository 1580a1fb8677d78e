import { CliUsageError } from '../../infra/cli-usage.js';
import type { DatabaseHandle } from '../../db/database.js';
import { systemClock } from '../../infra/clock.js';
import { createEngine } from './engines.js';
import { foldAllQueued, readState, startRebuild } from './index-maintenance.js';
import { countSearchProducts } from './search-index.repository.js';

export const SEARCH_USAGE = `  search reindex                      rebuild the search index from the catalogue; searches answer 503
                                      (X-Search-Available: 0) in every process until it is done
  search status                       whether the index is ready and how many changes wait to be folded in`;

/** `storefront search ...`: operators rebuild the search index or look at its state. */
export async function searchCommand(
  database: DatabaseHandle,
  args: string[],
  print: (line: string) => void,
  progress: (line: string) => void,
): Promise<void> {
  const [action, ...rest] = args;
  if (rest.length > 0 || (action !== 'reindex' && action !== 'status'))
    throw new CliUsageError(`unknown search command "${args.join(' ')}"`);
  if (action === 'status') {
    const state = await readState(database.db);
    const products = await countSearchProducts(database.db);
    print(`status=${state.status} queued=${state.backlog}${state.backlog > 10_000 ? '+' : ''} products=${products}`);
    return;
  }
  const engine = createEngine(database);
  const started = performance.now();
  const queued = await startRebuild(database, engine, systemClock.now());
  progress(`search reindex: ${queued} products, persons, publishers and series queued; searches answer 503 until done`);
  // API processes fold alongside; whoever takes the last rows marks the index ready.
  const { folded } = await foldAllQueued(database, engine, {
    progress: (done) => progress(`search reindex: ${done} of ${queued} folded`),
  });
  await engine.optimize(database.db);
  const state = await readState(database.db);
  print(`Search index rebuilt: ${folded} entries in ${((performance.now() - started) / 1000).toFixed(1)} s; status=${state.status}`);
}

/**
 * What `import` runs after its lines: folds the changes the import queued (and any others), so its
 * products are searchable when it exits, even with no API process running; after a first import
 * searches answer 503 until this is done (see index-readiness.ts).
 */
export async function foldImportedChanges(database: DatabaseHandle, progress: (line: string) => void): Promise<void> {
  const { folded, seconds } = await foldAllQueued(database, createEngine(database), {
    progress: (done) => progress(`search index: ${done} changes folded`),
  });
  if (folded > 0)
    progress(`search index: ${folded} changes folded in ${seconds.toFixed(1)} s (${Math.round(folded / Math.max(seconds, 0.001))}/s)`);
}
