import { parseArgs } from 'node:util';
import type { Db } from '../../db/database.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import { refusedAmong } from '../../infra/mail/refused-addresses.js';
import { isStoreCode } from '../store/index.js';
import { currentSubscribersPage, type SubscriberRow } from './newsletter.repository.js';

export const NEWSLETTER_USAGE = `  newsletter export [--format=ndjson|csv] [--store=<CODE>]
                                      print the current subscribers (email, language, store, consent
                                      time), one a line; withdrawn ones, and addresses the mail server
                                      refused as mailboxes that do not exist, are left out`;

const PAGE_SIZE = 500;
const CSV_COLUMNS = ['email', 'language', 'store', 'consentedAt'] as const;

/** `storefront newsletter ...`: the subscriber list for the marketing tools, read page by page. */
export async function newsletterCommand(db: Db, args: string[], print: (line: string) => void): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'export') throw new CliUsageError(`unknown newsletter command "${args.join(' ')}"`);
  let values: { format?: string; store?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { format: { type: 'string' }, store: { type: 'string' } }, strict: true }));
  } catch (err) {
    throw new CliUsageError(`newsletter export: ${err instanceof Error ? err.message : String(err)}`);
  }
  const format = values.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'csv') throw new CliUsageError('newsletter export: --format is ndjson or csv');
  if (values.store !== undefined && !isStoreCode(values.store)) throw new CliUsageError('newsletter export: --store is WEB or WEB2');

  if (format === 'csv') print(CSV_COLUMNS.join(','));
  // Keyset pages by id: memory stays flat however many subscribers there are.
  let afterId = 0;
  for (;;) {
    const page = await currentSubscribersPage(db, afterId, PAGE_SIZE, values.store);
    // The marketing tools would mail a dead mailbox on every send, which makes providers take the
    // shop's mail for spam; the address comes back once a mail to it is accepted (infra/mail).
    const refused = await refusedAmong(
      db,
      page.map((row) => row.email),
    );
    for (const row of page) {
      if (refused.has(row.email)) continue;
      const record = exported(row);
      print(format === 'csv' ? CSV_COLUMNS.map((column) => csvField(record[column])).join(',') : JSON.stringify(record));
    }
    if (page.length < PAGE_SIZE) return;
    afterId = page[page.length - 1]!.id;
  }
}

function exported(row: SubscriberRow) {
  return {
    email: row.email,
    language: row.language,
    store: row.store_code,
    consentedAt: new Date(Number(row.consented_at)).toISOString(),
  };
}

/** RFC 4180: quoted when it holds a comma, quote or line break; a leading formula character is defused for spreadsheets. */
function csvField(value: string): string {
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
