import { Type, type Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../infra/clock.js';
import { ERASED_MARKER } from '../../infra/personal-data.js';
import { importNdjson, type ImportKind, type LineImporter } from '../../infra/import/index.js';
import { dateTime, lineParser } from '../catalogue-import/index.js';
import { lockErasedClientCodes } from '../client-account-lock/index.js';
import { findSaleByOrder, insertSale, setSaleCreatedNav } from './sales-history.repository.js';

const code = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^\\S(.*\\S)?$' });

/** One line of `import sales-history`: an order as the back office reports it (web or shop sale). */
export const ImportedSale = Type.Object(
  {
    order: code(40),
    client: code(20),
    clientType: Type.Union([Type.Literal('PYSIKLIENT'), Type.Literal('ETTEVOTE')]),
    sourceType: Type.Union([Type.Literal('ONLINE'), Type.Literal('OFFLINE')]),
    city: code(100),
    session: Type.Optional(Type.Union([code(100), Type.Null()])),
    deliveryMethod: code(60),
    shop: Type.Optional(Type.Union([code(40), Type.Null()])),
    /** When the back office created the order, RFC 3339; may come in a later import of the same order. */
    createdNav: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    products: Type.Array(code(40), { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: false },
);
type ImportedSale = Static<typeof ImportedSale>;

interface SaleRecord extends ImportedSale {
  createdNavMs: number | null;
}

// Checked as the catalogue kinds' lines are, so a fault is worded alike (`/city: must be at most 100
// characters long`, `/createdNav: "..." is not an RFC 3339 date-time ...`), and a control character
// (a NUL that PostgreSQL cannot store) is a bad line, not a failed write.
const parse = lineParser(ImportedSale, (value): SaleRecord => {
  const createdNav = value.createdNav ?? null;
  return { ...value, createdNavMs: createdNav === null ? null : dateTime(createdNav, 'createdNav') };
});

/**
 * The back office's orders for the data export (sales history). `createdAt` is when an order first
 * reached us (the import's clock), so the partner's time windows see it when it arrives. The back
 * office sends an order again once it has handled it, now with `createdNav`: that import fills
 * created_nav, and changes nothing else (the order is kept as first received). A null or missing
 * createdNav never clears a known one. The same line imported twice changes nothing. An online order
 * the web shop processed itself has its row already (online-sales.ts): the import never makes a second.
 */
const stamped = (now: number) => ({ created_at: now, updated_at: now });

export function salesHistoryImporter(db: Kysely<Database>, clock: Clock): LineImporter<SaleRecord> {
  return {
    parse,
    apply: (record) =>
      db.transaction().execute(async (trx) => {
        // Twice: the web shop may write its own row of the order (orders processing) between the
        // look-up and the insert; the insert then does nothing and the row found is updated.
        for (let attempt = 0; attempt < 2; attempt += 1) {
          const existing = await findSaleByOrder(trx, record.order);
          if (existing !== undefined) {
            const stored = existing.created_nav === null ? null : Number(existing.created_nav);
            if (record.createdNavMs === null || record.createdNavMs === stored) return 'unchanged';
            await setSaleCreatedNav(trx, existing.id, record.createdNavMs, clock.now());
            return 'createdNav updated';
          }
          // A sale the back office reports after its client was erased (a shop sale in the next
          // batch) comes without what the erasure took out of the others (data-export.personal-data.ts).
          // Under the account's share lock: an erasure waits for this line and then erases its row too.
          const erased = (await lockErasedClientCodes(trx, [record.client])).has(record.client);
          const created = await insertSale(
            trx,
            {
              order_code: record.order,
              client_code: record.client,
              client_type: record.clientType,
              source_type: record.sourceType,
              city: erased ? ERASED_MARKER : record.city,
              session_id: erased ? null : (record.session ?? null),
              delivery_method: record.deliveryMethod,
              shop_code: record.shop ?? null,
              ...stamped(clock.now()),
              created_nav: record.createdNavMs,
            },
            record.products,
          );
          if (created) return 'created';
        }
        throw new Error(`the sales history row of ${record.order} could not be read or written`);
      }),
  };
}

export const salesHistoryKind: ImportKind = {
  usage: 'import sales-history <file.ndjson>  orders from the back office, for the data export',
  create:
    ({ db, clock, log }) =>
    (file, report, progress) =>
      importNdjson(file, salesHistoryImporter(db, clock), report, log, progress),
};
