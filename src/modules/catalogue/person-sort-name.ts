// A person's sort name: how a bookshop's author index files them, by surname. Every writer of
// persons (the persons import, the demo data, the tests' catalogues) derives it with this when it is
// not given; migration 2026_12_02_0130 filled the rows before it with the rule in SQL, and
// 2026_12_02_0300 the rows with a note after the name (below) again, with this rule in SQL.

/**
 * "Surname, Given names": the last word first ("A. H. Tammsaare" -> "Tammsaare, A. H."). A name
 * that holds a comma is taken as written that way already, and a name of one word is itself. Words
 * are separated by spaces (a no-break space keeps two words together); spaces at the ends are dropped.
 *
 * A note in parentheses at the end (years, a role: "Juhan Liiv (1864-1913)") is no part of the
 * surname: the rule files the name before it and keeps the note after ("Liiv, Juhan (1864-1913)"),
 * so the letter L finds him. The note is the text from the name's last "(" to its end, after a
 * space, ending in its only ")"; a name of a note alone, or of notes inside notes, is filed as the
 * rule files it without one. Only the last note is set apart: a name the rule gets wrong is given
 * its sort name by the import.
 */
export function personSortName(name: string): string {
  const trimmed = name.replace(/^ +| +$/g, '');
  const { filed, note } = splitNote(trimmed);
  const sorted = surnameFirst(filed);
  return note === '' ? sorted : `${sorted} ${note}`;
}

/** The name before a note at its end, and the note (empty: none). */
function splitNote(trimmed: string): { filed: string; note: string } {
  const open = trimmed.lastIndexOf('(');
  const note = trimmed.slice(open);
  const filed = trimmed.slice(0, open).replace(/ +$/, '');
  const isNote = open > 0 && trimmed[open - 1] === ' ' && note.indexOf(')') === note.length - 1;
  return isNote ? { filed, note } : { filed: trimmed, note: '' };
}

function surnameFirst(trimmed: string): string {
  const lastSpace = trimmed.lastIndexOf(' ');
  if (trimmed.includes(',') || lastSpace < 0) return trimmed;
  return `${trimmed.slice(lastSpace + 1)}, ${trimmed.slice(0, lastSpace).replace(/ +$/, '')}`;
}
