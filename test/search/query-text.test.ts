import { describe, expect, it } from 'vitest';
import { tsQuery } from '../../src/modules/search/postgres-engine.js';
import {
  fold,
  indexText,
  isOneLetterWordList,
  MAX_QUERY_CHARS,
  MAX_TERMS,
  parseQuery,
  parseTerms,
  productCodes,
} from '../../src/modules/search/query-text.js';
import { ftsQuery } from '../../src/modules/search/sqlite-engine.js';

// The one normaliser of documents and queries, and the engine syntax built from its terms.

describe('folding', () => {
  it('lower-cases and removes diacritics, Estonian letters included', () => {
    expect(fold('Tõde ja ÕIGUS')).toBe('tode ja oigus');
    expect(fold('Šokolaad, žürii, äädikas, öö, üks')).toBe('sokolaad, zurii, aadikas, oo, uks');
    expect(fold('Ёлка Йошкар-Ола')).toBe('елка иошкар-ола');
    expect(fold('Straße Æsop Œuvre Øresund Łódź')).toBe('strasse aesop oeuvre oresund lodz');
    expect(fold('ﬁnal ½')).toBe('final 1⁄2');
  });

  it('keeps only letters and digits as terms', () => {
    expect(indexText('Tõde ja õigus. I osa', null, '"A. H." Tammsaare')).toBe('tode ja oigus i osa a h tammsaare');
    expect(indexText("O'Brien — 1984!")).toBe('o brien 1984');
  });
});

describe('parsing a query', () => {
  it('is nothing when blank', () => {
    expect(parseQuery(undefined)).toEqual({ kind: 'none' });
    expect(parseQuery('   ')).toEqual({ kind: 'none' });
  });

  it('makes the last word a prefix only while it is being typed', () => {
    expect(parseQuery('tõde ja õi')).toEqual({ kind: 'text', terms: ['tode', 'ja', 'oi'], prefix: true, titleKey: 'tode ja oi' });
    expect(parseQuery('tõde ja õi ')).toEqual({ kind: 'text', terms: ['tode', 'ja', 'oi'], prefix: false, titleKey: 'tode ja oi' });
    expect(parseQuery('tõde.')).toEqual({ kind: 'text', terms: ['tode'], prefix: false, titleKey: 'tode' });
    // A lone letter is no prefix, on its own or beside other words (there it is dropped: see below).
    expect(parseQuery('t')).toEqual({ kind: 'text', terms: ['t'], prefix: false, titleKey: 't' });
    expect(parseQuery('harry p')).toEqual({ kind: 'text', terms: ['harry'], prefix: false, titleKey: 'harry p' });
    expect(parseQuery('harry po')).toEqual({ kind: 'text', terms: ['harry', 'po'], prefix: true, titleKey: 'harry po' });
  });

  it('drops repeated terms and terms past the limit, and cuts long text', () => {
    expect(parseQuery('tõde Tõde TÕDE')).toEqual({ kind: 'text', terms: ['tode'], prefix: true, titleKey: 'tode tode tode' });
    const many = parseTerms(Array.from({ length: 20 }, (_, i) => `w${i}`).join(' '));
    expect(many.terms).toHaveLength(MAX_TERMS);
    expect(many.prefix).toBe(false);
    expect(parseTerms('a'.repeat(MAX_QUERY_CHARS * 5)).terms).toEqual(['a'.repeat(MAX_QUERY_CHARS)]);
  });

  it('drops one-letter words beside longer ones, keeps single digits, and tells a list of one-letter words', () => {
    expect(parseQuery('a b c tõde h')).toEqual({ kind: 'text', terms: ['tode'], prefix: false, titleKey: 'a b c tode h' });
    expect(parseQuery('harry potter 7')).toEqual({
      kind: 'text',
      terms: ['harry', 'potter', '7'],
      prefix: false,
      titleKey: 'harry potter 7',
    });
    expect(parseQuery('a b c d e f g h')).toEqual({
      kind: 'text',
      terms: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
      prefix: false,
      titleKey: 'a b c d e f g h',
    });
    expect(isOneLetterWordList('a b c d e f g h')).toBe(true);
    expect(isOneLetterWordList('[a-z]')).toBe(true);
    expect(isOneLetterWordList('a')).toBe(false);
    expect(isOneLetterWordList('a bc')).toBe(false);
    expect(isOneLetterWordList('1 2 3')).toBe(false);
    expect(isOneLetterWordList(undefined)).toBe(false);
  });

  it('has no terms for punctuation only', () => {
    expect(parseQuery('!!! "" ***')).toEqual({ kind: 'text', terms: [], prefix: false, titleKey: '' });
  });
});

describe('EAN and ISBN', () => {
  it('recognises EAN-13, EAN-8, ISBN-13 and ISBN-10 with hyphens, spaces and a label', () => {
    expect(productCodes('978-9949-0-1234-3')).toEqual(['9789949012343', '9949012341']);
    expect(productCodes('ISBN: 9949012341')).toEqual(['9789949012343', '9949012341']);
    expect(productCodes('0-306-40615-2')).toEqual(['9780306406157', '0306406152']);
    expect(productCodes('080442957x')).toEqual(['9780804429573', '080442957X']);
    expect(productCodes('4006381333931')).toEqual(['4006381333931']);
    expect(productCodes('9638 5555')).toEqual(['96385555']);
    expect(productCodes('1984')).toBeUndefined();
    expect(productCodes('97899490123456')).toBeUndefined();
    expect(parseQuery('978 9949 0 1234 3')).toEqual({ kind: 'codes', codes: ['9789949012343', '9949012341'] });
  });
});

describe('engine syntax', () => {
  const hostile = parseTerms('"tõde" OR NEAR(a b) {title}: x* \' ) -- ^y & z | !w <-> :* \\');
  it('quotes every term for FTS5, so operators and column filters are plain words', () => {
    // One-letter words (a, b, x, y, ...) are dropped beside longer ones.
    expect(ftsQuery(hostile)).toBe('"tode" "or" "near" "title"');
    expect(ftsQuery({ terms: ['tode', 'oi'], prefix: true })).toBe('"tode" "oi"*');
  });

  it('quotes every term as a lexeme for to_tsquery, joined with &', () => {
    expect(tsQuery(hostile)).toBe("'tode' & 'or' & 'near' & 'title'");
    expect(tsQuery({ terms: ['tode', 'oi'], prefix: true })).toBe("'tode' & 'oi':*");
  });

  it('never lets a quote, operator or backslash into a term', () => {
    for (const term of parseTerms('a"b\'c\\d*e:f&g|h!i(j)k{l}m^n-o+p~q<r>s').terms) expect(term).toMatch(/^[\p{L}\p{N}]+$/u);
  });
});
