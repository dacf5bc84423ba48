// GET /sites/:siteId/reports/campaigns-v2: visits by their (utm_source, utm_medium, utm_campaign), ranked by
// visits, with purchase conversions and exact revenue per currency.
import type { AppContext } from '../context.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import type { CampaignsAnswer } from './answers.ts';
import { Dim, parseCampaignKey } from '../vocabulary/dimensions.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { field } from '../rollup-format/counter-shard.ts';
import type { ReportScope } from '../reading/scope.ts';
import { rankByVisits } from './visits-ranking.ts';

export function campaignsReport(context: AppContext, scope: ReportScope, params: CommonParams, limit: number, caughtUp: boolean): CampaignsAnswer {
  return rankByVisits(context, { scope, params, limit, caughtUp, dim: Dim.campaign, measures: ['visitors', 'visits', 'conversions', 'revenue'] }, ({ key, totals: { counters, revenue } }, visitors) => {
    const [utmSource, utmMedium, utmCampaign] = parseCampaignKey(key);
    return {
      utm_source: utmSource,
      utm_medium: utmMedium,
      utm_campaign: utmCampaign,
      visitors,
      visits: counters[field.visits]!,
      conversions: counters[field.conversions]!,
      revenue: [...revenue]
        .filter(([, amount]) => amount !== 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([currency, amount]) => ({ currency, amount: fromMinorUnits(amount, currency) })),
    };
  });
}
