import type { Static, TSchema } from '@sinclair/typebox';
import { sanitizeHtmlContent } from '../../infra/html-sanitizer.js';
import { excerpt, KeyedLineError } from '../../infra/import/index.js';
import { lineParser, optionalTimestamp, unique, validityWindow } from '../catalogue-import/index.js';
import {
  BlogCategoryLine,
  BlogPostLine,
  NewsLine,
  RedirectLine,
  ShopScheduleLine,
  type BlogPostLine as PostLine,
  type NewsLine as NewsLineType,
  type ShopScheduleLine as ScheduleLine,
} from './content-lines.js';
import { replaceChildren, slugTaken, upsertCoded, type Outcome, type Trx } from './content-write.repository.js';
import { frontEndPath, loopsBack, MAX_PATH_BYTES, normalisePath, pathSpellings } from './redirect-path.js';
import { storeFrontendUrl } from './redirect.repository.js';
import { deleteSchedule, replaceSchedule, shopIdByCode } from './schedule.repository.js';
import type { ScheduleData } from './schedule.js';

// The module's operator-edited kinds: how a line (or a PUT body) is checked and written, and how
// a record is deleted. The NDJSON imports and the admin edits both run these. A rule a schema cannot
// say (a window's order, a slug taken, a redirect's path, opening hours) is a KeyedLineError: an
// import reports its English `/field: message` by the line's number, the admin PUT answers it as a
// 422 on the field in the caller's language (blog.messages.ts, `blog.rule.*`; a window's order and a
// value listed twice are the shared readers' of catalogue-import, `import.*`).

export interface ContentKind<R = unknown> {
  /** The line field that holds the record's code (`shop` for schedules). */
  codeField: 'code' | 'shop';
  schema: TSchema;
  /** The line against its schema (a problem is the `error`, `/field: message`), then its rules, which throw. */
  parse(value: unknown): { record: R } | { error: string };
  apply(trx: Trx, record: R, now: number): Promise<Outcome>;
  remove(trx: Trx, code: string): Promise<boolean>;
}

/**
 * A parser of lines of `schema` whose rules (`convert`) run after the schema's check and outside
 * lineParser, which would flatten their KeyedLineError into its English words: it reaches the PUT
 * with its key, and an import reports its message as it reports any LineError of a line.
 */
function ruleParser<S extends TSchema, R>(schema: S, convert: (line: Static<S>) => R) {
  const check = lineParser(schema, (line) => line);
  return (value: unknown): { record: R } | { error: string } => {
    const checked = check(value);
    return 'error' in checked ? checked : { record: convert(checked.record) };
  };
}

/** A tag's characters as stored, lower-cased (blog_post_tag.tag is varchar(60), as the line's tags are). */
const MAX_TAG_LENGTH = 60;

const sanitized = (html: string | null | undefined) => (html === null || html === undefined ? null : sanitizeHtmlContent(html));

function window(line: { visibleFrom?: string | null; visibleTo?: string | null; publishedAt: string }) {
  const { start, end } = validityWindow(line.visibleFrom, line.visibleTo, ['visibleFrom', 'visibleTo']);
  return { visible_from: start, visible_to: end, published_at: optionalTimestamp(line.publishedAt, 'publishedAt')! };
}

async function freeSlug(trx: Trx, table: 'blog_category' | 'blog_post' | 'news', line: { store: string; slug: string; code: string }) {
  const other = await slugTaken(trx, table, line.store, line.slug, line.code);
  if (other !== undefined) throw new KeyedLineError('slug', 'blog.rule.slugTaken', { slug: line.slug, code: other, store: line.store });
}

const deleteByCode = (table: 'blog_category' | 'blog_post' | 'news' | 'redirect') => async (trx: Trx, code: string) => {
  const result = await trx.deleteFrom(table).where('code', '=', code).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
};

const blogCategory: ContentKind<BlogCategoryLine> = {
  codeField: 'code',
  schema: BlogCategoryLine,
  parse: lineParser(BlogCategoryLine, (line) => line),
  async apply(trx, line, now) {
    await freeSlug(trx, 'blog_category', line);
    const names = (['et', 'en', 'ru'] as const).flatMap((language) =>
      line.names[language] ? [{ language, name: line.names[language] }] : [],
    );
    const wanted = { store_code: line.store, slug: line.slug, position: line.position ?? 0, is_active: line.active ?? true };
    return (
      await upsertCoded(trx, 'blog_category', line.code, wanted, now, (id) =>
        replaceChildren(trx, 'blog_category_name', 'blog_category_id', id, names),
      )
    ).outcome;
  },
  remove: deleteByCode('blog_category'),
};

