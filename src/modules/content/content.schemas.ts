import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';
import { ProductCardSchema } from '../catalogue/index.js';
import { BLOCK_TYPES, COMPONENTS, PAGE_KINDS } from './content-input.schemas.js';

// Wire shapes of the content reads. Times are RFC 3339 UTC; `language` says which language the
// texts are in (the one asked for, else the store's default).

/**
 * The catalogue's card without its schema id: a page holds cards in several places (blocks and a
 * discount page's products), and one answer's schema may not define the same id twice.
 */
const { $id: _cardId, ...Card } = ProductCardSchema;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const PreviewQuery = Type.Object({
  preview: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')], {
      description: '1 or true, with an operator API key as the bearer token: show drafts and items outside their window (never cached)',
    }),
  ),
});
export type PreviewQuery = Static<typeof PreviewQuery>;

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });
export const CategoryIdParams = Type.Object({ categoryId: Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991 }) });
export const DiscountPageQuery = Type.Composite([PreviewQuery, PagingQuery]);

export const ContentPageSchema = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  slug: Type.String(),
  language: Type.String(),
  title: Type.String(),
  body: Type.String({ description: 'Sanitized HTML' }),
  seoTitle: Nullable(Type.String()),
  seoDescription: Nullable(Type.String()),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const BannerSchema = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  placement: Type.String(),
  position: Type.Integer(),
  language: Type.String(),
  title: Type.String(),
  body: Nullable(Type.String({ description: 'Sanitized HTML' })),
  imageUrl: Nullable(Type.String()),
  linkUrl: Nullable(Type.String()),
});
export type BannerWire = Static<typeof BannerSchema>;

export const LinkSchema = Type.Object({ url: Type.String(), label: Type.String(), categoryId: Type.Optional(Nullable(Type.Integer())) });
export type LinkWire = Static<typeof LinkSchema>;

export const CampaignSummarySchema = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  validFrom: Nullable(Type.String({ format: 'date-time' })),
  validTo: Nullable(Type.String({ format: 'date-time' })),
});
export type CampaignSummaryWire = Static<typeof CampaignSummarySchema>;

export const BlockSchema = Type.Object({
  id: Type.Integer(),
  type: Type.Union(BLOCK_TYPES.map((type) => Type.Literal(type))),
  position: Type.Integer(),
  title: Nullable(Type.String()),
  body: Nullable(Type.String({ description: 'Sanitized HTML (RICH_TEXT)' })),
  alt: Type.Optional(Nullable(Type.String())),
  imageUrl: Type.Optional(Type.String()),
  linkUrl: Type.Optional(Nullable(Type.String())),
  placement: Type.Optional(Type.String()),
  banners: Type.Optional(Type.Array(BannerSchema)),
  component: Type.Optional(Type.Union(COMPONENTS.map((name) => Type.Literal(name)))),
  products: Type.Optional(Type.Array(Card, { description: 'Visible to the caller and priced for them' })),
  campaigns: Type.Optional(Type.Array(CampaignSummarySchema)),
  links: Type.Optional(Type.Array(LinkSchema)),
});
export type BlockWire = Static<typeof BlockSchema>;

export const BlockPageSchema = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  kind: Type.Union(PAGE_KINDS.map((kind) => Type.Literal(kind))),
  slug: Nullable(Type.String()),
  categoryId: Nullable(Type.Integer()),
  language: Type.String(),
  title: Type.String(),
  seoTitle: Nullable(Type.String()),
  seoDescription: Nullable(Type.String()),
  updatedAt: Type.String({ format: 'date-time' }),
  blocks: Type.Array(BlockSchema),
});
export type BlockPageWire = Static<typeof BlockPageSchema>;

export const DiscountPageSchema = Type.Composite([
  BlockPageSchema,
  Type.Object({
    campaign: Nullable(CampaignSummarySchema),
    products: Type.Array(Card, { description: "A page of the campaign's products (page, per-page), priced for the caller" }),
  }),
]);

export const MenuCategorySchema = Type.Recursive(
  (self) =>
    Type.Object({
      id: Type.Integer(),
      code: Type.String(),
      name: Type.String(),
      links: Type.Array(LinkSchema, { description: 'Featured links shown in this category' }),
      children: Type.Array(self),
    }),
  { $id: 'MegaMenuCategory', description: 'A category of the menu with its featured links and subcategories' },
);

export const MegaMenuSchema = Type.Object({
  categories: Type.Array(MenuCategorySchema),
  links: Type.Array(LinkSchema, { description: 'Featured links not tied to a category' }),
  banners: Type.Array(BannerSchema),
});
