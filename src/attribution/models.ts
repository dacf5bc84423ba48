// The attribution models (CONTRACT section 7) and how a conversion's credit is split among its touchpoints, exactly:
// credits are integer millionths that always add up to 1,000,000 (largest remainder), so the credits of one
// conversion sum to exactly 1.
export const attributionModels = ['first_touch', 'last_touch', 'last_non_direct', 'linear', 'position_based', 'time_decay'] as const;
export type AttributionModel = (typeof attributionModels)[number];

/** One unit of credit is a millionth of a conversion. */
export const creditUnits = 1_000_000;
const halfLifeMs = 7 * 24 * 60 * 60 * 1000;

export interface CreditedTouch {
  /** Visit start, epoch ms. */
  ts: number;
  source: string;
}

/**
 * Splits `total` in proportion to `weights` (non-negative, not all zero) into integers that add up to `total`: each
 * gets the floor of its share, and the units left go one each to the largest remainders; equal remainders go to the
 * earlier entry. Exact for integer weights (BigInt arithmetic); time-decay weights are floats, whose shares are
 * rounded to 1e-9 of a unit before comparing, so equal weights stay equal.
 * @example apportion(1_000_000, [1, 1, 1]) // [333334, 333333, 333333]
 */
export function apportion(total: bigint, weights: readonly number[]): bigint[] {
  if (weights.every((weight) => Number.isInteger(weight))) {
    const scaled = weights.map((weight) => BigInt(weight));
    const sum = scaled.reduce((a, b) => a + b, 0n);
    const shares = scaled.map((weight) => (total * weight) / sum);
    const remainders = scaled.map((weight) => (total * weight) % sum);
    return distribute(total, shares, (a, b) => (remainders[a]! > remainders[b]! ? -1 : remainders[a]! < remainders[b]! ? 1 : a - b));
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((weight) => Math.round((Number(total) * weight * 1e9) / sum) / 1e9);
  const shares = exact.map((share) => BigInt(Math.floor(share)));
  const remainders = exact.map((share) => share - Math.floor(share));
  return distribute(total, shares, (a, b) => remainders[b]! - remainders[a]! || a - b);
}

function distribute(total: bigint, shares: bigint[], order: (a: number, b: number) => number): bigint[] {
  let left = total - shares.reduce((a, b) => a + b, 0n);
  const ranked = shares.map((_, index) => index).sort(order);
  for (const index of ranked) {
    if (left <= 0n) break;
    shares[index]! += 1n;
    left -= 1n;
  }
  return shares;
}

/** The relative weight of each touchpoint (chronological order) under a model. */
export function modelWeights(model: AttributionModel, touches: readonly CreditedTouch[], conversionTs: number): number[] {
  const n = touches.length;
  const only = (index: number) => touches.map((_, i) => (i === index ? 1 : 0));
  switch (model) {
    case 'first_touch':
      return only(0);
    case 'last_touch':
      return only(n - 1);
    case 'last_non_direct': {
      // The last visit that did not come direct; a journey of direct visits only credits its last one.
      let index = n - 1;
      for (let i = n - 1; i >= 0; i--) {
        if (touches[i]!.source !== 'direct') {
          index = i;
          break;
        }
      }
      return only(index);
    }
    case 'linear':
      return touches.map(() => 1);
    case 'position_based':
      // 40 % first, 40 % last, 20 % shared by those between: as integers 2(n−2) : 1 … 1 : 2(n−2), of 5(n−2).
      if (n <= 2) return touches.map(() => 1);
      return touches.map((_, i) => (i === 0 || i === n - 1 ? 2 * (n - 2) : 1));
    case 'time_decay':
      // Weight halves every 7 days between the visit's start and the conversion.
      return touches.map((touch) => 2 ** (-(conversionTs - touch.ts) / halfLifeMs));
  }
}

/** Credits in millionths, adding up to exactly 1,000,000; empty for a conversion without touchpoints. */
export function creditsOf(model: AttributionModel, touches: readonly CreditedTouch[], conversionTs: number): number[] {
  if (touches.length === 0) return [];
  return apportion(BigInt(creditUnits), modelWeights(model, touches, conversionTs)).map(Number);
}
