import type { DatabaseHandle, Db } from '../../db/database.js';
import type { SearchEngine } from './engine.js';
import { createEngine } from './engines.js';
import { BACKLOG_LIMIT, FOLD_BATCH, markFirstBuild, readState, type IndexState } from './search-index.repository.js';

// Whether the index can answer. It cannot while it is being rebuilt (`search reindex`), while it
// is far behind (more than BACKLOG_LIMIT changes queued), when its tables are missing, and while a
// first build waits: a catalogue filled (a first import, the demo) before any of it was folded.
// A search that answered then would fold the first few hundred changes and show a fraction of the
// catalogue as if it were all of it; so the index is marked 'building', like a rebuild, and every
// process answers 503 until the queue is empty (whoever folds the last batch marks it ready).
// Fewer changes than a search folds before answering (FOLD_BATCH) are simply folded by it.

/** Why search answers 503 (`building`: a rebuild or a first build; `behind`: more than BACKLOG_LIMIT queued). */
export type UnreadyReason = 'building' | 'behind' | 'missing';

export interface SearchIndexReadiness {
  ready: boolean;
  reason?: UnreadyReason;
  /** Changes waiting to be folded, counted up to BACKLOG_LIMIT + 1. */
  queued: number;
}

/**
 * Marks a first build (see above) when the state read shows one: more than FOLD_BATCH changes
 * queued and no product document in the index yet. Returns the state as it now is.
 */
export async function noteFirstBuild(db: Db, engine: SearchEngine, state: IndexState, now: number): Promise<IndexState> {
  if (state.status !== 'ready' || state.backlog <= FOLD_BATCH) return state;
  if (await engine.hasDocuments(db)) return state;
  await markFirstBuild(db, now);
  return { ...state, status: 'building' };
}

/** The answer of a state (after noteFirstBuild): what a search would answer now. */
export function readinessOf(state: IndexState): SearchIndexReadiness {
  if (state.status !== 'ready') return { ready: false, reason: 'building', queued: state.backlog };
  if (state.backlog > BACKLOG_LIMIT) return { ready: false, reason: 'behind', queued: state.backlog };
  return { ready: true, queued: state.backlog };
}

/**
 * Whether searches can answer now, for readiness checks (`/site/ready`): one or two small reads
 * (a write only when it notes a first build). A database whose index tables are missing is
 * `missing`; any other error (the database is down) is thrown.
 */
export async function searchIndexReadiness(handle: DatabaseHandle, now: number): Promise<SearchIndexReadiness> {
  const engine = createEngine(handle);
  try {
    return readinessOf(await noteFirstBuild(handle.db, engine, await readState(handle.db), now));
  } catch (error) {
    if (engine.isMissingIndex(error) || isMissingState(error)) return { ready: false, reason: 'missing', queued: 0 };
    throw error;
  }
}

/** readState on a database migrated before the index existed, or with the table dropped. */
function isMissingState(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /search_state|search_pending/.test(message) && /no such table|does not exist|has no row/.test(message);
}
