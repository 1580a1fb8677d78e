// Integer-cent arithmetic of the basket (discount codes, VAT, shares of a fixed amount): percent
// as parts per million and BigInt division rounded half up, as pricing does, so no total is ever
// a float that rounds the wrong way.

const PPM = 1_000_000n;

const ppm = (percent: number) => BigInt(Math.round(percent * 10_000));

/** numerator / denominator rounded half up; both non-negative, denominator positive. */
function divideHalfUp(numerator: bigint, denominator: bigint): number {
  return Number((2n * numerator + denominator) / (2n * denominator));
}

/** `cents` less `percent` %, half up. */
export function percentOff(cents: number, percent: number): number {
  return divideHalfUp(BigInt(cents) * (PPM - ppm(percent)), PPM);
}

/** The VAT inside a gross amount at `rate` %. */
export function vatOfGross(grossCents: number, ratePercent: number): number {
  return grossCents - divideHalfUp(BigInt(grossCents) * PPM, PPM + ppm(ratePercent));
}

/** The VAT to add to a net amount at `rate` %. */
export function vatOfNet(netCents: number, ratePercent: number): number {
  return divideHalfUp(BigInt(netCents) * ppm(ratePercent), PPM);
}

/** `total` split over `weights` in proportion, largest remainder first, so the shares sum to `total` exactly. */
export function shares(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0 || total === 0) return weights.map(() => 0);
  const exact = weights.map((weight) => (BigInt(total) * BigInt(weight)) as bigint);
  const result = exact.map((value) => Number(value / BigInt(sum)));
  let left = total - result.reduce((a, b) => a + b, 0);
  const order = exact
    .map((value, index) => ({ index, rest: value % BigInt(sum) }))
    .sort((a, b) => (b.rest > a.rest ? 1 : b.rest < a.rest ? -1 : a.index - b.index));
  for (const { index } of order) {
    if (left <= 0) break;
    result[index]! += 1;
    left -= 1;
  }
  return result;
}

/**
 * The sum of `amounts` with VAT: as they are when they include it, else each rate's sum with its
 * VAT added (rounded per rate, as the basket's VAT table is). Thresholds configured with VAT (free
 * delivery, a code's minimum sum) compare with this, for a wholesale basket without VAT too.
 */
export function sumWithVat(amounts: ReadonlyArray<{ cents: number; ratePercent: number }>, vatIncluded: boolean): number {
  const byRate = new Map<number, number>();
  for (const { cents, ratePercent } of amounts) byRate.set(ratePercent, (byRate.get(ratePercent) ?? 0) + cents);
  let total = 0;
  for (const [ratePercent, cents] of byRate) total += vatIncluded ? cents : cents + vatOfNet(cents, ratePercent);
  return total;
}
