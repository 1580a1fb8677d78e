// Values at and just past the edges a schema draws, for the credentialed walk
// (credentialed-walk.test.ts). The bad-input sweep (test/http/bad-input-sweep.test.ts) sends values
// the schema refuses; these are mostly values it lets through, which then reach the database:
// PostgreSQL refuses what SQLite takes (a NUL in text, an integer past 2^31-1 in an `integer`
// column, a string longer than its `varchar(n)`, a date like 2026-02-30, a number past
// 1.8e308), so a value the schema accepts and the column does not is a 500 there and nowhere else.

export type Schema = Record<string, unknown>;

/** A JSON literal spliced into a body as is (numbers JSON.stringify cannot write). */
export class Raw {
  constructor(readonly text: string) {}
}

export interface EdgeValue {
  label: string;
  value: unknown;
}

const INT4_MAX = 2_147_483_647;

/** Follows $ref and takes the first branch of anyOf/oneOf that is not null. */
export function resolved(schema: Schema | undefined, root: Schema): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 10; i++) {
    if (typeof current.$ref === 'string') {
      const path = current.$ref.replace(/^#\//, '').split('/');
      current = path.reduce<Record<string, unknown>>((node, key) => node?.[key] as Record<string, unknown>, root) as Schema;
      continue;
    }
    const list = (current.anyOf ?? current.oneOf) as Schema[] | undefined;
    if (!list) break;
    const branches = list.map((branch) => resolved(branch, root));
    current = branches.find((b) => b.type !== 'null') ?? branches[0]!;
  }
  return current;
}

export function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') as string | undefined;
  if (typeof type === 'string') return type;
  if (schema.properties) return 'object';
  if (Array.isArray(schema.enum)) return typeof schema.enum[0];
  return undefined;
}

/** `count` different CJK letters (three bytes each in UTF-8). */
const differentLetters = (count: number) => Array.from({ length: count }, (_, i) => String.fromCodePoint(0x4e00 + (i % 20_000))).join('');

