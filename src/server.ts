import { createServer } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, buildMetricsApp, type App } from './app.js';
import type { Config } from './config.js';
import { createDatabase, type DatabaseHandle } from './db/database.js';
import { prepareSchema } from './db/migrate.js';
import { seedDemo } from './demo/seed.js';
import { privateLogger } from './http/request-log.js';
import { systemClock } from './infra/clock.js';
import { createLifecycle, type Lifecycle } from './infra/lifecycle.js';
import { logDestination } from './infra/log-format.js';
import { testGatewayEnabled } from './modules/payments/index.js';
import { createJobRunner, type JobRunner } from './worker.js';

export interface ServeOptions {
  /** Load demo data when the database is new (used by `npm start`). */
  seedDemo: boolean;
}

/**
 * Runs the API until SIGTERM or SIGINT, then stops accepting connections, lets requests in
 * flight finish, and closes the database.
 */
export async function serve(served: Config, options: ServeOptions): Promise<void> {
  // TEST_GATEWAY unset: the test gateway comes with the demo data and not without it.
  const config: Config = { ...served, testGateway: testGatewayEnabled(served.testGateway, options.seedDemo) ? 'on' : 'off' };
  await canListen(config.host, config.port);
  if (config.metrics.port !== undefined) await canListen(config.metrics.host, config.metrics.port);
  const database = createDatabase(config.databaseUrl, {
    readWorkers: config.sqliteReadWorkers,
    replica: config.replica,
    preparedStatements: config.databasePreparedStatements,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
  await prepareSchema(database).catch(closing(database));
  const lifecycle = createLifecycle();
  // A process that cannot start (no card token key on PostgreSQL) lets go of its database, so it exits.
  const app = await buildApp(config, { database, lifecycle }).catch(closing(database));
  if (options.seedDemo) {
    const report = await seedDemo(database, { now: systemClock.now() });
    app.log.info(report, 'demo data ready');
  }
  const jobs =
    config.jobs.worker === 'inline'
      ? createJobRunner(database, config, app.log.child({ component: 'worker' }), { clock: systemClock })
      : undefined;

  let metrics: App | undefined;
  const stop = async () => {
    await app.close();
    await metrics?.close();
    await jobs?.stop();
    await database.close();
  };
  let address: string;
  try {
    metrics = await startMetricsListener(config, database);
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Nothing to serve on: let go of what was opened, so the process exits with the error at once. Left
    // open, a PostgreSQL pool's idle connections held it until their idle timeout, 10 s later.
    await stop();
    throw error;
  }
  onSignal(app.log, stop, { lifecycle, ms: config.shutdownDrainMs });
  jobs?.start();
  if (config.apiDocs !== 'off') app.log.info(`API docs at ${address}${config.basePath}/docs (API_DOCS=${config.apiDocs})`);
}

/** Runs background jobs until SIGTERM or SIGINT, then finishes the job in hand and exits. */
export async function work(config: Config): Promise<void> {
  const database = createDatabase(config.databaseUrl, {
    preparedStatements: config.databasePreparedStatements,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
  await prepareSchema(database).catch(closing(database));
  // The API's serializers and redaction: a job's error may quote a URL or carry a token too.
  const log = privateLogger(config.logLevel, logDestination(config.logFormat)).child({ component: 'worker' });
  let jobs: JobRunner;
  try {
    jobs = createJobRunner(database, config, log, { clock: systemClock });
  } catch (error) {
    return closing(database)(error);
  }
  // A worker's mails and jobs are counted in its own process: it serves /metrics on METRICS_PORT too.
  const metrics = await startMetricsListener(config, database).catch(async (error: unknown) => {
    await jobs.stop();
    return closing(database)(error);
  });
  onSignal(log, async () => {
    await metrics?.close();
    await jobs.stop();
    await database.close();
  });
  jobs.start();
  log.info('worker started');
}

/**
 * Binds `host`:`port` and lets go at once, so that a HOST that is no address of this machine or a
 * port another process listens on fails in milliseconds, with the error the real listen would give,
 * instead of after the app is built (its schemas compiled: a second or two). A port taken between
 * this and the real listen still fails there, the same way.
 */
function canListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Closes `database`, then throws `error`: what stopped a process from starting. */
function closing(database: DatabaseHandle) {
  return async (error: unknown): Promise<never> => {
    await database.close();
    throw error;
  };
}

/** GET /metrics on METRICS_HOST:METRICS_PORT when a port is set (modules/metrics). */
async function startMetricsListener(config: Config, database: DatabaseHandle): Promise<App | undefined> {
  const { port, host } = config.metrics;
  if (port === undefined) return undefined;
  const metrics = await buildMetricsApp(config, { database });
  const address = await metrics.listen({ port, host }).catch(async (error: unknown) => {
    await metrics.close();
    throw error;
  });
  metrics.log.info(`metrics at ${address}/metrics`);
  return metrics;
}

/**
 * On the first SIGTERM or SIGINT: stop cleanly and exit 0; on a second: exit at once. An API
 * process given a drain answers on for `drain.ms` after SIGTERM (an orchestrator's stop), its
 * readiness check saying it is stopping, before it stops listening; SIGINT (a developer's Ctrl-C)
 * stops at once.
 */
function onSignal(log: FastifyBaseLogger, stop: () => Promise<void>, drain?: { lifecycle: Lifecycle; ms: number }): void {
  let stopping = false;
  const handle = async (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    stopping = true;
    if (drain && drain.ms > 0 && signal === 'SIGTERM') {
      drain.lifecycle.stop();
      log.info({ signal, drainMs: drain.ms }, 'stopping: answering on while the load balancer takes this process out');
      await new Promise((resolve) => setTimeout(resolve, drain.ms));
    }
    log.info({ signal }, 'shutting down: finishing work in flight');
    try {
      await stop();
      log.info('shut down cleanly');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void handle('SIGTERM'));
  process.once('SIGINT', () => void handle('SIGINT'));
}
