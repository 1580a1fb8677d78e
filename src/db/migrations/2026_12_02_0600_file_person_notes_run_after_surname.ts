import { sql, type Kysely } from 'kysely';

// A person's name may end in more than one note in parentheses: "Jaan Kross (1920-2007) (tõlkija)".
// Migration 2026_12_02_0300's rule set apart only the last note and took the one before for the
// surname: "(1920-2007), Jaan Kross (tõlkija)", under no letter of the author index. The catalogue's
// personSortName now sets apart the whole run of notes that ends the name (each a "(", text without
// parentheses and a ")", after a space) and files the name before it: "Kross, Jaan (1920-2007) (tõlkija)".
//
// Every person whose sort name is the one the old rule derived from their name gets the new rule's; a
// sort name the persons import gave (any other) is kept. Both rules are written here as they are at
// this migration, not imported: a migration stays what it was (the old one as personSortName had it,
// which 0300's SQL agrees with, its test shows). Down gives the old rule's back to every row whose sort
// name is the new rule's, as 0300's down does: one the import gave that is the new rule's goes back too.
//
// In TypeScript, not SQL: a run of notes of any length is a loop, which SQL of both engines (SQLite has
// no regular expressions, PostgreSQL no instr) could only write as a recursive query per name, with the
// rtrim-by-set tricks of 0130 and 0300 at each step, where these rules are a regular expression each.
// The rows are read in pages by id (keyset: each page from the last id of the one before, never the
// whole table at once), only those whose name the rules can tell apart (below), and a page's changed rows
// are written by one update, conditional row by row: on SQLite, which runs a migration outside a
// transaction, a run stopped midway leaves each row at one rule or the other, and running it again finishes it.

/** Persons read at once (exported for the test that reads more than a page). */
export const PAGE_ROWS = 1000;

/** The rule before this migration: only the last note at the end set apart. */
function oldSortName(name: string): string {
  const trimmed = name.replace(/^ +| +$/g, '');
  const open = trimmed.lastIndexOf('(');
  const note = trimmed.slice(open);
  const isNote = open > 0 && trimmed[open - 1] === ' ' && note.indexOf(')') === note.length - 1;
  if (!isNote) return surnameFirst(trimmed);
  return `${surnameFirst(trimmed.slice(0, open).replace(/ +$/, ''))} ${note}`;
}

/** The rule now: the whole run of notes at the end set apart, as written. */
function newSortName(name: string): string {
  const trimmed = name.replace(/^ +| +$/g, '');
  const notes = /(?: +\([^()]*\))+$/.exec(trimmed);
  if (notes === null) return surnameFirst(trimmed);
  return `${surnameFirst(trimmed.slice(0, notes.index))} ${notes[0].replace(/^ +/, '')}`;
}

/** Both rules' part for a name without notes: the last word first. */
function surnameFirst(trimmed: string): string {
  const lastSpace = trimmed.lastIndexOf(' ');
  if (trimmed.includes(',') || lastSpace < 0) return trimmed;
  return `${trimmed.slice(lastSpace + 1)}, ${trimmed.slice(0, lastSpace).replace(/ +$/, '')}`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await refile(db, oldSortName, newSortName);
}

export async function down(db: Kysely<any>): Promise<void> {
  await refile(db, newSortName, oldSortName);
}

interface PersonRow {
  id: number | string;
  name: string;
  sort_name: string;
}

/** Gives the `to` rule's sort name to every person whose sort name is the `from` rule's. */
async function refile(db: Kysely<any>, from: (name: string) => string, to: (name: string) => string): Promise<void> {
  let after: number | string = 0;
  let page: PersonRow[];
  do {
    // The rules differ only where the run has two notes or more, so where the name holds ") " (a note
    // and the space before the next): only those rows come out of the database.
    page = await db
      .selectFrom('person')
      .select(['id', 'name', 'sort_name'])
      .where('id', '>', after)
      .where(sql<boolean>`name like '%) %'`)
      .orderBy('id')
      .limit(PAGE_ROWS)
      .execute();
    const changed = page.flatMap((person) => {
      const wanted = to(person.name);
      return person.sort_name !== from(person.name) || person.sort_name === wanted ? [] : [{ ...person, wanted }];
    });
    if (changed.length > 0) {
      // One statement a page (one a row: the test's three runs over 1,005 rows took 3.5 s on
      // PostgreSQL), conditional row by row: a sort name written since the page was read is not
      // overwritten. VALUES' columns are column1, column2, ... on both engines.
      const rows = sql.join(changed.map((person) => sql`(cast(${person.id} as bigint), ${person.sort_name}, ${person.wanted})`));
      await sql`update person set sort_name = v.column3 from (values ${rows}) as v
        where person.id = v.column1 and person.sort_name = v.column2`.execute(db);
    }
    after = page.at(-1)?.id ?? after;
  } while (page.length === PAGE_ROWS);
}