const blogPost: ContentKind<PostLine> = {
  codeField: 'code',
  schema: BlogPostLine,
  parse: ruleParser(BlogPostLine, (line) => {
    const tags = (line.tags ?? []).map((tag) => tag.toLowerCase());
    // Lower case can be longer ('İ' is 'i' and a combining dot): the column holds MAX_TAG_LENGTH characters.
    tags.forEach((tag, index) => {
      if ([...tag].length > MAX_TAG_LENGTH) throw new KeyedLineError(`tags/${index}`, 'blog.rule.tagLength', { max: MAX_TAG_LENGTH });
    });
    unique(tags, 'tags');
    return { ...line, tags, ...window(line) };
  }),
  async apply(trx, line, now) {
    await freeSlug(trx, 'blog_post', line);
    let categoryId: number | null = null;
    if (line.category) {
      const category = await trx
        .selectFrom('blog_category')
        .select(['id', 'store_code'])
        .where('code', '=', line.category)
        .executeTakeFirst();
      if (!category || category.store_code !== line.store) {
        throw new KeyedLineError('category', 'blog.rule.unknownCategory', { category: line.category, store: line.store });
      }
      categoryId = Number(category.id);
    }
    const { visible_from, visible_to, published_at } = line as PostLine & ReturnType<typeof window>;
    const wanted = {
      store_code: line.store,
      language: line.language,
      slug: line.slug,
      title: line.title,
      summary: sanitized(line.summary),
      body: sanitizeHtmlContent(line.body),
      image_url: line.imageUrl ?? null,
      author: line.author ?? null,
      category_id: categoryId,
      seo_title: line.seoTitle ?? null,
      seo_description: line.seoDescription ?? null,
      is_active: line.active ?? true,
      visible_from,
      visible_to,
      published_at,
    };
    const tags = (line.tags ?? []).map((tag) => ({ tag }));
    return (
      await upsertCoded(trx, 'blog_post', line.code, wanted, now, (id) => replaceChildren(trx, 'blog_post_tag', 'blog_post_id', id, tags))
    ).outcome;
  },
  remove: deleteByCode('blog_post'),
};

const news: ContentKind<NewsLineType> = {
  codeField: 'code',
  schema: NewsLine,
  parse: ruleParser(NewsLine, (line) => ({ ...line, ...window(line) })),
  async apply(trx, line, now) {
    await freeSlug(trx, 'news', line);
    const { visible_from, visible_to, published_at } = line as NewsLineType & ReturnType<typeof window>;
    const wanted = {
      store_code: line.store,
      slug: line.slug,
      image_url: line.imageUrl ?? null,
      is_active: line.active ?? true,
      visible_from,
      visible_to,
      published_at,
    };
    const texts = (['et', 'en', 'ru'] as const).flatMap((language) => {
      const text = line.translations[language];
      if (!text) return [];
      return [
        {
          language,
          title: text.title,
          summary: sanitized(text.summary),
          body: sanitizeHtmlContent(text.body),
          seo_title: text.seoTitle ?? null,
          seo_description: text.seoDescription ?? null,
        },
      ];
    });
    return (await upsertCoded(trx, 'news', line.code, wanted, now, (id) => replaceChildren(trx, 'news_translation', 'news_id', id, texts)))
      .outcome;
  },
  remove: deleteByCode('news'),
};

