#!/usr/bin/env node
// `npm start`: runs the compiled build as production does (node dist/main.js <args>), building it
// first when dist/ is missing or older than a source (scripts/build.mjs). The service runs in this
// process, so signals reach it directly. `npm run dev` runs the sources through tsx instead.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, DIST, staleReason } from './build.mjs';

const reason = staleReason();
if (reason !== undefined) {
  process.stderr.write(`building dist/ (${reason})\n`);
  try {
    build();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
const main = join(DIST, 'main.js');
process.argv = [process.argv[0], main, ...process.argv.slice(2)];
await import(pathToFileURL(main).href);
