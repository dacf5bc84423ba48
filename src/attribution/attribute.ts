// Attributes purchases to touchpoints under a model: one conversion at a time (results), and summed over every
// conversion of a range per (source, medium, campaign) with revenue kept apart per currency (totals, ROI).
import type { Db } from '../db/open.ts';
import { listPurchaseEvents, type PurchaseEventRow } from '../read-model/sqlite/queries/purchase-events.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import { apportion, type AttributionModel, creditsOf, creditUnits } from './models.ts';
import { journeyOf, type Journey } from '../read-model/sqlite/journeys.ts';

export interface ConversionRange {
  siteIds: readonly string[];
  /** Inclusive bounds of the conversion time, epoch ms. */
  startMs: number;
  endMs: number;
  /** Conversions up to this event seq (the projector's position): their visits are derived. */
  maxSeq: number;
  /** Only this event id (lower case), or every purchase. */
  eventId: string | null;
}

export interface AttributedConversion {
  conversion: PurchaseEventRow;
  journey: Journey;
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

const pageSize = 5000;

export function attributeConversion(db: Db, model: AttributionModel, conversion: PurchaseEventRow): AttributedConversion {
  const journey = journeyOf(db, conversion);
  const credits = creditsOf(model, journey.touchpoints.map((visit) => ({ ts: visit.start_ts, source: visit.source })), conversion.ts);
  return { conversion, journey, credits };
}

/** One page of conversions after (afterTs, afterSeq), oldest first, attributed; limit + 1 are read to tell if more exist. */
export function attributePage(db: Db, model: AttributionModel, range: ConversionRange, after: { ts: number; seq: number }, limit: number): { items: AttributedConversion[]; more: boolean } {
  const rows = listPurchaseEvents(db, { ...rangeParams(range), after_ts: after.ts, after_seq: after.seq, limit: limit + 1 });
  return { items: rows.slice(0, limit).map((row) => attributeConversion(db, model, row)), more: rows.length > limit };
}

function rangeParams(range: ConversionRange) {
  return { site_ids: JSON.stringify(range.siteIds), start_ms: range.startMs, end_ms: range.endMs, max_seq: range.maxSeq, event_id: range.eventId };
}

/** Every conversion of the range, attributed, summed per campaign key. */
export function attributeTotals(db: Db, model: AttributionModel, range: ConversionRange): CampaignTotal[] {
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
  let after = { ts: -1, seq: -1 };
  for (;;) {
    const rows = listPurchaseEvents(db, { ...rangeParams(range), after_ts: after.ts, after_seq: after.seq, limit: pageSize });
    for (const row of rows) {
      const { journey, credits } = attributeConversion(db, model, row);
      const hasRevenue = row.revenue_minor !== null && row.revenue_currency !== null;
      if (credits.length === 0) {
        add({ source: null, medium: null, campaign: null }, creditUnits, hasRevenue ? row.revenue_currency : null, BigInt(row.revenue_minor ?? 0));
        continue;
      }
      // Revenue is split in the same proportions as the credit, exactly (the parts add up to the revenue).
      const revenueParts = hasRevenue ? apportion(BigInt(row.revenue_minor!), credits) : credits.map(() => 0n);
      journey.touchpoints.forEach((visit, index) => {
        if (credits[index] === 0) return;
        add({ source: visit.source, medium: visit.utm_medium, campaign: visit.utm_campaign }, credits[index]!, hasRevenue ? row.revenue_currency : null, revenueParts[index]!);
      });
    }
    if (rows.length < pageSize) break;
    const last = rows[rows.length - 1]!;
    after = { ts: last.ts, seq: last.seq };
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
    .map(([currency, minor]) => ({ currency, amount: fromMinorUnits(Number(minor), currency) }));
}

/** Millionths as a number with at most six decimals (333334 → 0.333334). */
export function toCredit(units: number): number {
  return units / creditUnits;
}