const redirect: ContentKind<RedirectLine & { normalised: string }> = {
  codeField: 'code',
  schema: RedirectLine,
  parse: ruleParser(RedirectLine, (line) => {
    const normalised = normalisePath(line.path);
    if (normalised === undefined) throw new KeyedLineError('path', 'blog.rule.pathForm');
    if (Buffer.byteLength(normalised) > MAX_PATH_BYTES) throw new KeyedLineError('path', 'blog.rule.pathBytes', { max: MAX_PATH_BYTES });
    // A target path that is a spelling of the old one is found by the lookup the front-end makes
    // when it gets there: the shopper would go round for good (a full URL of the front-end: apply).
    if (line.target.startsWith('/') && loopsBack(normalised, line.target)) throw new KeyedLineError('target', 'blog.rule.redirectLoop');
    return { ...line, normalised };
  }),
  async apply(trx, line, now) {
    // A full URL of the store's own front-end is answered as the same `url` as its path: it loops alike.
    const frontendUrl = line.target.startsWith('/') ? undefined : await storeFrontendUrl(trx, line.store);
    const frontEnd = frontendUrl === undefined ? undefined : frontEndPath(frontendUrl, line.target);
    if (frontEnd !== undefined && loopsBack(line.normalised, frontEnd)) throw new KeyedLineError('target', 'blog.rule.redirectLoop');
    // Another redirect of any spelling of the path (raw or percent-encoded) is the same old URL:
    // the lookup would answer one or the other by how the front-end spelt it.
    const other = await trx
      .selectFrom('redirect')
      .select('code')
      .where('store_code', '=', line.store)
      .where('path', 'in', pathSpellings(line.normalised))
      .where('code', '<>', line.code)
      .executeTakeFirst();
    if (other) {
      throw new KeyedLineError('path', 'blog.rule.pathTaken', { path: excerpt(line.normalised, 100), code: other.code, store: line.store });
    }
    const wanted = {
      store_code: line.store,
      path: line.normalised,
      target: line.target,
      status: line.status ?? 301,
      is_active: line.active ?? true,
    };
    return (await upsertCoded(trx, 'redirect', line.code, wanted, now)).outcome;
  },
  remove: deleteByCode('redirect'),
};

const minutes = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

function scheduleData(line: ScheduleLine): ScheduleData {
  unique(
    line.weekly.map((day) => String(day.weekday)),
    'weekly',
  );
  unique(
    (line.exceptions ?? []).map((day) => day.date),
    'exceptions',
  );
  const hours = (opens: string, closes: string, field: string) => {
    const [opensMinute, closesMinute] = [minutes(opens), minutes(closes)];
    if (opensMinute >= 1440 || closesMinute > 1440) throw new KeyedLineError(field, 'blog.rule.timeRange');
    if (closesMinute <= opensMinute) throw new KeyedLineError(field, 'blog.rule.hoursOrder');
    return { opensMinute, closesMinute };
  };
  const weekly = new Map(line.weekly.map((day, index) => [day.weekday, hours(day.opens, day.closes, `weekly/${index}`)]));
  const exceptions = new Map(
    (line.exceptions ?? []).map((day, index) => {
      optionalTimestamp(day.date, `exceptions/${index}/date`);
      const closed = day.closed === true;
      if (closed && (day.opens !== undefined || day.closes !== undefined)) {
        throw new KeyedLineError(`exceptions/${index}`, 'blog.rule.closedDayHours');
      }
      if (!closed && (day.opens === undefined || day.closes === undefined)) {
        throw new KeyedLineError(`exceptions/${index}`, 'blog.rule.openDayHours');
      }
      const names = Object.fromEntries(Object.entries(day.names).filter(([, name]) => name !== undefined)) as Record<string, string>;
      return [day.date, { day: day.date, hours: closed ? null : hours(day.opens!, day.closes!, `exceptions/${index}`), names }];
    }),
  );
  return { weekly, exceptions };
}

const shopSchedule: ContentKind<ScheduleLine & { data: ScheduleData }> = {
  codeField: 'shop',
  schema: ShopScheduleLine,
  parse: ruleParser(ShopScheduleLine, (line) => ({ ...line, data: scheduleData(line) })),
  async apply(trx, line) {
    const shopId = await shopIdByCode(trx, line.shop);
    if (shopId === undefined) throw new KeyedLineError('shop', 'blog.rule.unknownShop', { shop: line.shop });
    return (await replaceSchedule(trx, shopId, line.data)) ? 'updated' : 'unchanged';
  },
  async remove(trx, code) {
    const shopId = await shopIdByCode(trx, code);
    return shopId !== undefined && deleteSchedule(trx, shopId);
  },
};

/** The kinds by the name `import <kind>` and `/admin/content/<kind>` use. */
export const contentKinds = {
  'blog-categories': blogCategory,
  'blog-posts': blogPost,
  news,
  redirects: redirect,
  'shop-schedules': shopSchedule,
} as Record<string, ContentKind>;

/** Writes one record of a kind as an import line would (the demo data); throws on a bad one. */
export async function applyContentLine(trx: Trx, kindName: string, value: unknown, now: number): Promise<Outcome> {
  const kind = contentKinds[kindName];
  if (!kind) throw new Error(`unknown content kind ${kindName}`);
  const parsed = kind.parse(value);
  if ('error' in parsed) throw new Error(`${kindName}: ${parsed.error}`);
  return kind.apply(trx, parsed.record, now);
}
