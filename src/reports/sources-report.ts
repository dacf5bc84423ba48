// GET /sites/:siteId/reports/sources-v2: acquisition sources of visits (their first event's), ranked by visits.
import type { AppContext } from '../context.ts';
import type { SourcesAnswer } from './answers.ts';
import { Dim } from './dimensions.ts';
import { buildMeta, ratio } from './meta.ts';
import { measuresOf } from './measures.ts';
import type { CommonParams } from './params.ts';
import { newestEventSeq, newestReceivedAt } from './queries/snapshot-rows.ts';
import { rankRows } from './ranked-rows.ts';
import { groupedReport } from './read/grouped-report.ts';
import { field } from './rollup/counter-shard.ts';
import type { ReportScope } from './scope.ts';
import { inSnapshot } from './snapshot.ts';
import { selectionOf } from './summary-report.ts';

export function sourcesReport(context: AppContext, scope: ReportScope, params: CommonParams, limit: number): SourcesAnswer {
  return inSnapshot(context.db, () => {
    const db = context.db;
    const report = groupedReport(db, { selection: selectionOf(scope, params), grouping: { by: 'value', dim: Dim.source }, currentSeq: newestEventSeq(db) });
    const rows = rankRows(report, (c) => c[field.events]! + c[field.visits]! > 0, field.visits);
    const shown = rows.slice(0, limit);
    const visitors = report.visitorsOf(shown.map((row) => row.key));
    return {
      meta: buildMeta({
        scope,
        params,
        measures: measuresOf('visitors', 'visits', 'pageviews', 'bounce_rate'),
        watermarkMs: newestReceivedAt(db, scope.siteIds),
        computedFrom: report.computedFrom,
        truncated: rows.length > limit,
        nextCursor: null,
        limit,
        now: context.clock.now(),
      }),
      data: {
        rows: shown.map(({ key, totals: { counters } }) => ({
          source: key,
          visitors: visitors.get(key)!,
          visits: counters[field.visits]!,
          pageviews: counters[field.pageviews]!,
          bounce_rate: ratio(counters[field.bounces]!, counters[field.visits]!),
        })),
      },
    };
  });
}
