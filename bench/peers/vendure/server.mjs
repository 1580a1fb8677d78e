// Starts the peer's Vendure server (Shop API at /shop-api, health at /health) on a database made by
// populate.mjs. Listens on HOST:PORT (127.0.0.1:3000 unless set), as bench/lib/child.ts expects.
//
//   node server.mjs --database data/vendure-20000.sqlite        (or VENDURE_DATABASE=...)
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bootstrap } from '@vendure/core';
import { peerConfig } from './config.mjs';

const { values } = parseArgs({ options: { database: { type: 'string' } }, strict: true });
const database = values.database ?? process.env.VENDURE_DATABASE;
if (!database || !existsSync(database)) {
  process.stderr.write(`no Vendure database at "${database ?? ''}": make one with populate.mjs first\n`);
  process.exit(2);
}
const app = await bootstrap(peerConfig({ database: resolve(database), port: Number(process.env.PORT) || 3000 }));
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
