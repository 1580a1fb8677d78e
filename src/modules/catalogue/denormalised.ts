// The product row carries a few values derived from other tables so that a list reads one row
// per product. Every writer (imports, demo data, the benchmark generator) keeps them with these
// and the refreshes in denormalised.repository.ts.

/** The shop price against the list price, whole percent (half up); 0 without a higher list price. */
export function discountPercent(shopPriceCents: number, originalPriceCents: number | null | undefined): number {
  const original = originalPriceCents ?? 0;
  if (original <= shopPriceCents || original <= 0) return 0;
  return Math.floor(((original - shopPriceCents) * 100) / original + 0.5);
}
