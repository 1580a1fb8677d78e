import { CliUsageError } from '../../infra/cli-usage.js';
import type { DatabaseHandle } from '../../db/database.js';
import { systemClock } from '../../infra/clock.js';
import { createEngine } from './engines.js';
import { finishBuild, foldBatch, readState, startRebuild } from './index-maintenance.js';
import { countSearchProducts } from './search-index.repository.js';

export const SEARCH_USAGE = `  search reindex                      rebuild the search index from the catalogue; searches answer 503
                                      (X-Search-Available: 0) in every process until it is done
  search status                       whether the index is ready and how many changes wait to be folded in`;

const REINDEX_BATCH = 2_000;

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
  let folded = 0;
  let lastReport = started;
  for (let taken = REINDEX_BATCH; taken > 0;) {
    // API processes fold alongside; whoever takes the last rows marks the index ready.
    taken = await foldBatch(database, engine, REINDEX_BATCH, systemClock.now());
    folded += taken;
    if (performance.now() - lastReport > 2000) {
      lastReport = performance.now();
      progress(`search reindex: ${folded} of ${queued} folded`);
    }
  }
  await finishBuild(database.db, systemClock.now());
  await engine.optimize(database.db);
  const state = await readState(database.db);
  print(`Search index rebuilt: ${folded} entries in ${((performance.now() - started) / 1000).toFixed(1)} s; status=${state.status}`);
}
