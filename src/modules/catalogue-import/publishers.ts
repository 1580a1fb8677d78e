import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { ImportKind } from '../../infra/import/index.js';
import { isFiledUnderALetter, personSortName } from '../catalogue/index.js';
import { Code, LineError, Name, Text, lineParser } from './fields.js';
import { lineKind } from './kind.js';
import { References } from './references.js';
import { inLineTransaction, upsertByCode, type RecordColumns } from './write.js';

// Publishers, series and persons: named things products refer to by code.

const Description = Type.Optional(Type.Union([Text(20_000), Type.Null()]));

const PublisherLine = Type.Object({ code: Code(), name: Name(), description: Description }, { additionalProperties: false });
const SeriesLine = Type.Object(
  { code: Code(), name: Name(), publisher: Type.Optional(Type.Union([Code('publisher code'), Type.Null()])), description: Description },
  { additionalProperties: false },
);
const PersonLine = Type.Object(
  {
    code: Code(),
    name: Name(),
    // For a name the surname-last rule files wrongly ("Ludwig van Beethoven": "Beethoven, Ludwig van").
    sortName: Type.Optional(Name(201)),
    description: Description,
    imageUrl: Type.Optional(Type.Union([Type.String({ maxLength: 500, pattern: '^https?://\\S+$' }), Type.Null()])),
  },
  { additionalProperties: false },
);

/**
 * A kind of named records: each line upserts one row of `table` by its code. `check` refuses a line
 * its schema lets through (throwing LineError), before anything is looked up.
 */
function namedKind<S extends TObject, T extends 'publisher' | 'series' | 'person'>(
  usage: string,
  table: T,
  schema: S,
  columns: (line: Static<S>, refs: References) => Promise<RecordColumns<T>> | RecordColumns<T>,
  check: (line: Static<S>) => void = () => undefined,
): ImportKind {
  return lineKind(usage, ({ db, clock, log }) => {
    const refs = new References(db);
    return {
      parse: lineParser(schema, (line) => {
        check(line);
        return line;
      }),
      async apply(line: Static<S>) {
        // References are looked up before the line's transaction begins (see References).
        const wanted = await columns(line, refs);
        return inLineTransaction(
          db,
          log,
          async (trx) => (await upsertByCode(trx, table, (line as { code: string }).code, wanted, clock.now())).outcome,
        );
      },
    };
  });
}

export const publishersKind = namedKind('import publishers <file.ndjson>     publishers', 'publisher', PublisherLine, (line) => ({
  name: line.name,
  description: line.description ?? null,
}));

export const seriesKind = namedKind(
  'import series <file.ndjson>         book series (of a publisher)',
  'series',
  SeriesLine,
  async (line, refs) => ({
    name: line.name,
    publisher_id: await refs.optional('publisher', line.publisher, 'publisher'),
    description: line.description ?? null,
  }),
);

export const personsKind = namedKind(
  'import persons <file.ndjson>        authors, illustrators, translators, readers...',
  'person',
  PersonLine,
  (line) => ({
    name: line.name,
    sort_name: line.sortName ?? personSortName(line.name),
    description: line.description ?? null,
    image_url: line.imageUrl ?? null,
  }),
  checkSortName,
);

/**
 * A sort name given is stored as it is, so one the author index files under no letter (one that
 * begins with a note, "(1920-2007), Jaan Kross", or a space) would hide the person from every letter.
 */
function checkSortName({ sortName }: Static<typeof PersonLine>): void {
  if (sortName === undefined || isFiledUnderALetter(sortName)) return;
  const code = sortName.codePointAt(0)!;
  const first = String.fromCodePoint(code);
  // Quoted when it shows as itself; a mark or a lone surrogate (which no UTF-8 report can hold) by its number.
  const shown = /^[\p{P}\p{S}\p{N}]$/u.test(first) ? `"${first}"` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const begins = /^\s$/u.test(first) ? 'white space' : shown;
  throw new LineError(`/sortName: must begin with a letter, which the author index files the person under, not with ${begins}`);
}
