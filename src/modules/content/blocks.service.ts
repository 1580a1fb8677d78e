import { toRfc3339 } from '../../db/time.js';
import { isLinkTarget, shownLinkTarget } from '../../http/link-target.js';
import type { Language } from '../../i18n/index.js';
import type { Catalogue, CategoryTree, ProductCard, ProductFilter, ProductSort } from '../catalogue/index.js';
import { bannersByPlacement } from './banners.service.js';
import { blocksOf, campaignsByCode, productIdsByCode, type CampaignFacts, type PageBlockRow } from './content.repository.js';
import type { ContentContext, ContentReadDeps } from './content-read.types.js';
import type { BlockWire, CampaignSummaryWire, LinkWire } from './content.schemas.js';
import { isPublishedAt } from '../../infra/publishing.js';
import { isShown, noteChanges, type Audience } from './published.js';
import { parseTranslations, pickLabel, pickLanguage } from './translations.js';

// A block page's blocks, resolved for the caller in one answer: the shown blocks in order, their
// banners, campaigns and products read in one batch each. Products come from the catalogue's
// cards and lists, so visibility and prices are the catalogue's own for this caller.

interface BlockSettings {
  imageUrl?: string;
  linkUrl?: string | null;
  placement?: string;
  products?: string[];
  campaigns?: string[];
  component?: 'discounted' | 'newest' | 'top';
  category?: string | null;
  limit?: number;
  links?: StoredLink[];
}

export interface StoredLink {
  url: string;
  category: string | null;
  labels: Partial<Record<Language, string>>;
}

interface BlockTexts {
  title?: string;
  body?: string;
  alt?: string;
}

const DAY_MS = 86_400_000;
/** The catalogue's own product components (GET /product-component/...): the same filters and order. */
const NEWEST_DAYS = 90;
const COMPONENT_QUERIES: Record<'discounted' | 'newest' | 'top', { sort: ProductSort; filter(now: number): ProductFilter }> = {
  discounted: { sort: 'discount', filter: () => ({ discounted: true }) },
  newest: { sort: 'newest', filter: (now) => ({ releasedSince: Math.floor(now / DAY_MS) * DAY_MS - NEWEST_DAYS * DAY_MS }) },
  top: { sort: 'sales', filter: () => ({ minSales: 1 }) },
};

/**
 * The links that may be shown. A link stored before the link rule held (http/link-target.ts) may
 * send the shopper to another host (`//host`): it is left out, not shown to the shopper.
 */
export function shownLinks(links: readonly StoredLink[]): StoredLink[] {
  return links.filter((link) => isLinkTarget(link.url));
}

export function linkWire(link: StoredLink, context: ContentContext, tree?: CategoryTree): LinkWire {
  const label = pickLabel(link.labels, context.catalogue.language, context.defaultLanguage);
  if (tree === undefined) return { url: link.url, label };
  return { url: link.url, label, categoryId: link.category === null ? null : (categoryByCode(tree, link.category) ?? null) };
}

export function categoryByCode(tree: CategoryTree, code: string): number | undefined {
  for (const node of tree.byId.values()) if (node.code === code) return node.id;
  return undefined;
}

export function campaignWire(campaign: CampaignFacts, context: ContentContext): CampaignSummaryWire {
  const names = pickLanguage(campaign.names, context.catalogue.language, context.defaultLanguage)?.texts;
  return {
    id: campaign.id,
    code: campaign.code,
    name: names?.name ?? campaign.code,
    description: names?.description ?? null,
    imageUrl: campaign.imageUrl,
    validFrom: campaign.validFrom === null ? null : toRfc3339(campaign.validFrom),
    validTo: campaign.validTo === null ? null : toRfc3339(campaign.validTo),
  };
}

/**
 * Whether the catalogue shows the campaign now: active and running (the catalogue's own rule; no
 * preview for it). Its start or end changes the answer: noted on the audience.
 */
export function campaignRunning(campaign: CampaignFacts, audience: Audience): boolean {
  noteChanges(audience, campaign.validFrom, campaign.validTo);
  return isPublishedAt({ is_active: campaign.isActive, visible_from: campaign.validFrom, visible_to: campaign.validTo }, audience.now);
}

