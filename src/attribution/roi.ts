// GET /workspaces/:slug/roi: spend of a day range against the revenue attributed to it under a model, workspace-wide,
// with every amount kept apart per currency; ratios only where spend and revenue share one currency.
import type { AppContext } from '../context.ts';

/** What the computation reads: it runs on the analysis thread (src/analysis/analysis-job.ts) or inline. */
type ComputeContext = Pick<AppContext, 'db' | 'clock' | 'random'>;
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import { dayOf } from '../vocabulary/periods.ts';
import { toCompleteness, toFreshness } from '../reading/meta.ts';
import { inSnapshot, readFreshness } from '../read-model/sqlite/snapshot.ts';
import { sumSpend } from '../spend/queries/spend-totals.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import { attributeTotals, compareText, toCredit, toMoneyList } from './attribute.ts';
import { creditUnits, type AttributionModel } from './models.ts';

const dayMs = 24 * 60 * 60 * 1000;

export interface RoiParams {
  model: AttributionModel;
  from: string;
  to: string;
  fromDay: number;
  toDay: number;
}

export interface CurrencyRoi {
  currency: string;
  spend: string;
  revenue: string;
  /** Purchases whose revenue is in this currency (whole conversions: each one's credits sum to 1). */
  conversions: number;
  roas: number | null;
  roi: number | null;
}

export interface CampaignRoi {
  source: string | null;
  medium: string | null;
  campaign: string | null;
  spend: { currency: string; amount: string }[];
  revenue: { currency: string; amount: string }[];
  conversions: number;
  roas?: number;
  roi?: number;
}

export interface RoiAnswer {
  from: string;
  to: string;
  model: AttributionModel;
  currencies: CurrencyRoi[];
  campaigns: CampaignRoi[];
  /** As the V2 reports' meta.completeness and meta.freshness (docs/reports.md). */
  completeness: { complete: boolean; reason?: string };
  freshness: { watermark: string | null; projected_through: string | null };
}

/** Ratios are rounded to six decimals; undefined without spend (no ratio of a zero). */
export function ratios(spendMinor: bigint, revenueMinor: bigint): { roas: number; roi: number } | undefined {
  if (spendMinor <= 0n) return undefined;
  const round = (value: number) => Math.round(value * 1e6) / 1e6;
  return { roas: round(Number(revenueMinor) / Number(spendMinor)), roi: round(Number(revenueMinor - spendMinor) / Number(spendMinor)) };
}

const add = (map: Map<string, bigint>, currency: string, minor: bigint) => map.set(currency, (map.get(currency) ?? 0n) + minor);

/**
 * Spend is matched to attributed revenue by the exact (source, medium, campaign) of the touchpoint (null matches
 * null). Conversions are purchases with their time in the days of the range. `caughtUp` is false when the wait for
 * the projector ran out: completeness then says `projection_lag`, and the answer is as of freshness.projected_through.
 * @example roiReport(context, workspace, { model: 'last_touch', from: '2026-06-01', to: '2026-06-30', fromDay, toDay }, true)
 */
export function roiReport(context: ComputeContext, workspace: WorkspaceRow, params: RoiParams, caughtUp: boolean): RoiAnswer {
  const siteIds = listSiteIds(context.db, workspace.id);
  const { spendRows, totals, freshness } = inSnapshot(context.db, () => {
    const freshness = readFreshness(context.db, siteIds);
    return {
      freshness,
      spendRows: sumSpend(context.db, { workspace_id: workspace.id, from_day: params.from, to_day: params.to }),
      totals: attributeTotals(context.db, params.model, {
        siteIds,
        startMs: params.fromDay * dayMs,
        endMs: (params.toDay + 1) * dayMs - 1,
        maxSeq: freshness.projectedSeq,
        eventId: null,
      }),
    };
  });
  const campaigns = new Map<string, { source: string | null; medium: string | null; campaign: string | null; spend: Map<string, bigint>; revenue: Map<string, bigint>; units: number }>();
  const campaignOf = (source: string | null, medium: string | null, campaign: string | null) => {
    const id = JSON.stringify([source, medium, campaign]);
    let row = campaigns.get(id);
    if (!row) campaigns.set(id, (row = { source, medium, campaign, spend: new Map(), revenue: new Map(), units: 0 }));
    return row;
  };
  const spendByCurrency = new Map<string, bigint>();
  const revenueByCurrency = new Map<string, bigint>();
  const unitsByCurrency = new Map<string, number>();
  for (const row of spendRows) {
    add(campaignOf(row.source, row.medium, row.campaign).spend, row.currency, row.amount_minor);
    add(spendByCurrency, row.currency, row.amount_minor);
  }
  for (const total of totals) {
    const row = campaignOf(total.source, total.medium, total.campaign);
    row.units += total.creditUnits;
    for (const [currency, minor] of total.revenueMinor) {
      add(row.revenue, currency, minor);
      add(revenueByCurrency, currency, minor);
    }
    for (const [currency, units] of total.creditUnitsByCurrency) unitsByCurrency.set(currency, (unitsByCurrency.get(currency) ?? 0) + units);
  }
  const currencies = [...new Set([...spendByCurrency.keys(), ...revenueByCurrency.keys()])].sort();
  return {
    from: params.from,
    to: params.to,
    model: params.model,
    currencies: currencies.map((currency) => {
      const spend = spendByCurrency.get(currency) ?? 0n;
      const revenue = revenueByCurrency.get(currency) ?? 0n;
      const ratio = ratios(spend, revenue);
      return {
        currency,
        spend: fromMinorUnits(spend, currency),
        revenue: fromMinorUnits(revenue, currency),
        conversions: Math.round((unitsByCurrency.get(currency) ?? 0) / creditUnits),
        roas: ratio?.roas ?? null,
        roi: ratio?.roi ?? null,
      };
    }),
    campaigns: [...campaigns.values()]
      .sort((a, b) => compareText(a.source, b.source) || compareText(a.medium, b.medium) || compareText(a.campaign, b.campaign))
      .map((row) => {
        const shared = new Set([...row.spend.keys(), ...row.revenue.keys()]);
        const [only] = shared;
        const ratio = shared.size === 1 ? ratios(row.spend.get(only!) ?? 0n, row.revenue.get(only!) ?? 0n) : undefined;
        return {
          source: row.source,
          medium: row.medium,
          campaign: row.campaign,
          spend: toMoneyList(row.spend),
          revenue: toMoneyList(row.revenue),
          conversions: toCredit(row.units),
          ...(ratio ?? {}),
        };
      }),
    completeness: toCompleteness(caughtUp, params.toDay, dayOf(context.clock.now())),
    freshness: toFreshness(freshness),
  };
}
