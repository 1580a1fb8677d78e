import { Type } from '@sinclair/typebox';

export const ImportParams = Type.Object({
  kind: Type.String({
    maxLength: 40,
    description:
      'What the lines are: publishers, persons, series, categories, shops, products, stock, prices, campaigns, product-lists, quotes, users, ...',
  }),
});

export const ImportQuery = Type.Object({
  force: Type.Optional(
    Type.Boolean({ description: 'Run past a safety check, e.g. a product feed that deactivates more than half of the catalogue' }),
  ),
});

export const AdminHeaders = Type.Object({
  authorization: Type.Optional(Type.String({ description: 'Bearer <operator API key> (see `api-key add`)' })),
});

/** How many bad lines an answer lists at most; `errorCount` counts them all. */
export const IMPORT_ERRORS_LISTED = 1000;

export const ImportResult = Type.Object(
  {
    lines: Type.Integer({ description: 'Lines read' }),
    outcomes: Type.Record(Type.String(), Type.Integer(), {
      description: 'Count per outcome: created, updated, unchanged, deactivated, ...',
    }),
    errors: Type.Array(
      Type.Object({
        line: Type.Integer({
          description: 'The line, or 0 for a step after the last line (the product feed deactivating what it does not list)',
        }),
        message: Type.String(),
      }),
      {
        maxItems: IMPORT_ERRORS_LISTED,
        description: `Bad lines, each skipped whole, and steps of no line that failed (line 0): the first ${IMPORT_ERRORS_LISTED}, in the order they were found; a failed step is listed even past that, in the last bad line's place`,
      },
    ),
    errorCount: Type.Integer({
      description: 'How many lines were bad and steps failed in all (more than are listed in `errors` when over the limit)',
    }),
  },
  { description: 'The import ran; bad lines (if any) are listed and were skipped' },
);
