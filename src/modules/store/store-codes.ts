/** The web stores there are; configuration (DEFAULT_STORE) and every module take the list from here. */
export const STORE_CODES = ['WEB', 'WEB2'] as const;
export type StoreCode = (typeof STORE_CODES)[number];

export function isStoreCode(value: unknown): value is StoreCode {
  return typeof value === 'string' && (STORE_CODES as readonly string[]).includes(value);
}
