// EAN-13 / ISBN-13 and ISBN-10 check digits, so every generated code passes a scanner's check.

/** The EAN-13 check digit of the first 12 digits. */
export function ean13CheckDigit(first12: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

/** 12 digits plus their check digit. */
export function ean13(first12: string): string {
  if (!/^\d{12}$/.test(first12)) throw new Error(`ean13 needs 12 digits, got "${first12}"`);
  return `${first12}${ean13CheckDigit(first12)}`;
}

export function isValidEan13(code: string): boolean {
  return /^\d{13}$/.test(code) && ean13CheckDigit(code.slice(0, 12)) === Number(code[12]);
}

/** The ISBN-10 of a 978-prefixed ISBN-13 (the older form still printed on many books), or null. */
export function isbn10Of(isbn13: string): string | null {
  if (!/^978\d{10}$/.test(isbn13)) return null;
  const body = isbn13.slice(3, 12);
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(body[i]) * (10 - i);
  const check = (11 - (sum % 11)) % 11;
  return `${body}${check === 10 ? 'X' : String(check)}`;
}

const ISBN_PREFIXES: Record<'ET' | 'EN' | 'RU' | 'OTHER', readonly string[]> = {
  ET: ['9789949', '9789985', '9789916', '9789907'],
  EN: ['9780141', '9781529', '9780008', '9781250'],
  RU: ['9785171', '9785040', '9785389', '9785699'],
  OTHER: ['9783518', '9789511', '9782070', '9789934'],
};

/**
 * A unique ISBN-13 for product number `n`, with a prefix of the language's registration groups
 * (Estonian books start 978-9949, Russian 978-5, ...). Unique for any n below 10^9.
 */
export function isbnFor(n: number, language: keyof typeof ISBN_PREFIXES): string {
  const block = Math.floor(n / 100_000);
  const prefixes = ISBN_PREFIXES[language];
  const prefix = block < prefixes.length ? prefixes[block]! : `9790${String(block).padStart(3, '0')}`;
  return ean13(`${prefix}${String(n % 100_000).padStart(5, '0')}`);
}

/** A unique EAN-13 for a product that is not a book: Estonia's GS1 prefix 474. */
export function eanFor(n: number): string {
  return ean13(`474${String(n).padStart(9, '0')}`);
}

/** The barcode of an older edition, kept as an alternate code (GS1 prefix 979-5, never a product's own). */
export function oldEditionEan(n: number): string {
  return ean13(`9795${String(n).padStart(8, '0')}`);
}
