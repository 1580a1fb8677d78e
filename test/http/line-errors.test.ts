import { describe, expect, it } from 'vitest';
import { FieldValidationError } from '../../src/http/errors.js';
import { asLineEditError, lineFieldError } from '../../src/http/line-errors.js';
import { InvalidInputError } from '../../src/infra/domain-error.js';
import { KeyedLineError, LineError } from '../../src/infra/import/index.js';

// An admin edit of one content item meets what the import line's readers throw (content and blog
// PUTs): each is the 422 on its field, never a 500.
describe('asLineEditError', () => {
  it('answers a keyed rule by its key, on the dotted field', () => {
    const answer = asLineEditError(new KeyedLineError('blocks/0/visibleTo', 'import.windowOrder', { start: 'visibleFrom' }));
    expect(answer).toBeInstanceOf(InvalidInputError);
    expect((answer as InvalidInputError).fields).toEqual([
      { field: 'blocks.0.visibleTo', messageKey: 'import.windowOrder', params: { start: 'visibleFrom' } },
    ]);
  });

  it('answers a line error of no key in its words, on its field or on the body', () => {
    const answer = asLineEditError(new LineError('/tags/2: "x" is odd'));
    expect(answer).toBeInstanceOf(FieldValidationError);
    expect((answer as FieldValidationError).errors).toEqual([{ field: 'tags.2', message: '"x" is odd' }]);
    expect(lineFieldError('no field here')).toEqual({ field: 'body', message: 'no field here' });
  });

  it('leaves any other error as it is', () => {
    const error = new Error('disk full');
    expect(asLineEditError(error)).toBe(error);
  });
});
