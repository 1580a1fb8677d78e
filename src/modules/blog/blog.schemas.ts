import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';

// Wire shapes of the blog and the news.

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = (description: string) => Type.String({ format: 'date-time', description });

export const PreviewQuery = Type.Object({
  preview: Type.Optional(
    Type.String({
      pattern: '^(1|0|true|false)$',
      description: '1 (or true) with an operator API key (Authorization: Bearer): show drafts and items outside their window',
    }),
  ),
});

export const BlogListQuery = Type.Object({
  ...PagingQuery.properties,
  ...PreviewQuery.properties,
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A blog category slug' })),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'A tag (case-insensitive)' })),
});

export const NewsListQuery = Type.Object({ ...PagingQuery.properties, ...PreviewQuery.properties });

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });

export const BlogCategorySchema = Type.Object(
  {
    code: Type.String(),
    slug: Type.String({ description: 'What GET /blog?category= takes' }),
    name: Type.String({ description: 'In the asked language; the store default or Estonian when there is none' }),
    position: Type.Integer(),
  },
  { $id: 'BlogCategory' },
);

const postFields = {
  code: Type.String(),
  slug: Type.String(),
  language: Type.String({ description: 'The one language the post is written in' }),
  title: Type.String(),
  summary: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  author: Nullable(Type.String()),
  category: Type.Union([Type.Omit(BlogCategorySchema, ['position']), Type.Null()]),
  tags: Type.Array(Type.String()),
  publishedAt: Time('The date shown; lists are newest first'),
  updatedAt: Time('Last change'),
};

export const BlogPostSummarySchema = Type.Object(postFields, { $id: 'BlogPostSummary' });
export const BlogPostSchema = Type.Object(
  {
    ...postFields,
    body: Type.String({ description: 'Sanitized HTML' }),
    seoTitle: Nullable(Type.String()),
    seoDescription: Nullable(Type.String()),
  },
  { $id: 'BlogPost' },
);

const newsFields = {
  code: Type.String(),
  slug: Type.String(),
  language: Type.String({ description: 'The language of the texts: the asked one, else the store default, else Estonian' }),
  title: Type.String(),
  summary: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  publishedAt: Time('The date shown; lists are newest first'),
  updatedAt: Time('Last change'),
};

export const NewsSummarySchema = Type.Object(newsFields, { $id: 'NewsSummary' });
export const NewsSchema = Type.Object(
  {
    ...newsFields,
    body: Type.String({ description: 'Sanitized HTML' }),
    seoTitle: Nullable(Type.String()),
    seoDescription: Nullable(Type.String()),
  },
  { $id: 'News' },
);
