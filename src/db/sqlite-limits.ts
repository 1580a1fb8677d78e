/**
 * Writes the integer bound to a `limit ?` into the SQL text. SQLite (3.47 and later; the bundled one is
 * 3.53) reads a bound LIMIT's value while it plans (sqlite3ExprIsInteger on a variable), which marks the
 * statement as one whose plan depends on that parameter: every new binding expires it, so a cached
 * statement with `limit ?` is compiled again on every run, as with STAT4 samples (sqlite-statistics.ts).
 * Kysely binds every `.limit(n)`, so every page read paid a whole prepare (measured on better-sqlite3: a
 * small indexed page 15 -> 20 µs; a common word's search statements 50-70 µs each). An integer literal
 * means the same to SQLite, and a list's page sizes are few, so the statement cache holds one statement
 * per size (up to TEXTS_PER_QUERY of them). Only values that are integers are written; anything else stays
 * bound as it was.
 */

/** A text's `limit ?` parameters: the text cut around them and their places among the parameters. */
interface LimitPlaces {
  pieces: string[];
  indexes: number[];
  /**
   * The texts written so far, by their limits: the same string each time, so the statement cache's
   * look-up does not join and hash a text of kilobytes anew on every run.
   */
  texts: Map<string, string>;
}

/**
 * Page sizes and caps are few, but a walk's remainder (`need`) can be any of 1-100: past this many texts
 * of one query a new value stays bound (compiled again each run, as before), so the statement caches
 * hold at most this many texts of a query.
 */
const TEXTS_PER_QUERY = 16;

const MARK = 'limit ?';
const analysed = new Map<string, LimitPlaces | null>();
/** Texts come from code (a bounded set); the limit guards against a caller that builds texts from values. */
const ANALYSED_LIMIT = 2000;

export interface BoundQuery {
  sql: string;
  parameters: readonly unknown[];
}

/** The query with the integers of its `limit ?`s written into the text, or the same query when it has none. */
export function inlineLimits(sql: string, parameters: readonly unknown[]): BoundQuery {
  if (!sql.includes(MARK)) return { sql, parameters };
  let places = analysed.get(sql);
  if (places === undefined) {
    places = limitPlaces(sql);
    if (analysed.size >= ANALYSED_LIMIT) analysed.clear();
    analysed.set(sql, places);
  }
  if (places === null) return { sql, parameters };
  let key = '';
  for (const index of places.indexes) {
    const value = parameters[index];
    if (!(typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value)))) return { sql, parameters };
    key += `${value} `;
  }
  let text = places.texts.get(key);
  if (text === undefined) {
    if (places.texts.size >= TEXTS_PER_QUERY) return { sql, parameters };
    const limits = key.split(' ');
    text = places.pieces.reduce((written, piece, k) => written + limits[k - 1] + piece);
    places.texts.set(key, text);
  }
  return { sql: text, parameters: parameters.filter((_, index) => !places.indexes.includes(index)) };
}

/**
 * Where the text's `limit ?` parameters are, counting every `?` outside quoted strings, quoted names and
 * comments (Kysely writes each parameter as a plain `?`); null when there is none.
 */
export function limitPlaces(sql: string): LimitPlaces | null {
  const pieces: string[] = [];
  const indexes: number[] = [];
  let parameter = 0;
  let pieceStart = 0;
  for (let at = 0; at < sql.length; at += 1) {
    const char = sql[at];
    if (char === "'" || char === '"' || char === '`') {
      at = closingQuote(sql, at, char);
    } else if (char === '-' && sql[at + 1] === '-') {
      const end = sql.indexOf('\n', at);
      at = end < 0 ? sql.length : end;
    } else if (char === '/' && sql[at + 1] === '*') {
      const end = sql.indexOf('*/', at + 2);
      at = end < 0 ? sql.length : end + 1;
    } else if (char === '?') {
      if (/\d/.test(sql[at + 1] ?? '')) return null; // ?NNN: numbered parameters are not counted this way
      if (at >= MARK.length - 1 && sql.startsWith(MARK, at - MARK.length + 1) && !isWordChar(sql[at - MARK.length])) {
        pieces.push(sql.slice(pieceStart, at));
        indexes.push(parameter);
        pieceStart = at + 1;
      }
      parameter += 1;
    }
  }
  if (indexes.length === 0) return null;
  pieces.push(sql.slice(pieceStart));
  return { pieces, indexes, texts: new Map() };
}

/** The index of the quote that closes the one at `start` (a doubled quote is part of the text). */
function closingQuote(sql: string, start: number, quote: string): number {
  let at = start + 1;
  for (;;) {
    const end = sql.indexOf(quote, at);
    if (end < 0) return sql.length;
    if (sql[end + 1] !== quote) return end;
    at = end + 2;
  }
}

const isWordChar = (char: string | undefined) => char !== undefined && /[\w$]/.test(char);
