import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Language } from '../../../i18n/index.js';
import type { Caller } from '../caller.js';
import { listByIdOrCode, pageOfLists, type ByIdOrCode } from './store-list.repository.js';
import { translatedName, withTranslations } from '../translated.js';
import { visibleProduct } from '../visibility.js';

export interface CampaignRow {
  id: number;
  code: string;
  name: string;
  description: string | null;
  imageUrl: string | null;
  /** Unix ms, inclusive; null: open. */
  validFrom: number | null;
  /** Unix ms, exclusive; null: open. */
  validTo: number | null;
}

export interface CampaignScope {
  storeCode: string;
  language: Language;
  now: number;
}

/** The store's active campaigns that are valid at `now`, with their names in the language (et as fallback). */
function shownCampaigns(db: Kysely<Database>, { storeCode, language, now }: CampaignScope) {
  const campaigns = db
    .selectFrom('campaign as c')
    .where('c.store_code', '=', storeCode)
    .where('c.is_active', '=', true)
    .where((eb) => eb.or([eb('c.valid_from', 'is', null), eb('c.valid_from', '<=', now)]))
    .where((eb) => eb.or([eb('c.valid_to', 'is', null), eb('c.valid_to', '>', now)]));
  return withTranslations(campaigns, 'campaign_name', 'c.id', language).select([
    'c.id',
    'c.code',
    'c.image_url',
    'c.valid_from',
    'c.valid_to',
    'asked.name as name',
    'asked.description as description',
    'et.name as et_name',
    'et.description as et_description',
  ]);
}

type Selected = Awaited<ReturnType<ReturnType<typeof shownCampaigns>['execute']>>[number];

function toRow(row: Selected): CampaignRow {
  return {
    id: row.id,
    code: row.code,
    name: translatedName(row),
    // A missing translation falls back to Estonian as a whole: name and description belong together.
    description: row.name !== null ? row.description : row.et_description,
    imageUrl: row.image_url,
    validFrom: row.valid_from,
    validTo: row.valid_to,
  };
}

export async function listCampaigns(
  db: Kysely<Database>,
  scope: CampaignScope,
  offset: number,
  limit: number,
): Promise<{ rows: CampaignRow[]; total: number }> {
  const { rows, total } = await pageOfLists(shownCampaigns(db, scope), 'c', offset, limit);
  return { rows: rows.map(toRow), total };
}

export async function findCampaign(db: Kysely<Database>, scope: CampaignScope, by: ByIdOrCode): Promise<CampaignRow | undefined> {
  const row = await listByIdOrCode(shownCampaigns(db, scope), 'c', by);
  return row && toRow(row);
}

/**
 * How many products of each campaign the caller may see: the same count as the campaign's product
 * list, whichever customer kind a product's campaign price is for (the list shows them all).
 */
export async function campaignProductCounts(
  db: Kysely<Database>,
  storeCode: string,
  caller: Caller,
  campaignIds: number[],
): Promise<Map<number, number>> {
  if (campaignIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('campaign_price as cp')
    .innerJoin('product as p', 'p.id', 'cp.product_id')
    .select(['cp.campaign_id', (eb) => eb.fn.count<number>('cp.product_id').distinct().as('n')])
    .where('cp.campaign_id', 'in', campaignIds)
    .where(visibleProduct(storeCode, caller))
    .groupBy('cp.campaign_id')
    .execute();
  return new Map(rows.map((row) => [row.campaign_id, Number(row.n)]));
}

/** The first instant after `now` at which one of the store's active campaigns starts or ends (Infinity: none will). */
export async function campaignsChangeAt(db: Kysely<Database>, storeCode: string, now: number): Promise<number> {
  const active = db.selectFrom('campaign').where('store_code', '=', storeCode).where('is_active', '=', true);
  const [starts, ends] = await Promise.all([
    active
      .select((eb) => eb.fn.min('valid_from').as('at'))
      .where('valid_from', '>', now)
      .executeTakeFirst(),
    active
      .select((eb) => eb.fn.min('valid_to').as('at'))
      .where('valid_to', '>', now)
      .executeTakeFirst(),
  ]);
  return Math.min(...[starts?.at, ends?.at].map((at) => (at == null ? Infinity : Number(at))));
}
