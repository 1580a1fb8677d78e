import { CliUsageError } from '../../infra/cli-usage.js';
import type { DatabaseHandle } from '../../db/database.js';
import { systemClock } from '../../infra/clock.js';
import { stepFailureMessage } from '../../infra/import/index.js';
import type { Logger } from '../../infra/logger.js';
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

const FOLD_STEP = 'the fold of its changes into the search index';
/** What is true once a fold after an import failed: a batch's claim is undone with it, so nothing is lost. */
const FOLD_LEFT_QUEUED =
  'The lines were imported; their changes wait in the search index\'s queue ("search status" shows how many), and searches ' +
  'may not show them (after a first import they answer 503) until a running API process folds them in the background. ' +
  'If they stay queued, fix the cause (in the log under its id) and run "search reindex".';

/**
 * What `import` runs after its lines: folds the changes the import queued (and any others), so its
 * products are searchable when it exits, even with no API process running; after a first import
 * searches answer 503 until this is done (see index-readiness.ts). Returns whether it did: an
 * unexpected error is reported on `progress` in words and by the id it is logged under on `log`,
 * never with the database's text, with what it leaves and what the operator may do.
 */
export async function foldImportedChanges(database: DatabaseHandle, progress: (line: string) => void, log: Logger): Promise<boolean> {
  let result: { folded: number; seconds: number };
  try {
    result = await foldAllQueued(database, createEngine(database), {
      progress: (done) => progress(`search index: ${done} changes folded`),
    });
  } catch (error) {
    progress(stepFailureMessage(error, FOLD_STEP, log, 'after the import'));
    progress(FOLD_LEFT_QUEUED);
    return false;
  }
  const { folded, seconds } = result;
  if (folded > 0)
    progress(`search index: ${folded} changes folded in ${seconds.toFixed(1)} s (${Math.round(folded / Math.max(seconds, 0.001))}/s)`);
  return true;
}
