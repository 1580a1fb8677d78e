import { Gauge, Registry } from 'prom-client';
import type { DatabaseHandle } from '../../db/database.js';
import type { Clock } from '../../infra/clock.js';
import { jobBacklog } from '../../infra/jobs/queue.js';
import { categoryTotalsBacklog } from '../catalogue/index.js';
import { revivalRefusalCount } from '../orders/index.js';
import { countPending } from '../search/index.js';
import { stuckChargeCount } from '../subscriptions/index.js';

/** Where scrape failures are reported (the application's logger). */
export interface GaugeLog {
  warn(details: object, message: string): void;
}

/**
 * The figures read from the database when /metrics is scraped: the outbox (in all and per job type),
 * the search queue, the subscription charges stuck pending, the FAILED orders whose revival was refused, the category totals'
 * unfolded deltas and the connections. Shared by every process on the database, so any one's /metrics tells them; a
 * scrape whose reads fail still answers, with storefront_database_up 0 and these left out.
 */
export interface DatabaseGauges {
  registry: Registry;
  /** Reads the database and sets the gauges; never throws. */
  refresh(): Promise<void>;
}

export function databaseGauges(database: DatabaseHandle, clock: Clock, log: GaugeLog): DatabaseGauges {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });
  const up = gauge('storefront_database_up', 'Whether the reads of this scrape answered (1) or failed (0)');
  const jobs = gauge(
    'storefront_jobs',
    "Jobs in the outbox by status (pending, running, dead): the sum of the types' counts, each counted up to 10000",
    ['status'],
  );
  const oldest = gauge(
    'storefront_job_oldest_due_age_seconds',
    'How long the oldest due job (pending, or running with its claim run out) has waited; 0 when none waits',
  );
  const jobsByType = gauge(
    'storefront_jobs_by_type',
    'Jobs in the outbox by type and status (pending, running, dead), for every type with such a job; counted up to 10000 (10000 means at least)',
    ['type', 'status'],
  );
  const diedByType = gauge(
    'storefront_jobs_died_last_hour_by_type',
    'Jobs of each type that failed for good (dead) in the hour before the scrape, for every type with one; counted up to 10000 in all. Above 0: see `storefront jobs list --status=dead`',
    ['type'],
  );
  const oldestByType = gauge(
    'storefront_job_oldest_due_age_seconds_by_type',
    "How long each type's oldest due job (pending, or running with its claim run out) has waited; 0 when none is due: climbing, no worker runs that type",
    ['type'],
  );
  const search = gauge('storefront_search_changes_pending', 'Changes queued for the search index and not folded in yet');
  const stuckCharges = gauge(
    'storefront_subscription_charges_stuck',
    'Subscription charges pending for over a day: the gateway took them and cannot settle them (storefront subscription charges --pending, then settle)',
  );
  const revivalsRefused = gauge(
    'storefront_orders_revival_refused',
    'FAILED orders the back office reported having (it may have shipped them) whose revival was refused: settle them by hand (storefront order revivals --refused)',
  );
  const categoryDeltas = gauge(
    'storefront_category_totals_deltas',
    "Category totals' changes no worker has folded yet (PostgreSQL; counted up to 100000): every category total's read sums its own",
  );
  const categoryDeltaAge = gauge(
    'storefront_category_totals_oldest_delta_age_seconds',
    'How long the oldest unfolded category totals change has waited; 0 when none: climbing past a minute, no worker folds them',
  );
  const connections = gauge(
    'storefront_db_connections',
    'Database connections by state: open, idle, waiting (callers waiting for one) and max',
    ['state'],
  );

  return {
    registry,
    async refresh() {
      const pool = database.connections();
      for (const [state, value] of Object.entries(pool)) connections.set({ state }, value);
      try {
        const now = clock.now();
        const [backlog, pending, stuck, refused, deltas] = await Promise.all([
          jobBacklog(database.db, now),
          countPending(database.db),
          stuckChargeCount(database.db, now),
          revivalRefusalCount(database.db),
          categoryTotalsBacklog(database.db),
        ]);
        jobs.set({ status: 'pending' }, backlog.pending);
        jobs.set({ status: 'running' }, backlog.running);
        jobs.set({ status: 'dead' }, backlog.dead);
        oldest.set(backlog.oldestDueMs / 1000);
        // A type whose last such job ran or was retried leaves the series, as it leaves the outbox.
        jobsByType.reset();
        diedByType.reset();
        oldestByType.reset();
        for (const entry of backlog.byType) {
          for (const status of ['pending', 'running', 'dead'] as const) jobsByType.set({ type: entry.type, status }, entry[status]);
          if (entry.diedLastHour > 0) diedByType.set({ type: entry.type }, entry.diedLastHour);
          // A running job whose claim ran out (its worker stopped) waits as a due pending one does.
          if (entry.pending > 0 || entry.running > 0) oldestByType.set({ type: entry.type }, entry.oldestDueMs / 1000);
        }
        search.set(pending);
        stuckCharges.set(stuck);
        revivalsRefused.set(refused);
        categoryDeltas.set(deltas.deltas);
        // The database's clock stamped it: a clock a little ahead of it reads no negative age.
        categoryDeltaAge.set(deltas.oldestAt === undefined ? 0 : Math.max(0, now - deltas.oldestAt) / 1000);
        up.set(1);
      } catch (err) {
        log.warn({ err }, 'metrics: reading the database failed');
        for (const stale of [
          jobs,
          oldest,
          jobsByType,
          diedByType,
          oldestByType,
          search,
          stuckCharges,
          revivalsRefused,
          categoryDeltas,
          categoryDeltaAge,
        ])
          stale.reset();
        up.set(0);
      }
    },
  };
}
