import { Type } from '@sinclair/typebox';
import { PagingQuery } from '../../http/paging.js';

// TypeBox for the bodies, parameters and answers of the subscription routes. Money is euros with
// two decimals on the wire; times are RFC 3339 UTC.

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);

export const IdParams = Type.Object({ id: Id });

export const PlanSchema = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  kind: Type.Union([Type.Literal('AUDIO_CREDITS'), Type.Literal('AUDIO_UNLIMITED'), Type.Literal('EBOOK_SHELF')]),
  title: Type.String({ description: "In the caller's language, else Estonian" }),
  creditsPerMonth: Type.Union([Type.Integer(), Type.Null()], { description: 'AUDIO_CREDITS: audiobooks a month' }),
  shelfSize: Type.Union([Type.Integer(), Type.Null()], { description: 'EBOOK_SHELF: e-books on the shelf at once' }),
  monthlyPrice: Type.Number({ description: 'Euros' }),
  trialDays: Type.Integer({ description: '0: no trial' }),
  stores: Type.Array(Type.String()),
});

export const CardSchema = Type.Object({
  id: Type.Integer(),
  brand: Type.String({ description: 'The card scheme as the gateway names it (visa, master_card ...)' }),
  lastFour: Type.String(),
  expiryMonth: Type.Integer(),
  expiryYear: Type.Integer(),
  isDefault: Type.Boolean({ description: 'New subscriptions without a cardId are paid with it' }),
  createdAt: Time,
});

export const SubscriptionSchema = Type.Object({
  id: Type.Integer(),
  status: Type.Union(
    ['PENDING', 'TRIAL', 'ACTIVE', 'FAILED', 'LAPSED', 'ENDED'].map((status) => Type.Literal(status)),
    {
      description:
        'PENDING: first charge not confirmed yet; TRIAL; ACTIVE; FAILED: a renewal failed, retried (access goes on); LAPSED: every retry failed; ENDED: cancelled and past its period, or first charge declined',
    },
  ),
  plan: PlanSchema,
  nextPlanId: Type.Union([Type.Integer(), Type.Null()], { description: 'A downgrade that takes effect at the period end' }),
  cardId: Type.Union([Type.Integer(), Type.Null()]),
  trial: Type.Boolean({ description: 'The current period is a free trial' }),
  currentPeriodStart: NullableTime,
  currentPeriodEnd: NullableTime,
  cancelAtPeriodEnd: Type.Boolean({ description: 'Cancelled: access until currentPeriodEnd, nothing more charged' }),
  nextAttemptAt: NullableTime,
  createdAt: Time,
  endedAt: NullableTime,
});

export const SubscribeBody = Type.Object(
  { planId: Id, cardId: Type.Optional(Id) },
  { additionalProperties: false, description: 'cardId: a saved card; the default card when left out' },
);

export const ChangePlanBody = Type.Object({ planId: Id }, { additionalProperties: false });

export const CardReturnQuery = Type.Object({
  cardId: Id,
  checksum: Type.String({ maxLength: 128, description: "The return link's HMAC of the card id" }),
  // The gateway adds its own parameters (payment_reference, order_reference); none is trusted.
  payment_reference: Type.Optional(Type.String({ maxLength: 256 })),
  order_reference: Type.Optional(Type.String({ maxLength: 256 })),
});

export const RedirectFormSchema = Type.Object({
  url: Type.String(),
  method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
  fields: Type.Record(Type.String(), Type.String()),
});

export const TakeBody = Type.Object({ productId: Id }, { additionalProperties: false });
export const TakeQuery = Type.Object({ productId: Id });
export const SubscriptionListQuery = Type.Object({ ...PagingQuery.properties });
export const CardListQuery = Type.Object({ ...PagingQuery.properties });
export const TakesListQuery = Type.Object({ ...PagingQuery.properties }, { additionalProperties: false });

export const TakenItemSchema = Type.Object({
  id: Type.Integer(),
  productId: Type.Integer(),
  productCode: Type.String(),
  title: Type.String(),
  kind: Type.Union([Type.Literal('AUDIOBOOK'), Type.Literal('EBOOK')]),
  usedCredit: Type.Boolean({ description: 'Taken with a credit of an AUDIO_CREDITS plan' }),
  takenAt: Time,
});

export const TakesSchema = Type.Object({
  subscriptionId: Type.Integer(),
  items: Type.Array(TakenItemSchema, {
    description:
      'What the subscription holds, newest first: its audiobooks, or the e-books on its shelf. In GET /download while the subscription ' +
      'lasts. Paged: GET gives the page asked for (X-Pagination-* headers), POST and DELETE the first page (20 items)',
  }),
  creditsLeft: Type.Union([Type.Integer(), Type.Null()], {
    description: 'AUDIO_CREDITS: credits left this period (they do not carry over)',
  }),
  shelfFree: Type.Union([Type.Integer(), Type.Null()], { description: 'EBOOK_SHELF: free places on the shelf' }),
});
