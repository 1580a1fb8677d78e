import { Type, type Static } from '@sinclair/typebox';
import { Code, LineError, lineParser, Text } from './fields.js';
import { lineKind } from './kind.js';
import { References } from './references.js';
import { changedColumns, inLineTransaction, isEmpty, type Outcome } from './write.js';
import { findQuote, insertQuote, updateQuote } from './quotes.repository.js';

// Quotes shown with a product or a person (an author's words). A quote has no updated_at: an
// update changes the row alone.

const QuoteLine = Type.Object(
  {
    code: Code(),
    product: Type.Optional(Type.Union([Code('product code'), Type.Null()])),
    person: Type.Optional(Type.Union([Code('person code'), Type.Null()])),
    language: Type.Union([Type.Literal('et'), Type.Literal('en'), Type.Literal('ru')]),
    text: Text(10_000, 1),
  },
  { additionalProperties: false },
);
type QuoteLine = Static<typeof QuoteLine>;

export const quotesKind = lineKind('import quotes <file.ndjson>         quotes of products and persons', ({ db, clock, log }) => {
  const refs = new References(db);
  return {
    parse: lineParser(QuoteLine, (line) => {
      if (!line.product && !line.person) throw new LineError('(line): give product, person or both');
      return line;
    }),
    async apply(line: QuoteLine) {
      const wanted = {
        product_id: await refs.optional('product', line.product, 'product'),
        person_id: await refs.optional('person', line.person, 'person'),
        language: line.language,
        text: line.text,
      };
      return inLineTransaction(db, log, async (trx): Promise<Outcome> => {
        const stored = await findQuote(trx, line.code);
        if (!stored) {
          await insertQuote(trx, { code: line.code, ...wanted, created_at: clock.now() });
          return 'created';
        }
        const diff = changedColumns(stored, wanted);
        if (isEmpty(diff)) return 'unchanged';
        await updateQuote(trx, stored.id, diff);
        return 'updated';
      });
    },
  };
});