/** The page's shown blocks, resolved for the caller. */
export async function resolveBlocks(
  { database, catalogue }: ContentReadDeps,
  context: ContentContext,
  pageId: number,
): Promise<BlockWire[]> {
  const db = database.db;
  const ctx = context.catalogue;
  const rows = (await blocksOf(db, pageId)).filter((row) => isShown(row, context.audience));
  const blocks = rows.map((row) => ({ row, settings: JSON.parse(row.settings) as BlockSettings }));
  const all = <T>(pick: (settings: BlockSettings) => T[] | undefined) => blocks.flatMap(({ settings }) => pick(settings) ?? []);

  const productCodes = all((settings) => settings.products);
  const needsTree = blocks.some(({ settings }) => settings.component !== undefined && settings.category);
  const [productIds, campaigns, banners, tree] = await Promise.all([
    productIdsByCode(db, productCodes),
    campaignsByCode(
      db,
      ctx.store.code,
      all((settings) => settings.campaigns),
    ),
    bannersByPlacement(
      db,
      context,
      all((settings) => (settings.placement ? [settings.placement] : undefined)),
    ),
    needsTree ? catalogue.categoryTree(ctx.store.code, ctx.language) : undefined,
  ]);
  const ids = productCodes.map((code) => productIds.get(code)).filter((id): id is number => id !== undefined);
  const cards = new Map((await catalogue.cards(ctx, [...new Set(ids)])).map((card) => [card.id, card]));
  const shownProducts: ProductCard[] = [...cards.values()];

  const componentProducts = async (settings: BlockSettings): Promise<ProductCard[]> => {
    const query = COMPONENT_QUERIES[settings.component!];
    const filter = query.filter(ctx.now);
    if (settings.category) {
      const categoryId = tree && categoryByCode(tree, settings.category);
      // A block about a category that is gone or hidden shows nothing rather than everything.
      if (categoryId === undefined) return [];
      filter.categoryIds = tree!.subtreeIds(categoryId);
    }
    const { cards: listed } = await catalogue.listPage(ctx, filter, query.sort, { offset: 0, perPage: settings.limit ?? 12 });
    shownProducts.push(...listed);
    return listed;
  };

  const resolved = await Promise.all(
    blocks.map(async ({ row, settings }) => {
      const texts = pickLanguage(parseTranslations<BlockTexts>(row.translations), ctx.language, context.defaultLanguage)?.texts ?? {};
      const block: BlockWire = { ...baseOf(row), title: texts.title ?? null, body: texts.body ?? null };
      switch (row.type) {
        case 'IMAGE':
          return { ...block, alt: texts.alt ?? null, imageUrl: settings.imageUrl!, linkUrl: shownLinkTarget(settings.linkUrl) };
        case 'BANNER':
          return { ...block, placement: settings.placement!, banners: banners.get(settings.placement!) ?? [] };
        case 'PRODUCT_LIST': {
          const products = (settings.products ?? []).map((code) => cards.get(productIds.get(code) ?? -1));
          return { ...block, products: products.filter((card): card is ProductCard => card !== undefined) };
        }
        case 'CAMPAIGN_LIST': {
          const shown = (settings.campaigns ?? [])
            .map((code) => campaigns.get(code))
            .filter((c) => c !== undefined && campaignRunning(c, context.audience));
          return { ...block, campaigns: shown.map((campaign) => campaignWire(campaign!, context)) };
        }
        case 'PRODUCT_COMPONENT':
          return { ...block, component: settings.component!, products: await componentProducts(settings) };
        case 'LINKS':
          return { ...block, links: shownLinks(settings.links ?? []).map((link) => linkWire(link, context)) };
        default:
          return block;
      }
    }),
  );
  await notePriceChanges(catalogue, context, shownProducts);
  return resolved;
}

/** A campaign price of a shown product that starts or ends changes the answer too: noted on the audience. */
export async function notePriceChanges(catalogue: Catalogue, context: ContentContext, cards: readonly ProductCard[]): Promise<void> {
  if (cards.length === 0) return;
  noteChanges(context.audience, await catalogue.pricesChangeAt(context.catalogue, [...new Set(cards.map((card) => card.id))]));
}

function baseOf(row: PageBlockRow): Pick<BlockWire, 'id' | 'type' | 'position'> {
  return { id: Number(row.id), type: row.type as BlockWire['type'], position: row.position };
}
