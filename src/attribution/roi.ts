// GET /workspaces/:slug/roi: spend of a day range against the revenue attributed to it under a model, workspace-wide,
// with every amount kept apart per currency; ratios only where spend and revenue share one currency.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import type { Conversion, ConversionRange } from '../read-model/attribution-questions.ts';
import type { Freshness } from '../read-model/questions.ts';
import { toCompleteness, toFreshness } from '../reading/meta.ts';
import { type SpendTotalRow, sumSpend } from '../spend/queries/spend-totals.ts';
import { dayOf } from '../vocabulary/periods.ts';
import { attributeTotals, type CampaignTotal, compareText, lookbackMs, toCredit, toMoneyList } from './attribute.ts';
import type { ComputeContext } from './attribution-results.ts';
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

/** The conversions of the range's days (inclusive bounds, epoch ms). */
export function conversionRangeOf(params: RoiParams): ConversionRange {
  return { startMs: params.fromDay * dayMs, endMs: (params.toDay + 1) * dayMs - 1, eventId: null };
}

/** The workspace's spend of the range, per (source, medium, campaign, currency). */
export function readSpend(context: ComputeContext, workspace: WorkspaceRow, params: RoiParams): SpendTotalRow[] {
  return sumSpend(context.db, { workspace_id: workspace.id, from_day: params.from, to_day: params.to });
}

/**
 * Spend is matched to attributed revenue by the exact (source, medium, campaign) of the touchpoint (null matches
 * null). Conversions are purchases with their time in the days of the range. The read model's freshness.caughtUp is
 * false when the wait for the projector ran out: completeness then says `projection_lag`, and the answer is as of
 * freshness.projected_through.
 * @example await roiReport(context, workspace, { model: 'last_touch', from: '2026-06-01', to: '2026-06-30', fromDay, toDay })
 */
export async function roiReport(context: ComputeContext, workspace: WorkspaceRow, params: RoiParams): Promise<RoiAnswer> {
  const spend = readSpend(context, workspace, params);
  const answer = await context.readModel.conversions({
    scope: { siteIds: listSiteIds(context.db, workspace.id), workspaceId: workspace.id },
    ranges: [conversionRangeOf(params)],
    lookbackMs,
  });
  return toRoiAnswer(params, { spend, conversions: answer.ranges[0]!.conversions, freshness: answer.freshness, now: context.clock.now() });
}

export interface RoiInput {
  spend: readonly SpendTotalRow[];
  conversions: readonly Conversion[];
  freshness: Freshness;
  now: number;
}

interface CampaignRow {
  source: string | null;
  medium: string | null;
  campaign: string | null;
  spend: Map<string, bigint>;
  revenue: Map<string, bigint>;
  units: number;
}

/** Per currency: spend, attributed revenue, and the credited conversions of the purchases in that currency. */
interface CurrencySums {
  spend: Map<string, bigint>;
  revenue: Map<string, bigint>;
  units: Map<string, number>;
}

/** Spend and attributed revenue summed per campaign key and per currency. */
function sumCampaigns(spend: readonly SpendTotalRow[], totals: readonly CampaignTotal[]): { campaigns: CampaignRow[]; sums: CurrencySums } {
  const campaigns = new Map<string, CampaignRow>();
  const campaignOf = (source: string | null, medium: string | null, campaign: string | null) => {
    const id = JSON.stringify([source, medium, campaign]);
    let row = campaigns.get(id);
    if (!row) campaigns.set(id, (row = { source, medium, campaign, spend: new Map(), revenue: new Map(), units: 0 }));
    return row;
  };
  const sums: CurrencySums = { spend: new Map(), revenue: new Map(), units: new Map() };
  for (const row of spend) {
    add(campaignOf(row.source, row.medium, row.campaign).spend, row.currency, row.amount_minor);
    add(sums.spend, row.currency, row.amount_minor);
  }
  for (const total of totals) {
    const row = campaignOf(total.source, total.medium, total.campaign);
    row.units += total.creditUnits;
    for (const [currency, minor] of total.revenueMinor) {
      add(row.revenue, currency, minor);
      add(sums.revenue, currency, minor);
    }
    for (const [currency, units] of total.creditUnitsByCurrency) sums.units.set(currency, (sums.units.get(currency) ?? 0) + units);
  }
  return { campaigns: [...campaigns.values()], sums };
}

function toCurrencyRows(sums: CurrencySums): CurrencyRoi[] {
  const currencies = [...new Set([...sums.spend.keys(), ...sums.revenue.keys()])].sort();
  return currencies.map((currency) => {
    const spend = sums.spend.get(currency) ?? 0n;
    const revenue = sums.revenue.get(currency) ?? 0n;
    const ratio = ratios(spend, revenue);
    return {
      currency,
      spend: fromMinorUnits(spend, currency),
      revenue: fromMinorUnits(revenue, currency),
      conversions: Math.round((sums.units.get(currency) ?? 0) / creditUnits),
      roas: ratio?.roas ?? null,
      roi: ratio?.roi ?? null,
    };
  });
}

function toCampaignRow(row: CampaignRow): CampaignRoi {
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
}

/**
 * The ROI answer of a range from its spend and its conversions (attributed here under the model).
 * @example toRoiAnswer(params, { spend, conversions, freshness, now }).currencies
 */
export function toRoiAnswer(params: RoiParams, input: RoiInput): RoiAnswer {
  const { campaigns, sums } = sumCampaigns(input.spend, attributeTotals(params.model, input.conversions));
  return {
    from: params.from,
    to: params.to,
    model: params.model,
    currencies: toCurrencyRows(sums),
    campaigns: campaigns
      .sort((a, b) => compareText(a.source, b.source) || compareText(a.medium, b.medium) || compareText(a.campaign, b.campaign))
      .map(toCampaignRow),
    completeness: toCompleteness(input.freshness.caughtUp, params.toDay, dayOf(input.now)),
    freshness: toFreshness(input.freshness),
  };
}
