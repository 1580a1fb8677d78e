import { sql, type Kysely, type RawBuilder } from 'kysely';

// A person's name may end in a note in parentheses, years or a role: "Juhan Liiv (1864-1913)",
// "Jaan Kross (tõlkija)". Migration 2026_12_02_0130's rule took the note for the surname and filed
// them as "(1864-1913), Juhan Liiv", under no letter of the author index. The catalogue's
// personSortName now files the name before the note and keeps the note after it: "Liiv, Juhan
// (1864-1913)". The note: the text from the name's last "(" to its end, after a space, ending in
// its only ")".
//
// Every person whose sort name is the one the old rule derived from their name gets the new rule's,
// in SQL of both engines; a sort name the persons import gave (any other) is kept. Both rules are
// written here as they are at this migration, not imported: a migration stays what it was.
//
// The last "(" is found as 0130 finds the last space: rtrim by the set of the name's other
// characters stops at it.

const trimmed = sql`trim(name)`;

/** The old rule, and the new one's part for a name without a note: the last word first. */
function surnameFirst(filed: RawBuilder<unknown>) {
  const withoutLastWord = sql`rtrim(${filed}, replace(${filed}, ' ', ''))`;
  return sql`case when ${filed} like '%,%' or ${filed} not like '% %' then ${filed}
    else substr(${filed}, length(${withoutLastWord}) + 1) || ', ' || rtrim(${withoutLastWord}, ' ') end`;
}

const oldSortName = surnameFirst(trimmed);

const open = sql`length(rtrim(${trimmed}, replace(${trimmed}, '(', '')))`;
const note = sql`substr(${trimmed}, ${open})`;
const filed = sql`rtrim(substr(${trimmed}, 1, ${open} - 1), ' ')`;
// After a space, and its only ")" its last character (without instr, which PostgreSQL lacks).
const hasNote = sql`${open} > 1 and substr(${trimmed}, ${open} - 1, 1) = ' ' and ${trimmed} like '%)'
  and length(replace(${note}, ')', '')) = length(${note}) - 1`;
const newSortName = sql`case when ${hasNote} then ${surnameFirst(filed)} || ' ' || ${note} else ${oldSortName} end`;

export async function up(db: Kysely<any>): Promise<void> {
  await refile(db, oldSortName, newSortName);
}

export async function down(db: Kysely<any>): Promise<void> {
  await refile(db, newSortName, oldSortName);
}

/** Gives the `to` rule's sort name to every person whose sort name is the `from` rule's. */
async function refile(db: Kysely<any>, from: RawBuilder<unknown>, to: RawBuilder<unknown>): Promise<void> {
  await db
    .updateTable('person')
    .set({ sort_name: to })
    .where(sql<boolean>`sort_name = ${from} and sort_name <> ${to}`)
    .execute();
}
