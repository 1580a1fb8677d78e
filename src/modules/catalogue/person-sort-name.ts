// A person's sort name: how a bookshop's author index files them, by surname. Every writer of
// persons (the persons import, the demo data, the tests' catalogues) derives it with this when it is
// not given; migration 2026_12_02_0130 filled the rows before it with the rule in SQL, 2026_12_02_0300
// the rows with a note after the name (below) again, with this rule in SQL, and 2026_12_02_0600 the
// rows with more than one note after the name, with this rule in TypeScript.

/**
 * "Surname, Given names": the last word first ("A. H. Tammsaare" -> "Tammsaare, A. H."). A name
 * that holds a comma is taken as written that way already, and a name of one word is itself. Words
 * are separated by spaces (a no-break space keeps two words together); spaces at the ends are dropped.
 *
 * Notes in parentheses at the end (years, a role: "Juhan Liiv (1864-1913)", "Jaan Kross (1920-2007)
 * (tõlkija)") are no part of the surname: the rule files the name before them and keeps them after
 * ("Liiv, Juhan (1864-1913)", "Kross, Jaan (1920-2007) (tõlkija)"), so the letter L finds him. A note
 * is a "(", text without parentheses and a ")", after a space; the notes are the whole run of them
 * that ends the name, as written. A name of a note alone, or of notes inside notes, is filed as the
 * rule files it without one; so is a note inside the name ("Jaan (Johannes) Kross").
 */
export function personSortName(name: string): string {
  const trimmed = name.replace(/^ +| +$/g, '');
  const { filed, notes } = splitNotes(trimmed);
  const sorted = surnameFirst(filed);
  return notes === '' ? sorted : `${sorted} ${notes}`;
}

/**
 * The run of notes that ends the name: the leftmost match is the longest run, spaces before it
 * included, so what is before it ends in no space. It never starts the name, which starts with no space.
 */
const TRAILING_NOTES = /(?: +\([^()]*\))+$/;

/** The name before the notes at its end, and the notes (empty: none). */
function splitNotes(trimmed: string): { filed: string; notes: string } {
  const found = TRAILING_NOTES.exec(trimmed);
  if (found === null) return { filed: trimmed, notes: '' };
  return { filed: trimmed.slice(0, found.index), notes: found[0].replace(/^ +/, '') };
}

function surnameFirst(trimmed: string): string {
  const lastSpace = trimmed.lastIndexOf(' ');
  if (trimmed.includes(',') || lastSpace < 0) return trimmed;
  return `${trimmed.slice(lastSpace + 1)}, ${trimmed.slice(0, lastSpace).replace(/ +$/, '')}`;
}

/**
 * Whether the author index files a person of this sort name under a letter: GET /author's `letter`
 * is the sort name's first character (folded to either case, spaces trimmed from it), so a sort name
 * that begins with anything but a letter ("(1920-2007), Jaan Kross", a space) is under no letter a
 * reader picks and is found only by `q`.
 */
export function isFiledUnderALetter(sortName: string): boolean {
  return /^\p{L}/u.test(sortName);
}
