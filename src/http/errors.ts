import { STATUS_CODES } from 'node:http';
import type { Language, MessageKey } from '../i18n/index.js';
import { translate } from '../i18n/index.js';

/** The body of every error except 422: `{name, message, code, status}`; `name` is the reason phrase. */
export interface ErrorBody {
  name: string;
  message: string;
  code: number;
  status: number;
}

/** One entry of a 422 body. `field` is the request's own field name (dotted for nested fields). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * An expected failure with a status and a translatable message. Thrown from hooks, services and
 * routes; the error handler turns it into the documented body in the caller's language.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly messageKey: MessageKey,
    readonly params: Record<string, string | number> = {},
    readonly headers: Record<string, string> = {},
    readonly code = 0,
  ) {
    super(messageKey);
    this.name = 'HttpError';
  }
}

/** A 422 with field errors, for checks a schema cannot express (e.g. "email already in use"). */
export class FieldValidationError extends Error {
  constructor(readonly errors: FieldError[]) {
    super('Validation failed');
    this.name = 'FieldValidationError';
  }
}

/** A 422 for one field, with its message in the caller's language. */
export function fieldError(
  field: string,
  language: Language,
  key: MessageKey,
  params: Record<string, string | number> = {},
): FieldValidationError {
  return new FieldValidationError([{ field, message: translate(language, key, params) }]);
}

export function errorBody(status: number, message: string, code = 0): ErrorBody {
  return { name: STATUS_CODES[status] ?? 'Error', message, code, status };
}

export function translatedErrorBody(language: Language, error: HttpError): ErrorBody {
  return errorBody(error.status, translate(language, error.messageKey, error.params), error.code);
}
