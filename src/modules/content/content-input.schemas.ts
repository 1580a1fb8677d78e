import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { LinkTarget } from '../../http/link-target.js';
import { URL_CHARACTER } from '../../http/text.js';
import { Code, DateValue, Line, Name, Position, Store, Text } from '../catalogue-import/index.js';

// What operators send, one item at a time: a line of an NDJSON import (with its `code`) or the
// body of `PUT /admin/content/<kind>/{code}` (the code is in the path). Formats: docs/import.md.

const Url = Type.String({ maxLength: 500, pattern: `^https?://${URL_CHARACTER}+$`, description: 'http(s) URL' });
/** Where a link goes: an absolute http(s) URL or a path inside the shop (http/link-target.ts). */
const LinkUrl = LinkTarget({ maxLength: 500 });
const Slug = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description: 'lower-case words joined by -',
});

/** `{et?, en?, ru?}` with at least one language; the others fall back to the store's default language. */
const Translations = <P extends TProperties>(fields: P) => {
  const one = Type.Object(fields, { additionalProperties: false });
  return Type.Object(
    { et: Type.Optional(one), en: Type.Optional(one), ru: Type.Optional(one) },
    { additionalProperties: false, minProperties: 1 },
  );
};

const Publishing = {
  store: Store,
  active: Type.Optional(Type.Boolean({ description: 'default true; false: a draft' })),
  visibleFrom: Type.Optional(Type.Union([DateValue, Type.Null()])),
  visibleTo: Type.Optional(Type.Union([DateValue, Type.Null()])),
};

const contentPageFields = {
  ...Publishing,
  slug: Slug,
  translations: Translations({
    title: Name(200),
    body: Text(200_000),
    seoTitle: Type.Optional(Line(200)),
    seoDescription: Type.Optional(Line(500)),
  }),
};

export const BLOCK_TYPES = ['RICH_TEXT', 'IMAGE', 'BANNER', 'PRODUCT_LIST', 'CAMPAIGN_LIST', 'PRODUCT_COMPONENT', 'LINKS'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
export const COMPONENTS = ['discounted', 'newest', 'top'] as const;

const LinkInput = Type.Object(
  {
    url: LinkUrl,
    category: Type.Optional(Code('category code: the link shows in that category of the mega menu')),
    labels: Type.Object(
      { et: Type.Optional(Name(200)), en: Type.Optional(Name(200)), ru: Type.Optional(Name(200)) },
      { additionalProperties: false, minProperties: 1 },
    ),
  },
  { additionalProperties: false },
);

export const BlockInput = Type.Object(
  {
    type: Type.Union(BLOCK_TYPES.map((type) => Type.Literal(type))),
    active: Type.Optional(Type.Boolean()),
    visibleFrom: Type.Optional(Type.Union([DateValue, Type.Null()])),
    visibleTo: Type.Optional(Type.Union([DateValue, Type.Null()])),
    translations: Type.Optional(
      Translations({ title: Type.Optional(Line(200)), body: Type.Optional(Text(100_000)), alt: Type.Optional(Line(300)) }),
    ),
    imageUrl: Type.Optional(Url),
    linkUrl: Type.Optional(LinkUrl),
    placement: Type.Optional(Code('banner placement')),
    products: Type.Optional(Type.Array(Code('product code'), { minItems: 1, maxItems: 100 })),
    campaigns: Type.Optional(Type.Array(Code('campaign code'), { minItems: 1, maxItems: 50 })),
    component: Type.Optional(Type.Union(COMPONENTS.map((name) => Type.Literal(name)))),
    category: Type.Optional(Code('category code')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 48 })),
    links: Type.Optional(Type.Array(LinkInput, { minItems: 1, maxItems: 50 })),
  },
  { additionalProperties: false },
);
export type BlockInput = Static<typeof BlockInput>;

export const PAGE_KINDS = ['COMPOSITE', 'CATEGORY', 'DISCOUNT', 'MAIN'] as const;

const blockPageFields = {
  ...Publishing,
  kind: Type.Optional(
    Type.Union(
      PAGE_KINDS.map((kind) => Type.Literal(kind)),
      { description: 'default COMPOSITE' },
    ),
  ),
  slug: Type.Optional(Slug),
  category: Type.Optional(Code('category code (a CATEGORY page)')),
  campaign: Type.Optional(Code('campaign code (a DISCOUNT page)')),
  translations: Translations({ title: Name(200), seoTitle: Type.Optional(Line(200)), seoDescription: Type.Optional(Line(500)) }),
  blocks: Type.Array(BlockInput, { maxItems: 100 }),
};

export const CUSTOMER_KINDS = ['GUEST', 'SIMPLE', 'BUSINESS', 'WHOLESALE'] as const;

const bannerFields = {
  ...Publishing,
  placement: Code('HEADER, MENU, or a placement blocks name'),
  position: Type.Optional(Position),
  customerKinds: Type.Optional(Type.Array(Type.Union(CUSTOMER_KINDS.map((kind) => Type.Literal(kind))), { maxItems: 4 })),
  linkUrl: Type.Optional(Type.Union([LinkUrl, Type.Null()])),
  imageUrl: Type.Optional(Type.Union([Url, Type.Null()])),
  translations: Translations({ title: Name(200), body: Type.Optional(Text(20_000)), imageUrl: Type.Optional(Url) }),
};

const menuFields = {
  ...Publishing,
  links: Type.Array(LinkInput, { maxItems: 200 }),
};

const withCode = <P extends TProperties>(fields: P) => Type.Object({ code: Code(), ...fields }, { additionalProperties: false });
const body = <P extends TProperties>(fields: P) => Type.Object(fields, { additionalProperties: false });

export const ContentPageLine = withCode(contentPageFields);
export const ContentPageBody = body(contentPageFields);
export const BlockPageLine = withCode(blockPageFields);
export const BlockPageBody = body(blockPageFields);
export const BannerLine = withCode(bannerFields);
export const BannerBody = body(bannerFields);
export const MenuLine = withCode(menuFields);
export const MenuBody = body(menuFields);

export type ContentPageInput = Static<typeof ContentPageBody>;
export type BlockPageInput = Static<typeof BlockPageBody>;
export type BannerInput = Static<typeof BannerBody>;
export type MenuInput = Static<typeof MenuBody>;
export type LinkInput = Static<typeof LinkInput>;
export type WithCode<T> = T & { code: string };
