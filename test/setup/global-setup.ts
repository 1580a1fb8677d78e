import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildCli, type CliBuild } from './cli-build.js';
import { dropScratchDatabases, ensurePostgresTemplate, scratchPrefix } from './postgres-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The compiled src/main.ts that test/helpers/cli.ts runs (see cli-build.ts). */
    cliEntry: string;
    /** The migrated database createTestApp copies on PostgreSQL; '' on SQLite. */
    postgresTemplate: string;
    /** How this run's scratch databases are named (postgres-template.ts scratchPrefix). */
    postgresScratchPrefix: string;
  }
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Once per `vitest run`: the CLI compiled ahead and, on PostgreSQL, a migrated template database (and, at the end, the run's scratch databases dropped). */
export default async function setup(project: TestProject): Promise<() => void> {
  let cli: CliBuild | undefined;
  const prepare = async () => {
    const adminUrl = process.env.TEST_DATABASE_URL;
    const [build, template] = await Promise.all([buildCli(root), adminUrl ? ensurePostgresTemplate(adminUrl, root) : '']);
    cli?.remove();
    cli = build;
    project.provide('cliEntry', build.entry);
    project.provide('postgresTemplate', template);
    project.provide('postgresScratchPrefix', scratchPrefix(process.pid));
  };
  await prepare();
  // In watch mode src/ (and perhaps a migration) changed since: build both again.
  project.onTestsRerun(prepare);
  return async () => {
    cli?.remove();
    // Workers make the next file's database ahead and drop a finished file's in the background.
    if (process.env.TEST_DATABASE_URL) await dropScratchDatabases(process.env.TEST_DATABASE_URL, scratchPrefix(process.pid));
  };
}
