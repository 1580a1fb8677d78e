import type { MessageKey } from '../i18n/index.js';

/**
 * What went wrong, in the domain's words. Services throw these and know nothing of HTTP;
 * `http/error-handler.ts` maps each kind to a status and the wire format, in the caller's language.
 */
export type DomainErrorKind =
  | 'bad-request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'gone'
  | 'too-large'
  | 'unsupported'
  | 'locked'
  | 'rate-limited'
  | 'unavailable';

export type MessageParams = Record<string, string | number>;

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly messageKey: MessageKey,
    readonly params: MessageParams = {},
    /** Seconds until trying again makes sense (rate limits, locks, maintenance). */
    readonly retryAfterSeconds?: number,
    /** The spec's numeric `code` in the error body; 0 unless the spec gives one. */
    readonly code = 0,
  ) {
    super(messageKey);
    this.name = 'DomainError';
  }
}

/** One rejected input field: the request's own field name and why, as a message key. */
export interface InvalidField {
  field: string;
  messageKey: MessageKey;
  params?: MessageParams;
}

/** Input that a schema cannot judge (an email already in use, a code that does not exist): a 422. */
export class InvalidInputError extends Error {
  constructor(readonly fields: InvalidField[]) {
    super('Invalid input');
    this.name = 'InvalidInputError';
  }
}

export const notFound = (key: MessageKey, params?: MessageParams) => new DomainError('not-found', key, params);
export const conflict = (key: MessageKey, params?: MessageParams) => new DomainError('conflict', key, params);
export const forbidden = (key: MessageKey, params?: MessageParams) => new DomainError('forbidden', key, params);
export const unauthenticated = (key: MessageKey, params?: MessageParams) => new DomainError('unauthenticated', key, params);
export const badRequest = (key: MessageKey, params?: MessageParams) => new DomainError('bad-request', key, params);
export const invalidField = (field: string, messageKey: MessageKey, params?: MessageParams) =>
  new InvalidInputError([{ field, messageKey, params }]);