/** Strings at the length edges: as long as allowed (in ASCII, two-byte and astral letters), then one more. */
function stringEdges(schema: Schema): EdgeValue[] {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const values: EdgeValue[] = [];
  if (max !== undefined) {
    values.push(
      { label: `${max} letters (maxLength)`, value: 'x'.repeat(max) },
      { label: `${max} two-byte letters`, value: 'ä'.repeat(max) },
      { label: `${Math.floor(max / 2)} emoji (maxLength code units)`, value: '📚'.repeat(Math.floor(max / 2)) },
      // Different letters of three bytes each: a b-tree entry holds 2,704 bytes, and repeated ones would compress.
      { label: `${max} different CJK letters`, value: differentLetters(max) },
      { label: `${max + 1} letters`, value: 'x'.repeat(max + 1) },
    );
  } else {
    values.push({ label: '3000 letters (no maxLength)', value: 'x'.repeat(3000) }, { label: '300 letters', value: 'x'.repeat(300) });
  }
  if (min > 0) values.push({ label: `${min - 1} letters`, value: 'x'.repeat(min - 1) });
  values.push(
    { label: 'NUL', value: 'a\u0000b' },
    { label: 'escaped NUL', value: new Raw('"a\\u0000"') },
    { label: 'lone surrogate', value: new Raw('"\\udc00"') },
    { label: 'right-to-left and zero-width', value: '\u202e\u200b\ufeff' },
    { label: 'only spaces', value: ' '.repeat(Math.max(min, 3)) },
    { label: 'tab and newline', value: '\t\n' },
    { label: 'trailing backslash', value: 'raamat\\' },
    { label: 'LIKE wildcards', value: '%_%' },
  );
  switch (schema.format) {
    case 'date':
      values.push(
        { label: 'date 2026-02-30', value: '2026-02-30' },
        { label: 'date 2026-13-01', value: '2026-13-01' },
        { label: 'date 0000-01-01', value: '0000-01-01' },
        { label: 'date 9999-12-31', value: '9999-12-31' },
        { label: 'date +275760', value: '+275760-09-13' },
      );
      break;
    case 'date-time':
      values.push(
        { label: 'date-time 2026-02-30', value: '2026-02-30T10:00:00Z' },
        { label: 'date-time 9999-12-31', value: '9999-12-31T23:59:59Z' },
        { label: 'date-time 0000-01-01', value: '0000-01-01T00:00:00Z' },
        { label: 'date-time hour 24', value: '2026-11-29T24:00:00Z' },
        { label: 'date-time leap second', value: '2026-12-31T23:59:60Z' },
        { label: 'date-time +14:00', value: '2026-11-29T12:00:00+14:00' },
      );
      break;
    case 'email':
      values.push(
        { label: 'email 254 long', value: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.ee` },
        { label: 'email unicode', value: 'õun@näide.ee' },
        { label: 'email quoted', value: '"a b"@example.ee' },
      );
      break;
  }
  return values;
}

function numberEdges(schema: Schema, integer: boolean): EdgeValue[] {
  const values: EdgeValue[] = [];
  const add = (label: string, value: unknown) => values.push({ label, value });
  if (typeof schema.maximum === 'number') add(`maximum ${schema.maximum}`, schema.maximum);
  if (typeof schema.minimum === 'number') add(`minimum ${schema.minimum}`, schema.minimum);
  add('2^31-1', INT4_MAX);
  add('2^31', INT4_MAX + 1);
  add('-2^31-1', -INT4_MAX - 2);
  add('2^53-1', Number.MAX_SAFE_INTEGER);
  add('2^63', new Raw('9223372036854775808'));
  add('-0', new Raw('-0'));
  add('1.0', new Raw('1.0'));
  add('1e2', new Raw('1e2'));
  add('1.5', 1.5);
  add('1e309 (Infinity)', new Raw('1e309'));
  if (!integer) {
    add('1e308', new Raw('1e308'));
    add('5e-324', new Raw('5e-324'));
    add('0.005', 0.005);
    add('12345678901.999', 12345678901.999);
  }
  return values;
}

/** The edge values of one body field's schema. */
export function fieldEdges(schema: Schema, root: Schema): EdgeValue[] {
  const type = typeOf(schema);
  if (Array.isArray(schema.enum)) return [{ label: 'enum value with a NUL', value: `${String(schema.enum[0])}\u0000` }];
  switch (type) {
    case 'string':
      return stringEdges(schema);
    case 'integer':
      return numberEdges(schema, true);
    case 'number':
      return numberEdges(schema, false);
    case 'boolean':
      return [
        { label: 'string true', value: 'true' },
        { label: 'number 1', value: 1 },
      ];
    case 'array': {
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : undefined;
      const items = resolved(schema.items as Schema, root);
      const item = sampleOf(items, root);
      return [
        { label: `${max ?? 1000} items`, value: Array.from({ length: max ?? 1000 }, () => item) },
        { label: `${(max ?? 1000) + 1} items`, value: Array.from({ length: (max ?? 1000) + 1 }, () => item) },
        { label: 'an item with a NUL', value: [typeof item === 'string' ? `${item}\u0000` : item, 'a\u0000'] },
        { label: 'items of 2^31', value: [INT4_MAX + 1] },
      ];
    }
    case 'object':
      return [
        { label: 'array for object', value: [] },
        { label: 'object with __proto__ key', value: new Raw('{"__proto__":{"admin":true}}') },
      ];
    default:
      return [{ label: 'NUL', value: 'a\u0000b' }];
  }
}

/** A small valid value of a schema: its required properties, a string of its format and length. */
export function sampleOf(input: Schema, root: Schema = {}): unknown {
  const schema = resolved(input, root);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => sampleOf(schema.items as Schema, root));
    case 'object': {
      const required = new Set((schema.required ?? []) as string[]);
      const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
      const chosen = properties.filter(([name], i) => required.has(name) || i < Number(schema.minProperties ?? 0));
      return Object.fromEntries(chosen.map(([name, property]) => [name, sampleOf(property, root)]));
    }
    default:
      if (schema.format === 'email') return 'walk@example.ee';
      if (schema.format === 'date') return '2026-11-30';
      if (schema.format === 'date-time') return '2026-11-30T10:00:00Z';
      return 'x'.padEnd(Number(schema.minLength ?? 1), 'x');
  }
}

/** Values for a header: as long as allowed and longer, latin1 and odd spellings (a header holds no NUL). */
export function headerEdges(schema: Schema): EdgeValue[] {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 3000;
  return [
    { label: `${max} letters`, value: 'x'.repeat(max) },
    { label: `${max + 1} letters`, value: 'x'.repeat(max + 1) },
    { label: '101 letters', value: 'x'.repeat(101) },
    { label: '201 letters', value: 'x'.repeat(201) },
    { label: 'latin1', value: 'ÿþ' },
    { label: '2^31', value: '2147483648' },
    { label: 'spaces', value: '   ' },
  ];
}

/** Values for a path or query parameter (text, as sent): numbers past the int4 and safe ranges, odd spellings, dates. */
export function parameterEdges(schema: Schema): EdgeValue[] {
  const type = typeOf(schema);
  const values: EdgeValue[] = [
    { label: '2^31', value: '2147483648' },
    { label: '2^31-1', value: '2147483647' },
    { label: '-2^31-1', value: '-2147483649' },
    { label: '2^53+1', value: '9007199254740993' },
    { label: '2^63', value: '9223372036854775808' },
    { label: '-0', value: '-0' },
    { label: '1.0', value: '1.0' },
    { label: '1e2', value: '1e2' },
    { label: '+1', value: '+1' },
    { label: '1e309', value: '1e309' },
    { label: 'NUL', value: 'a\u0000b' },
    { label: 'date 2026-02-30', value: '2026-02-30' },
    { label: 'export time 2026-02-30', value: '2026-02-30 10:00:00' },
    { label: 'export time 24:00', value: '2026-11-29 24:00:00' },
    { label: 'export time year 0', value: '0000-01-01 00:00:00' },
    { label: 'export time year 9999', value: '9999-12-31 23:59:59' },
    { label: 'emoji', value: '📚' },
    { label: 'trailing backslash', value: 'raamat\\' },
    { label: 'LIKE wildcards', value: '%_%' },
    { label: 'quote', value: "o'" },
    { label: 'half a cent', value: '0.005' },
    { label: '1e-7', value: '1e-7' },
    { label: '5e-324', value: '5e-324' },
  ];
  if (type === 'string') {
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
    if (max !== undefined) values.push({ label: `${max} letters (maxLength)`, value: 'x'.repeat(max) });
    else values.push({ label: '3000 letters (no maxLength)', value: 'x'.repeat(3000) });
    values.push({ label: '101 letters', value: 'x'.repeat(101) }, { label: '201 letters', value: 'x'.repeat(201) });
  }
  if (schema.format === 'date-time') {
    values.push(
      { label: 'date-time leap second', value: '2026-12-31T23:59:60Z' },
      { label: 'date-time offset +03', value: '2026-11-29T12:00:00+03' },
      { label: 'date-time year 0', value: '0000-01-01T00:00:00Z' },
      { label: 'date-time 9999-12-31', value: '9999-12-31T23:59:59Z' },
    );
  }
  if (typeof schema.maximum === 'number') values.push({ label: `maximum ${schema.maximum}`, value: String(schema.maximum) });
  return values;
}

/** JSON text with Raw values spliced in. */
export function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_, index: string) => raws[Number(index)]!);
}

/** mulberry32: a fixed seed gives the same sample on every run. */
export function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** The lengths of the varchar columns (a string one longer than each is tried too). */
const VARCHAR_LENGTHS = [
  1, 2, 3, 4, 5, 8, 10, 12, 16, 20, 24, 30, 32, 40, 50, 60, 64, 80, 100, 128, 160, 200, 254, 255, 256, 300, 320, 500, 1000, 2000,
];

/**
 * Edges of a value where no schema says what it may be (an import line's field): by the valid
 * value's own type, a string as long as each varchar and one longer, dates no engine or Date.parse
 * reads, numbers past int4 and JSON's range.
 */
export function valueEdges(value: unknown): EdgeValue[] {
  if (typeof value === 'string') {
    return [
      ...VARCHAR_LENGTHS.flatMap((n) => [
        { label: `${n} letters`, value: 'x'.repeat(n) },
        { label: `${n + 1} letters`, value: 'x'.repeat(n + 1) },
      ]),
      { label: '201 two-byte letters', value: 'ä'.repeat(201) },
      { label: '1000 different CJK letters', value: differentLetters(1000) },
      // The same first character: a path keeps its "/", and the rest reaches the column.
      { label: 'its first character and 999 different CJK letters', value: `${value.slice(0, 1)}${differentLetters(999)}` },
      { label: 'NUL', value: `${value}\u0000` },
      { label: 'lone surrogate', value: new Raw('"\\ud800"') },
      { label: 'date 2026-02-30', value: '2026-02-30' },
      { label: 'date 0000-01-01', value: '0000-01-01' },
      { label: 'date +275760-09-13', value: '+275760-09-13' },
      { label: 'date-time leap second', value: '2026-12-31T23:59:60Z' },
      { label: 'date-time offset +03', value: '2026-11-29T12:00:00+03' },
      { label: 'date-time 9999-12-31', value: '9999-12-31T23:59:59Z' },
      { label: 'number-like', value: '2147483648' },
    ];
  }
  if (typeof value === 'number') return numberEdges({}, false);
  if (typeof value === 'boolean') return [{ label: 'string true', value: 'true' }];
  if (Array.isArray(value)) {
    return [
      { label: '1000 items', value: Array.from({ length: 1000 }, () => value[0] ?? 'x') },
      { label: 'item null', value: [null] },
      { label: 'item 2^31', value: [2_147_483_648] },
      { label: 'item 201 letters', value: ['x'.repeat(201)] },
    ];
  }
  if (value === null) return [{ label: '201 letters for null', value: 'x'.repeat(201) }];
  return [];
}
