import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  LineError,
  Money,
  Position,
  Store,
  Translated,
  cents,
  inLineTransaction,
  lineKind,
  lineParser,
  unique,
} from '../catalogue-import/index.js';
import type { PlanKind } from './subscriptions.tables.js';

// `import subscription-plans`: the back office's plans, upserted by code. A line that says what the
// plan already is changes nothing (`unchanged`), so running a file twice is harmless. Prices are
// what renewals charge from the next period on; subscriptions are never touched by the import.

const KINDS: readonly PlanKind[] = ['AUDIO_CREDITS', 'AUDIO_UNLIMITED', 'EBOOK_SHELF'];

const PlanLine = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9_-]+$' }),
    kind: Type.Union(KINDS.map((kind) => Type.Literal(kind))),
    titles: Translated(200),
    credits: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Null()])),
    shelfSize: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Null()])),
    monthlyPrice: Money,
    trialDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    stores: Type.Array(Store, { minItems: 1, maxItems: 10 }),
    position: Type.Optional(Position),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
type PlanLine = Static<typeof PlanLine>;

interface PlanRecord {
  code: string;
  columns: {
    kind: PlanKind;
    titles: string;
    credits_per_month: number | null;
    shelf_size: number | null;
    price_cents: number;
    trial_days: number;
    stores: string;
    position: number;
    is_active: boolean;
  };
}

function convert(line: PlanLine): PlanRecord {
  const credits = line.credits ?? null;
  const shelfSize = line.shelfSize ?? null;
  if (line.kind === 'AUDIO_CREDITS' && credits === null) throw new LineError('/credits: an AUDIO_CREDITS plan gives credits a month');
  if (line.kind !== 'AUDIO_CREDITS' && credits !== null) throw new LineError(`/credits: only AUDIO_CREDITS plans give credits`);
  if (line.kind === 'EBOOK_SHELF' && shelfSize === null) throw new LineError('/shelfSize: an EBOOK_SHELF plan has a shelf size');
  if (line.kind !== 'EBOOK_SHELF' && shelfSize !== null) throw new LineError('/shelfSize: only EBOOK_SHELF plans have a shelf');
  const priceCents = cents(line.monthlyPrice, 'monthlyPrice');
  if (priceCents === 0) throw new LineError('/monthlyPrice: a plan costs something');
  unique(line.stores, 'stores');
  // Stored in a fixed order so the same titles always compare equal.
  const titles = JSON.stringify({ et: line.titles.et, en: line.titles.en ?? null, ru: line.titles.ru ?? null });
  return {
    code: line.code.toUpperCase(),
    columns: {
      kind: line.kind,
      titles,
      credits_per_month: credits,
      shelf_size: shelfSize,
      price_cents: priceCents,
      trial_days: line.trialDays ?? 0,
      stores: [...line.stores].sort().join(','),
      position: line.position ?? 0,
      is_active: line.active ?? true,
    },
  };
}

async function upsertPlan(trx: Transaction<Database>, record: PlanRecord, now: number): Promise<string> {
  const stored = await trx.selectFrom('subscription_plan').selectAll().where('code', '=', record.code).executeTakeFirst();
  if (!stored) {
    await trx
      .insertInto('subscription_plan')
      .values({ ...record.columns, code: record.code, created_at: now, updated_at: now })
      .execute();
    return 'created';
  }
  const same = Object.entries(record.columns).every(([key, value]) => {
    const old = (stored as Record<string, unknown>)[key];
    return typeof value === 'boolean' ? Boolean(old) === value : (old ?? null) === value;
  });
  if (same) return 'unchanged';
  // A plan does not change its kind: subscribers' credits and shelves were given under it.
  if (stored.kind !== record.columns.kind) throw new LineError(`/kind: plan ${record.code} is ${stored.kind} and stays so`);
  await trx
    .updateTable('subscription_plan')
    .set({ ...record.columns, updated_at: now })
    .where('id', '=', stored.id)
    .execute();
  return 'updated';
}

export const subscriptionPlansKind = lineKind(
  'import subscription-plans <file.ndjson> subscription plans (audio credits, audio unlimited, e-book shelf)',
  ({ db, clock, log }) => ({
    parse: lineParser(PlanLine, convert),
    apply: (record: PlanRecord) => inLineTransaction(db, log, (trx) => upsertPlan(trx, record, clock.now())),
  }),
);
