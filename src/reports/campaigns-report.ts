// GET /sites/:siteId/reports/campaigns-v2: visits by their (utm_source, utm_medium, utm_campaign), ranked by
// visits, with purchase conversions and exact revenue per currency.
import type { AppContext } from '../context.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import { parseCampaignKey } from '../vocabulary/dimensions.ts';
import type { CampaignsAnswer } from './answers.ts';
import { rankByVisits, type VisitsRanking } from './visits-ranking.ts';
import type { Figures } from '../read-model/report-questions.ts';

export function campaignsRanking(scope: ReportScope, params: CommonParams, limit: number, sinceMs?: number): VisitsRanking {
  return { scope, params, limit, by: 'campaign', measures: ['visitors', 'visits', 'conversions', 'revenue'], sinceMs };
}

export function campaignRow(key: string, figures: Figures) {
  const [utmSource, utmMedium, utmCampaign] = parseCampaignKey(key);
  return {
    utm_source: utmSource,
    utm_medium: utmMedium,
    utm_campaign: utmCampaign,
    visitors: figures.visitors,
    visits: figures.visits,
    conversions: figures.conversions,
    revenue: [...figures.revenue]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([currency, amount]) => ({ currency, amount: fromMinorUnits(amount, currency) })),
  };
}

export function campaignsReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, limit: number, sinceMs?: number): Promise<CampaignsAnswer> {
  return rankByVisits(context, readModel, campaignsRanking(scope, params, limit, sinceMs), campaignRow);
}
