import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../../http/paging.js';
import { MultilineText } from '../../../http/text.js';
import { LANGUAGES } from '../../../i18n/index.js';
import { IdParams, literals } from '../catalogue.schemas.js';

// Wire shapes of product comments and ratings.

export const COMMENT_MAX_CHARACTERS = 2000;

const RatingValue = Type.Integer({ minimum: 1, maximum: 5, description: 'Whole stars, 1 to 5' });

export const CommentSchema = Type.Object(
  {
    id: Type.Integer(),
    authorName: Type.String({ description: 'First name and initial of the last name, or "Anonymous" in the language asked for' }),
    body: Type.String(),
    language: Type.String({ description: 'Language the comment was written in: et, en or ru' }),
    createdAt: Type.String({ format: 'date-time' }),
    rating: Type.Union([Type.Integer(), Type.Null()], { description: "The author's current rating of this product, if any" }),
    own: Type.Boolean({ description: 'Whether the caller wrote it (always false for a guest)' }),
  },
  { $id: 'ProductComment' },
);
export type CommentWire = Static<typeof CommentSchema>;

export const RatingSummarySchema = Type.Object(
  {
    average: Type.Union([Type.Number(), Type.Null()], { description: 'Mean of all ratings, one decimal; null without ratings' }),
    count: Type.Integer({ description: 'Number of clients who rated the product' }),
    own: Type.Union([RatingValue, Type.Null()], { description: "The caller's rating; null for a guest or without one" }),
  },
  { $id: 'ProductRatingSummary' },
);
export type RatingSummary = Static<typeof RatingSummarySchema>;

export const CommentParams = Type.Object({
  ...IdParams.properties,
  commentId: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1, description: 'Id of the comment' }),
});

export const CommentsQuery = Type.Object({
  ...PagingQuery.properties,
  language: Type.Optional(literals(LANGUAGES, 'Only comments written in this language; all languages when absent')),
});
export type CommentsQuery = Static<typeof CommentsQuery>;

export const CommentForm = Type.Object({
  body: MultilineText({ description: `The text: 1 to ${COMMENT_MAX_CHARACTERS} characters after trimming` }),
  rating: Type.Optional({ ...RatingValue, description: "Also sets the caller's rating of the product (as PUT /product/{id}/rating)" }),
});
export type CommentForm = Static<typeof CommentForm>;

export const RatingForm = Type.Object({ rating: RatingValue });
export type RatingForm = Static<typeof RatingForm>;
