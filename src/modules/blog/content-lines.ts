import { Type, type Static } from '@sinclair/typebox';
import { LinkTarget } from '../../http/link-target.js';
import { CONTROL_CHARACTERS, MultilineText, TextLine, URL_CHARACTER } from '../../http/text.js';
import { Code, DateValue, Line, Name, Position, Store, Text } from '../catalogue-import/index.js';

// The NDJSON line shapes of the module's import kinds (docs/import.md); a PUT of the admin takes
// the same object (its code from the path) and checks it with the API's validator: a string's
// schema refuses control characters itself (texts by http/text.ts, the rest by their pattern), so
// the PUT answers one as any 422 of the API, where an import names it first (lineParser).

/** A tag: no white space at either end, no control character anywhere. */
const TAG = `^(?!.*[${CONTROL_CHARACTERS}])\\S(.*\\S)?$`;
const Html = MultilineText({ maxLength: 200_000, multiline: true, description: 'HTML; sanitized on the way in' });
const Url = Type.String({ maxLength: 500, pattern: `^https?://${URL_CHARACTER}+$` });
const Slug = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description: 'lowercase words joined by hyphens',
});
const Optional = <T extends Parameters<typeof Type.Optional>[0]>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Language = Type.Union([Type.Literal('et'), Type.Literal('en'), Type.Literal('ru')]);

const publishing = {
  active: Type.Optional(Type.Boolean({ description: 'Default true; false keeps it a draft' })),
  visibleFrom: Optional(DateValue),
  visibleTo: Optional(DateValue),
  publishedAt: DateValue,
};

export const BlogCategoryLine = Type.Object(
  {
    code: Code(),
    store: Store,
    slug: Slug,
    names: Type.Object({ et: Name(), en: Type.Optional(Name()), ru: Type.Optional(Name()) }, { additionalProperties: false }),
    position: Type.Optional(Position),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const BlogPostLine = Type.Object(
  {
    code: Code(),
    store: Store,
    language: Language,
    slug: Slug,
    title: Name(300),
    summary: Optional(Text(2_000)),
    body: Html,
    imageUrl: Optional(Url),
    author: Optional(Name(200)),
    category: Optional(Code('blog category code')),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 60, pattern: TAG }), { maxItems: 50 })),
    seoTitle: Optional(Line(300)),
    seoDescription: Optional(Line(500)),
    ...publishing,
  },
  { additionalProperties: false },
);

const NewsText = Type.Object(
  {
    title: Name(300),
    summary: Optional(Text(2_000)),
    body: Html,
    seoTitle: Optional(Line(300)),
    seoDescription: Optional(Line(500)),
  },
  { additionalProperties: false },
);

export const NewsLine = Type.Object(
  {
    code: Code(),
    store: Store,
    slug: Slug,
    imageUrl: Optional(Url),
    translations: Type.Object({ et: NewsText, en: Type.Optional(NewsText), ru: Type.Optional(NewsText) }, { additionalProperties: false }),
    ...publishing,
  },
  { additionalProperties: false },
);

export const RedirectLine = Type.Object(
  {
    code: Code(),
    store: Store,
    path: TextLine({ minLength: 1, maxLength: 1000, blank: true }),
    target: LinkTarget({ minLength: 1, maxLength: 1000 }),
    status: Type.Optional(Type.Union([Type.Literal(301), Type.Literal(302)])),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ClockTime = Type.String({
  pattern: '^([01]\\d|2[0-4]):[0-5]\\d$',
  description: 'HH:MM local time; 24:00 is midnight at the end of the day',
});

export const ShopScheduleLine = Type.Object(
  {
    shop: Code('shop code'),
    weekly: Type.Array(
      Type.Object(
        { weekday: Type.Integer({ minimum: 1, maximum: 7 }), opens: ClockTime, closes: ClockTime },
        { additionalProperties: false },
      ),
      { maxItems: 7 },
    ),
    exceptions: Type.Optional(
      Type.Array(
        Type.Object(
          {
            date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
            closed: Type.Optional(Type.Boolean()),
            opens: Type.Optional(ClockTime),
            closes: Type.Optional(ClockTime),
            names: Type.Object({ et: Name(), en: Type.Optional(Name()), ru: Type.Optional(Name()) }, { additionalProperties: false }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 1_000 },
      ),
    ),
  },
  { additionalProperties: false },
);

export type BlogCategoryLine = Static<typeof BlogCategoryLine>;
export type BlogPostLine = Static<typeof BlogPostLine>;
export type NewsLine = Static<typeof NewsLine>;
export type RedirectLine = Static<typeof RedirectLine>;
export type ShopScheduleLine = Static<typeof ShopScheduleLine>;
