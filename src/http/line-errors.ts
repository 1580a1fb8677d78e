import { KeyedLineError, LineError } from '../infra/import/index.js';
import { FieldValidationError, type FieldError } from './errors.js';

// The admin edits of one item (`PUT /admin/content/...`) take an import line's object, so the line's
// readers and rules throw what an import reports by line number; an edit answers it as the 422 on its
// field instead.

/** `/path: message` of an import line as a field error (`path` dotted, as the API's 422s name fields). */
export function lineFieldError(message: string): FieldError {
  const match = /^\/([^:]*): ([\s\S]*)$/.exec(message);
  return match ? { field: match[1]!.replaceAll('/', '.'), message: match[2]! } : { field: 'body', message };
}

/**
 * A line's problem as the 422 on its field: a rule (a KeyedLineError) in the caller's language, a
 * LineError of no key in its English words. Anything else is no input's fault and goes on as it is.
 */
export function asLineEditError(error: unknown): unknown {
  if (error instanceof KeyedLineError) return error.asInvalidInput();
  if (error instanceof LineError) return new FieldValidationError([lineFieldError(error.message)]);
  return error;
}
