import { toRfc3339 } from '../../db/time.js';
import { notFound } from '../../infra/domain-error.js';
import type { CategoryNode, ProductCard, ListSlice } from '../catalogue/index.js';
import { bannersByPlacement, MENU_PLACEMENT } from './banners.service.js';
import { campaignRunning, campaignWire, linkWire, notePriceChanges, resolveBlocks, shownLinks, type StoredLink } from './blocks.service.js';
import { blockPages, campaignsByCode, contentPageBySlug, menusOf, type BlockPageKey, type BlockPageRow } from './content.repository.js';
import type { ContentContext, ContentReadDeps } from './content-read.types.js';
import type { BlockPageWire, CampaignSummaryWire, LinkWire } from './content.schemas.js';
import { currentOf, isShown } from './published.js';
import { parseTranslations, pickLanguage } from './translations.js';

// The content reads: a content page, a block page with its blocks resolved, a discount page with
// its campaign's products, the header banners and the mega menu. Not found, a draft and an item
// outside its window are the same 404 to the public.

interface PageTexts {
  title: string;
  body?: string;
  seoTitle?: string;
  seoDescription?: string;
}

function texts(json: string, context: ContentContext) {
  const picked = pickLanguage(parseTranslations<PageTexts>(json), context.catalogue.language, context.defaultLanguage);
  return picked ?? { language: context.defaultLanguage, texts: { title: '' } as PageTexts };
}

export async function contentPage({ database }: ContentReadDeps, context: ContentContext, slug: string) {
  const row = await contentPageBySlug(database.db, context.catalogue.store.code, slug);
  if (row === undefined || !isShown(row, context.audience)) throw notFound('content.pageNotFound', { slug });
  const { language, texts: page } = texts(row.translations, context);
  return {
    id: Number(row.id),
    code: row.code,
    slug: row.slug,
    language,
    title: page.title,
    body: page.body ?? '',
    seoTitle: page.seoTitle ?? null,
    seoDescription: page.seoDescription ?? null,
    updatedAt: toRfc3339(Number(row.updated_at)),
  };
}

/**
 * Whether the category of a landing page is one the catalogue shows (the store's shown tree: active,
 * under active parents): the page of an inactive category is hidden with it, as GET /category/{id} is.
 */
async function categoryShown(deps: ContentReadDeps, context: ContentContext, categoryId: number): Promise<boolean> {
  if (context.audience.preview) return true;
  const { store, language } = context.catalogue;
  return (await deps.catalogue.categoryTree(store.code, language)).byId.has(categoryId);
}

async function shownBlockPage(deps: ContentReadDeps, context: ContentContext, key: BlockPageKey): Promise<BlockPageRow> {
  if (key.kind === 'CATEGORY' && !(await categoryShown(deps, context, key.categoryId)))
    throw notFound('content.categoryPageNotFound', { id: key.categoryId });
  const rows = await blockPages(deps.database.db, context.catalogue.store.code, key, context.audience);
  const row = currentOf(
    rows.map((candidate) => ({ ...candidate, id: Number(candidate.id) })),
    context.audience,
  );
  if (row !== undefined) return row;
  if (key.kind === 'MAIN') throw notFound('content.mainPageNotFound');
  if (key.kind === 'CATEGORY') throw notFound('content.categoryPageNotFound', { id: key.categoryId });
  throw notFound('content.pageNotFound', { slug: key.slug });
}

function pageWire(row: BlockPageRow, context: ContentContext): Omit<BlockPageWire, 'blocks'> {
  const { language, texts: page } = texts(row.translations, context);
  return {
    id: Number(row.id),
    code: row.code,
    kind: row.kind,
    slug: row.slug,
    categoryId: row.category_id === null ? null : Number(row.category_id),
    language,
    title: page.title,
    seoTitle: page.seoTitle ?? null,
    seoDescription: page.seoDescription ?? null,
    updatedAt: toRfc3339(Number(row.updated_at)),
  };
}

/** A composite, category or main page with its blocks resolved for the caller. */
export async function blockPage(deps: ContentReadDeps, context: ContentContext, key: BlockPageKey): Promise<BlockPageWire> {
  const row = await shownBlockPage(deps, context, key);
  return { ...pageWire(row, context), blocks: await resolveBlocks(deps, context, Number(row.id)) };
}

/**
 * A discount page: its blocks, its campaign and a page of the campaign's products, priced for the
 * caller by the catalogue (campaign prices included). A campaign that is not running shows no products.
 */
export async function discountPage(deps: ContentReadDeps, context: ContentContext, slug: string, slice: ListSlice) {
  const row = await shownBlockPage(deps, context, { kind: 'DISCOUNT', slug });
  const ctx = context.catalogue;
  const code = row.campaign_code ?? '';
  const [blocks, campaigns] = await Promise.all([
    resolveBlocks(deps, context, Number(row.id)),
    campaignsByCode(deps.database.db, ctx.store.code, [code]),
  ]);
  const campaign = campaigns.get(code);
  let summary: CampaignSummaryWire | null = null;
  let products: { cards: ProductCard[]; total: number } = { cards: [], total: 0 };
  if (campaign !== undefined && campaignRunning(campaign, context.audience)) {
    summary = campaignWire(campaign, context);
    products = await deps.catalogue.listPage(ctx, { campaignId: campaign.id }, 'position', slice);
    await notePriceChanges(deps.catalogue, context, products.cards);
  }
  return { page: { ...pageWire(row, context), blocks, campaign: summary, products: products.cards }, total: products.total };
}

export async function headerBanners({ database }: ContentReadDeps, context: ContentContext, placement: string) {
  return (await bannersByPlacement(database.db, context, [placement])).get(placement) ?? [];
}

interface MenuNode {
  id: number;
  code: string;
  name: string;
  links: LinkWire[];
  children: MenuNode[];
}

/** The store's category tree with the current menu's featured links hung on their categories, and the menu banners. */
export async function megaMenu(deps: ContentReadDeps, context: ContentContext) {
  const ctx = context.catalogue;
  const [menus, tree, banners] = await Promise.all([
    menusOf(deps.database.db, ctx.store.code, context.audience),
    deps.catalogue.categoryTree(ctx.store.code, ctx.language),
    bannersByPlacement(deps.database.db, context, [MENU_PLACEMENT]),
  ]);
  const menu = currentOf(
    menus.map((row) => ({ ...row, id: Number(row.id) })),
    context.audience,
  );
  const links = menu ? shownLinks(JSON.parse(menu.links) as StoredLink[]).map((link) => linkWire(link, context, tree)) : [];
  const byCategory = new Map<number, LinkWire[]>();
  for (const link of links) {
    if (link.categoryId == null || !tree.byId.has(link.categoryId)) continue;
    byCategory.set(link.categoryId, [...(byCategory.get(link.categoryId) ?? []), link]);
  }
  const toNode = (node: CategoryNode): MenuNode => ({
    id: node.id,
    code: node.code,
    name: node.name,
    links: byCategory.get(node.id) ?? [],
    children: node.childIds.map((child) => toNode(tree.byId.get(child)!)),
  });
  return {
    categories: tree.roots.map(toNode),
    // A link to a category that is gone or hidden would point nowhere in the tree: it goes with the general ones.
    links: links.filter((link) => link.categoryId == null || !tree.byId.has(link.categoryId)),
    banners: banners.get(MENU_PLACEMENT) ?? [],
  };
}
