// GET /sites/:siteId/reports/campaigns-v2: visits by their (utm_source, utm_medium, utm_campaign), ranked by
// visits, with purchase conversions and exact revenue per currency.
import type { AppContext } from '../context.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import type { CampaignsAnswer } from './answers.ts';
import { Dim, parseCampaignKey } from './dimensions.ts';
import { buildMeta } from './meta.ts';
import { measuresOf } from './measures.ts';
import type { CommonParams } from './params.ts';
import { newestEventSeq, newestReceivedAt } from './queries/snapshot-rows.ts';
import { rankRows } from './ranked-rows.ts';
import { groupedReport } from './read/grouped-report.ts';
import { field } from './rollup/counter-shard.ts';
import type { ReportScope } from './scope.ts';
import { inSnapshot } from './snapshot.ts';
import { selectionOf } from './summary-report.ts';

export function campaignsReport(context: AppContext, scope: ReportScope, params: CommonParams, limit: number): CampaignsAnswer {
  return inSnapshot(context.db, () => {
    const db = context.db;
    const report = groupedReport(db, { selection: selectionOf(scope, params), grouping: { by: 'value', dim: Dim.campaign }, currentSeq: newestEventSeq(db) });
    const rows = rankRows(report, (c) => c[field.events]! + c[field.visits]! > 0, field.visits);
    const shown = rows.slice(0, limit);
    const visitors = report.visitorsOf(shown.map((row) => row.key));
    return {
      meta: buildMeta({
        scope,
        params,
        measures: measuresOf('visitors', 'visits', 'conversions', 'revenue'),
        watermarkMs: newestReceivedAt(db, scope.siteIds),
        computedFrom: report.computedFrom,
        truncated: rows.length > limit,
        nextCursor: null,
        limit,
        now: context.clock.now(),
      }),
      data: {
        rows: shown.map(({ key, totals: { counters, revenue } }) => {
          const [utmSource, utmMedium, utmCampaign] = parseCampaignKey(key);
          return {
            utm_source: utmSource,
            utm_medium: utmMedium,
            utm_campaign: utmCampaign,
            visitors: visitors.get(key)!,
            visits: counters[field.visits]!,
            conversions: counters[field.conversions]!,
            revenue: [...revenue]
              .filter(([, amount]) => amount !== 0)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([currency, amount]) => ({ currency, amount: fromMinorUnits(amount, currency) })),
          };
        }),
      },
    };
  });
}
