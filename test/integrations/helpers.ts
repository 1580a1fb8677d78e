import { ndjson } from '../helpers/back-office.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { signText } from '../../src/modules/integrations/index.js';
import type { TestApp } from '../helpers/test-app.js';

export { ndjson };

export const book = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  type: 'BOOK',
  name: `Book ${code}`,
  stores: ['WEB'],
  shopPrice: 9.9,
  vatRate: 9,
  availability: 'AVAILABLE',
  ...extra,
});

/** Runs a back-office import of `kind` (as `storefront import` does). */
export async function backOfficeImport(t: TestApp, kind: string, lines: unknown[]) {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-integrations-test-'));
  const file = join(dir, 'lines.ndjson');
  writeFileSync(file, ndjson(lines) + '\n');
  const reported: string[] = [];
  const summary = await importKinds[kind]!.create({ db: t.database.db, clock: systemClock, log: t.app.log }, { force: false })(
    file,
    (line) => reported.push(line),
  );
  return { ...summary, reported };
}

/** POSTs a supplier feed signed with `secret` (at `timestampSeconds`, now by default). */
export function postFeed(
  t: TestApp,
  code: string,
  kind: string,
  body: string,
  secret: string,
  options: { timestampSeconds?: number; signature?: string; headers?: Record<string, string>; remoteAddress?: string } = {},
) {
  const timestamp = String(options.timestampSeconds ?? Math.floor(Date.now() / 1000));
  return t.app.inject({
    method: 'POST',
    url: `/integration/supplier/${code}/${kind}`,
    headers: {
      'content-type': 'application/x-ndjson',
      'x-app-language': 'en',
      'x-timestamp': timestamp,
      'x-signature': options.signature ?? signText(secret, timestamp, body),
      ...options.headers,
    },
    payload: body,
    ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
  });
}
