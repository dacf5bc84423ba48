// GET /workspaces/:slug/roi/compare: the ROI of two day ranges under one model, and the change per currency.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import { decimalToMinorUnits, fromMinorUnits } from '../money/minor-units.ts';
import { lookbackMs } from './attribute.ts';
import type { ComputeContext } from './attribution-results.ts';
import { conversionRangeOf, type CurrencyRoi, readSpend, type RoiAnswer, type RoiParams, toRoiAnswer } from './roi.ts';

/** current − previous of each field (spend and revenue as exact decimal strings; a ratio null when either side has none). */
export type CurrencyChange = CurrencyRoi;

/** Exact minor units of an amount roi.ts wrote (sums may pass 2^53: bigint, never a double). */
const minor = (row: CurrencyRoi | undefined, field: 'spend' | 'revenue', currency: string) => (row ? decimalToMinorUnits(row[field], currency)! : 0n);
const difference = (current: number | null | undefined, previous: number | null | undefined) =>
  current === null || current === undefined || previous === null || previous === undefined ? null : Math.round((current - previous) * 1e6) / 1e6;

/** Complete only when both ranges are: the projector's lag first, then a range that includes today. */
function bothComplete(current: RoiAnswer, previous: RoiAnswer): RoiAnswer['completeness'] {
  if (current.completeness.reason === 'projection_lag') return current.completeness;
  return current.completeness.complete ? previous.completeness : current.completeness;
}

/**
 * The ROI of both ranges: their conversions are read in one snapshot, as of one projector position, so the two
 * answers share one freshness.
 * @example await roiComparison(context, workspace, current, previous)
 */
export async function roiComparison(context: ComputeContext, workspace: WorkspaceRow, current: RoiParams, previous: RoiParams) {
  const spend = [readSpend(context, workspace, current), readSpend(context, workspace, previous)] as const;
  const answer = await context.readModel.conversions({
    scope: { siteIds: listSiteIds(context.db, workspace.id), workspaceId: workspace.id },
    ranges: [conversionRangeOf(current), conversionRangeOf(previous)],
    lookbackMs,
  });
  const [now, before] = answer.ranges;
  const shared = { freshness: answer.freshness, now: context.clock.now() };
  return compareRoi(toRoiAnswer(current, { ...shared, spend: spend[0], conversions: now!.conversions }), toRoiAnswer(previous, { ...shared, spend: spend[1], conversions: before!.conversions }));
}

/**
 * One change row per currency of either range; amounts a range lacks count as zero. Both answers were read in one
 * snapshot, so they share one freshness, which the comparison repeats at its top.
 * @example compareRoi(current, previous).change.currencies // [{ currency: 'USD', spend: '-10.00', revenue: '25.00', conversions: 1, roas: 0.5, roi: 0.5 }]
 */
export function compareRoi(
  current: RoiAnswer,
  previous: RoiAnswer,
): { current: RoiAnswer; previous: RoiAnswer; change: { currencies: CurrencyChange[] }; completeness: RoiAnswer['completeness']; freshness: RoiAnswer['freshness'] } {
  const currencies = [...new Set([...current.currencies, ...previous.currencies].map((row) => row.currency))].sort();
  return {
    current,
    previous,
    completeness: bothComplete(current, previous),
    freshness: current.freshness,
    change: {
      currencies: currencies.map((currency) => {
        const now = current.currencies.find((row) => row.currency === currency);
        const before = previous.currencies.find((row) => row.currency === currency);
        return {
          currency,
          spend: fromMinorUnits(minor(now, 'spend', currency) - minor(before, 'spend', currency), currency),
          revenue: fromMinorUnits(minor(now, 'revenue', currency) - minor(before, 'revenue', currency), currency),
          conversions: (now?.conversions ?? 0) - (before?.conversions ?? 0),
          roas: difference(now?.roas, before?.roas),
          roi: difference(now?.roi, before?.roi),
        };
      }),
    },
  };
}
