// The peer's Vendure configuration: the Shop API on one loopback port, SQLite through better-sqlite3
// and the default search plugin (Vendure's own search on SQLite). Nothing else is configured: no
// asset server, no admin UI, no e-mail; the job queue is the default in-memory one, which runs jobs
// only in a server process: populate.mjs starts a server and its queue to import; the bench server
// never changes data, so it has no jobs to run.
import { DefaultLogger, DefaultSearchPlugin, LogLevel, dummyPaymentHandler } from '@vendure/core';

// No reports to Vendure's telemetry service: this machine has no network beyond the registries.
process.env.VENDURE_DISABLE_TELEMETRY ??= 'true';

/**
 * `bulkLoad` (populate.mjs): no fsyncs, search index updates per product buffered and never run (the
 * reindex at the end writes every row once; one job per product ran at 5 a second: 35 min for 20,000).
 *
 * @param {{ database: string, port?: number, synchronize?: boolean, bulkLoad?: boolean, logLevel?: 'info' | 'warn' }} options
 * @returns {import('@vendure/core').VendureConfig}
 */
export function peerConfig({ database, port = 3000, synchronize = false, bulkLoad = false, logLevel = 'warn' }) {
  return {
    apiOptions: {
      hostname: '127.0.0.1',
      port,
      shopApiPath: 'shop-api',
      adminApiPath: 'admin-api',
      shopApiPlayground: false,
      adminApiPlayground: false,
      shopApiDebug: false,
      adminApiDebug: false,
      // The bench sends no browser requests: no CORS headers.
      cors: false,
    },
    authOptions: {
      tokenMethod: ['bearer'],
      // Not Vendure's default pair, which it refuses to start with under NODE_ENV=production. The bench
      // server listens on loopback only and the bench never logs in.
      superadminCredentials: { identifier: 'superadmin', password: 'bench-peer-only' },
    },
    dbConnectionOptions: {
      type: 'better-sqlite3',
      database,
      // The schema comes from Vendure's entities when populate.mjs creates the file; the server
      // only opens it.
      synchronize,
      migrations: [],
      logging: false,
      // The service's own SQLite settings (src/db/database.ts), so neither reads with a smaller cache;
      // a bulk load of a throwaway file skips the fsyncs (one per imported product otherwise: minutes).
      prepareDatabase: (db) => {
        db.pragma('journal_mode = WAL');
        db.pragma(bulkLoad ? 'synchronous = OFF' : 'synchronous = NORMAL');
        db.pragma('busy_timeout = 5000');
        db.pragma('cache_size = -65536');
        db.pragma('mmap_size = 1073741824');
      },
    },
    paymentOptions: { paymentMethodHandlers: [dummyPaymentHandler] },
    logger: new DefaultLogger({ level: logLevel === 'info' ? LogLevel.Info : LogLevel.Warn }),
    plugins: [DefaultSearchPlugin.init({ bufferUpdates: bulkLoad, indexStockStatus: false })],
  };
}
