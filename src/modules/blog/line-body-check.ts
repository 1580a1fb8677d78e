import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import type { FieldError } from '../../http/errors.js';
import { toFieldErrors, validatorCompiler } from '../../http/validation.js';
import { translate, type Language } from '../../i18n/index.js';
import { compileLineCheck } from '../../infra/import/index.js';

// The admin PUT of a blog kind takes an import line's object, and one route serves every kind, so
// Fastify cannot check the body against the kind's schema as it does a route's. The line's own parser
// (lineParser) words a fault in the English an import reports; this checks the line as a route's
// schema is checked, by the API's validator, so a wrong type, a missing field or a bad pattern is
// answered as every 422 of the API: each field's problem in the caller's language.

/** A field's problems with a line of `schema` in `language`, one per field; empty when there is none. */
export type LineBodyCheck = (line: Record<string, unknown>, language: Language) => FieldError[];

export function lineBodyCheck(schema: TSchema): LineBodyCheck {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'PUT', url: '/admin/content/:kind/:code' }) as ((
    value: unknown,
  ) => boolean) & { errors?: Parameters<typeof toFieldErrors>[0] | null };
  const lineCheck = compileLineCheck(schema);
  return (line, language) => {
    // The validator drops (from its copy) a field a closed object does not name, as it does of every
    // body; a line refuses it, and so does its PUT, with the message an unknown field gets everywhere.
    const unknown = (lineCheck.Check(line) ? [] : [...lineCheck.Errors(line)])
      .filter((error) => error.type === ValueErrorType.ObjectAdditionalProperties)
      .map((error) => error.path.slice(1).replaceAll('/', '.'))
      .map((field) => ({ field, message: translate(language, 'validation.unknownField', { field }) }));
    const faults = validate(structuredClone(line)) ? [] : toFieldErrors(validate.errors ?? [], language);
    const named = new Set(unknown.map((error) => error.field));
    return [...unknown, ...faults.filter((error) => !named.has(error.field))];
  };
}
