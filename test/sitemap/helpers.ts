import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

export interface SitemapDatabase {
  /** FILE_STORE_DIR of the command and of the app that serves the files. */
  files: string;
  /** What `storefront sitemap generate` runs with: this database and folder. */
  env: Record<string, string>;
  database: DatabaseHandle;
  close(): Promise<void>;
}

/**
 * A migrated database of the sitemap test's own (PostgreSQL's scratch one, or a SQLite file) that the
 * test seeds and `sitemap generate` reads, with the folder its files go to (both under a folder of its own). `env` adds to the command's.
 */
export async function sitemapDatabase(name: string, env: Record<string, string> = {}): Promise<SitemapDatabase> {
  const dir = mkdtempSync(join(tmpdir(), `storefront-sitemap-${name}-`));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  const url = scratch?.url ?? `sqlite:${join(dir, 'sitemap.db')}`;
  const files = join(dir, 'files');
  const database = createDatabase(url);
  await migrateToLatest(database);
  return {
    files,
    env: { DATABASE_URL: url, FILE_STORE_DIR: files, PUBLIC_URL: 'https://api.example', ...env },
    database,
    async close() {
      await database.close();
      await scratch?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
