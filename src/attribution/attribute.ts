// Attributes purchases to touchpoints under a model: one conversion at a time (results), and summed over every
// conversion of a range per (source, medium, campaign) with revenue kept apart per currency (totals, ROI). The
// conversions and their touchpoints come from the read model (src/read-model/attribution-questions.ts).
import { fromMinorUnits } from '../money/minor-units.ts';
import type { Conversion } from '../read-model/attribution-questions.ts';
import { apportion, type AttributionModel, creditsOf, creditUnits } from './models.ts';

/** How far back a visit counts as a touchpoint. */
export const lookbackMs = 30 * 24 * 60 * 60 * 1000;

export interface AttributedConversion {
  conversion: Conversion;
  /** Millionths per touchpoint, adding up to 1,000,000 (empty without touchpoints). */
  credits: number[];
}

/** A campaign key: (source, medium, campaign); all three null for conversions without a touchpoint. */
export interface CampaignKey {
  source: string | null;
  medium: string | null;
  campaign: string | null;
}

export interface CampaignTotal extends CampaignKey {
  /** Credited conversions in millionths. */
  creditUnits: number;
  /** Credited revenue per currency, in minor units. */
  revenueMinor: Map<string, bigint>;
  /** Credited conversions (millionths) of the purchases whose revenue is in each currency. */
  creditUnitsByCurrency: Map<string, number>;
}

/** @example attributeConversion('linear', conversion).credits // [500000, 500000] */
export function attributeConversion(model: AttributionModel, conversion: Conversion): AttributedConversion {
  const credits = creditsOf(model, conversion.touchpoints.map((visit) => ({ ts: visit.startMs, source: visit.source })), conversion.ts);
  return { conversion, credits };
}

/** `user:<user_id>` when the person is known by a user_id, else `anon:<anon_id>`. */
export function personOf(conversion: Conversion): string {
  return conversion.userId !== null ? `user:${conversion.userId}` : `anon:${conversion.anonId}`;
}

/**
 * Every conversion given, attributed, summed per campaign key.
 * @example attributeTotals('last_touch', conversions)[0] // { source: 'news', medium: 'email', campaign: 'spring', creditUnits: 1000000, … }
 */
export function attributeTotals(model: AttributionModel, conversions: readonly Conversion[]): CampaignTotal[] {
  const totals = new Map<string, CampaignTotal>();
  const add = (key: CampaignKey, units: number, currency: string | null, minor: bigint) => {
    const id = JSON.stringify([key.source, key.medium, key.campaign]);
    let total = totals.get(id);
    if (!total) totals.set(id, (total = { ...key, creditUnits: 0, revenueMinor: new Map(), creditUnitsByCurrency: new Map() }));
    total.creditUnits += units;
    if (currency !== null) {
      total.revenueMinor.set(currency, (total.revenueMinor.get(currency) ?? 0n) + minor);
      total.creditUnitsByCurrency.set(currency, (total.creditUnitsByCurrency.get(currency) ?? 0) + units);
    }
  };
  for (const conversion of conversions) {
    const { credits } = attributeConversion(model, conversion);
    const { revenue } = conversion;
    if (credits.length === 0) {
      add({ source: null, medium: null, campaign: null }, creditUnits, revenue?.currency ?? null, BigInt(revenue?.minor ?? 0));
      continue;
    }
    // Revenue is split in the same proportions as the credit, exactly (the parts add up to the revenue).
    const revenueParts = revenue ? apportion(BigInt(revenue.minor), credits) : credits.map(() => 0n);
    conversion.touchpoints.forEach((visit, index) => {
      if (credits[index] === 0) return;
      add({ source: visit.source, medium: visit.medium, campaign: visit.campaign }, credits[index]!, revenue?.currency ?? null, revenueParts[index]!);
    });
  }
  return [...totals.values()].sort(compareTotals);
}

export const compareText = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

function compareTotals(a: CampaignTotal, b: CampaignTotal): number {
  return b.creditUnits - a.creditUnits || compareText(a.source, b.source) || compareText(a.medium, b.medium) || compareText(a.campaign, b.campaign);
}

/** Revenue per currency as the answers show it, currencies in alphabetical order. */
export function toMoneyList(revenue: Map<string, bigint>): { currency: string; amount: string }[] {
  return [...revenue.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, minor]) => ({ currency, amount: fromMinorUnits(minor, currency) }));
}

/** Millionths as a number with at most six decimals (333334 → 0.333334). */
export function toCredit(units: number): number {
  return units / creditUnits;
}
