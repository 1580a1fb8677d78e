// A person's sort name: how a bookshop's author index files them, by surname. Every writer of
// persons (the persons import, the demo data, the tests' catalogues) derives it with this when it is
// not given; migration 2026_12_02_0130 filled the rows before it with the same rule in SQL.

/**
 * "Surname, Given names": the last word first ("A. H. Tammsaare" -> "Tammsaare, A. H."). A name
 * that holds a comma is taken as written that way already, and a name of one word is itself. Words
 * are separated by spaces (a no-break space keeps two words together); spaces at the ends are dropped.
 */
export function personSortName(name: string): string {
  const trimmed = name.replace(/^ +| +$/g, '');
  const lastSpace = trimmed.lastIndexOf(' ');
  if (trimmed.includes(',') || lastSpace < 0) return trimmed;
  return `${trimmed.slice(lastSpace + 1)}, ${trimmed.slice(0, lastSpace).replace(/ +$/, '')}`;
}
