import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { sanitizeHtmlContent } from '../../infra/html-sanitizer.js';
import { KeyedLineError } from '../../infra/import/index.js';
import { validityWindow } from '../catalogue-import/index.js';
import type { BannerInput, BlockInput, BlockPageInput, ContentPageInput, LinkInput, MenuInput } from './content-input.schemas.js';
import { categoryIdByCode, replaceBlocks, upsertByCode, type BlockRow, type Outcome } from './content-write.repository.js';
import { LANGUAGES } from './translations.js';

// The rules of operator input, shared by the imports and the admin PUT: windows that make sense,
// what each page kind and block type needs, HTML sanitized on the way in, and the upsert by code.
// A problem is a KeyedLineError (`/field: message` in English, with its message key), which an import
// reports by line number and the admin route answers as a 422 on the field in the caller's language.

/** Bodies that hold HTML: cleaned of scripts, handlers and `javascript:` URLs before they are stored. */
const HTML_FIELDS = new Set(['body']);

/** The translations as stored: languages in a fixed order (so an unchanged item compares equal), HTML sanitized. */
function translationsJson(translations: Partial<Record<string, Record<string, string | undefined>>> | undefined): string {
  const stored: Record<string, Record<string, string>> = {};
  for (const language of LANGUAGES) {
    const texts = translations?.[language];
    if (texts === undefined) continue;
    const cleaned: Record<string, string> = {};
    for (const [field, value] of Object.entries(texts)) {
      if (value !== undefined) cleaned[field] = HTML_FIELDS.has(field) ? sanitizeHtmlContent(value) : value;
    }
    stored[language] = cleaned;
  }
  return JSON.stringify(stored);
}

interface WindowInput {
  active?: boolean;
  visibleFrom?: string | null;
  visibleTo?: string | null;
}

/**
 * Active flag and visible window [from, to); a date alone as the end means to the end of that day. A
 * value that is no date is the shared date readers' KeyedLineError, answered translated as the rules are.
 */
function publishing(input: WindowInput, prefix = '') {
  const { start, end } = validityWindow(input.visibleFrom, input.visibleTo, ['visibleFrom', 'visibleTo'], prefix);
  return { is_active: input.active ?? true, visible_from: start, visible_to: end };
}

/** Another item of the same table already has this slug in the store: an operator's mistake, not a 500. */
async function slugTaken(
  trx: Kysely<Database>,
  table: 'content_page' | 'block_page',
  scope: { store: string; slug: string; code: string; kind?: string },
): Promise<void> {
  let query = trx
    .selectFrom(table)
    .select('code')
    .where('store_code', '=', scope.store)
    .where('slug', '=', scope.slug)
    .where('code', '<>', scope.code);
  if (table === 'block_page' && scope.kind) query = query.where('kind', '=', scope.kind as never);
  const other = await query.executeTakeFirst();
  if (other) throw new KeyedLineError('slug', 'content.rule.slugTaken', { slug: scope.slug, code: other.code, store: scope.store });
}

export async function saveContentPage(trx: Kysely<Database>, code: string, input: ContentPageInput, now: number): Promise<Outcome> {
  const wanted = { store_code: input.store, slug: input.slug, ...publishing(input), translations: translationsJson(input.translations) };
  await slugTaken(trx, 'content_page', { store: input.store, slug: input.slug, code });
  return (await upsertByCode(trx, 'content_page', code, wanted, now)).outcome;
}

const linkJson = (link: LinkInput) => ({ url: link.url, category: link.category ?? null, labels: link.labels });

/** What a block of this type needs beyond its texts; a missing piece is the operator's to fix. */
function blockSettings(block: BlockInput, path: string): Record<string, unknown> {
  const need = <T>(value: T | undefined, field: string): T => {
    if (value === undefined) throw new KeyedLineError(`${path}/${field}`, 'content.rule.blockNeeds', { type: block.type });
    return value;
  };
  switch (block.type) {
    case 'RICH_TEXT':
      if (!LANGUAGES.some((language) => block.translations?.[language]?.body !== undefined)) {
        throw new KeyedLineError(`${path}/translations`, 'content.rule.richTextBody');
      }
      return {};
    case 'IMAGE':
      return { imageUrl: need(block.imageUrl, 'imageUrl'), linkUrl: block.linkUrl ?? null };
    case 'BANNER':
      return { placement: need(block.placement, 'placement') };
    case 'PRODUCT_LIST':
      return { products: need(block.products, 'products') };
    case 'CAMPAIGN_LIST':
      return { campaigns: need(block.campaigns, 'campaigns') };
    case 'PRODUCT_COMPONENT':
      return { component: need(block.component, 'component'), category: block.category ?? null, limit: block.limit ?? 12 };
    case 'LINKS':
      return { links: need(block.links, 'links').map(linkJson) };
  }
}

function blockRows(blocks: BlockInput[]): BlockRow[] {
  return blocks.map((block, position) => ({
    position,
    type: block.type,
    ...publishing(block, `blocks/${position}/`),
    settings: JSON.stringify(blockSettings(block, `blocks/${position}`)),
    translations: translationsJson(block.translations),
  }));
}

export async function saveBlockPage(trx: Kysely<Database>, code: string, input: BlockPageInput, now: number): Promise<Outcome> {
  const kind = input.kind ?? 'COMPOSITE';
  const bySlug = kind === 'COMPOSITE' || kind === 'DISCOUNT';
  if (bySlug && input.slug === undefined) throw new KeyedLineError('slug', 'content.rule.pageNeeds', { kind });
  if (kind === 'DISCOUNT' && input.campaign === undefined) throw new KeyedLineError('campaign', 'content.rule.pageNeeds', { kind });
  let categoryId: number | null = null;
  if (kind === 'CATEGORY') {
    if (input.category === undefined) throw new KeyedLineError('category', 'content.rule.pageNeeds', { kind });
    categoryId = (await categoryIdByCode(trx, input.store, input.category)) ?? null;
    if (categoryId === null) {
      throw new KeyedLineError('category', 'content.rule.unknownCategory', { category: input.category, store: input.store });
    }
  }
  const slug = bySlug ? input.slug! : null;
  if (slug !== null) await slugTaken(trx, 'block_page', { store: input.store, slug, code, kind });
  const rows = blockRows(input.blocks);
  const wanted = {
    kind,
    store_code: input.store,
    slug,
    category_id: categoryId,
    campaign_code: kind === 'DISCOUNT' ? input.campaign! : null,
    ...publishing(input),
    translations: translationsJson(input.translations),
  };
  return (await upsertByCode(trx, 'block_page', code, wanted, now, (id, isNew) => replaceBlocks(trx, id, rows, isNew))).outcome;
}

export async function saveBanner(trx: Kysely<Database>, code: string, input: BannerInput, now: number): Promise<Outcome> {
  const wanted = {
    store_code: input.store,
    placement: input.placement,
    position: input.position ?? 0,
    customer_kinds: [...new Set(input.customerKinds ?? [])].sort().join(','),
    link_url: input.linkUrl ?? null,
    image_url: input.imageUrl ?? null,
    ...publishing(input),
    translations: translationsJson(input.translations),
  };
  return (await upsertByCode(trx, 'banner', code, wanted, now)).outcome;
}

export async function saveMenu(trx: Kysely<Database>, code: string, input: MenuInput, now: number): Promise<Outcome> {
  const wanted = { store_code: input.store, ...publishing(input), links: JSON.stringify(input.links.map(linkJson)) };
  return (await upsertByCode(trx, 'menu', code, wanted, now)).outcome;
}
