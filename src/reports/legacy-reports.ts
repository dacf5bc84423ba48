// The legacy reports (spec, "Legacy report shapes"): pageviews, events and sessions of one site, from and to only,
// bots and internal traffic left out. Empty ranges give zeros.
import type { AppContext } from '../context.ts';
import type { LegacyEventsAnswer, LegacyPageviewsAnswer, LegacySessionsAnswer } from './answers.ts';
import { Dim } from '../vocabulary/dimensions.ts';
import type { ReportSelection } from './grouping.ts';
import type { ReportRange } from '../reading/common-params.ts';
import { averageSeconds, ratio } from '../reading/meta.ts';
import { toDateText } from '../vocabulary/periods.ts';
import { readProjectorPosition } from '../projector/queries/projector-state.ts';
import { rankRows } from './ranked-rows.ts';
import { groupedReport } from './read/grouped-report.ts';
import { field } from '../rollup-format/counter-shard.ts';
import type { SiteRow } from '../admin/queries/find-site.ts';
import { inSnapshot } from '../reading/snapshot.ts';
import { countersOf } from './summary-report.ts';

function selectionOf(site: SiteRow, range: ReportRange): ReportSelection {
  return { siteIds: [site.id], workspaceId: site.workspace_id, range, filters: {}, withInternal: false };
}

export function legacyPageviews(context: AppContext, site: SiteRow, range: ReportRange): LegacyPageviewsAnswer {
  return inSnapshot(context.db, () => {
    const report = groupedReport(context.db, { selection: selectionOf(site, range), grouping: { by: 'day' }, currentSeq: readProjectorPosition(context.db) });
    const byDay = Array.from({ length: range.toDay - range.fromDay + 1 }, (_, index) => {
      const day = range.fromDay + index;
      return { date: toDateText(day), count: countersOf(report.totals.get(String(day)))[field.pageviews]! };
    });
    return { count: byDay.reduce((sum, day) => sum + day.count, 0), by_day: byDay };
  });
}

export function legacyEvents(context: AppContext, site: SiteRow, range: ReportRange): LegacyEventsAnswer {
  return inSnapshot(context.db, () => {
    const report = groupedReport(context.db, { selection: selectionOf(site, range), grouping: { by: 'value', dim: Dim.type }, currentSeq: readProjectorPosition(context.db) });
    return { by_name: rankRows(report, (c) => c[field.events]! > 0, field.events).map((row) => ({ name: row.key, count: row.totals.counters[field.events]! })) };
  });
}

export function legacySessions(context: AppContext, site: SiteRow, range: ReportRange): LegacySessionsAnswer {
  return inSnapshot(context.db, () => {
    const report = groupedReport(context.db, { selection: selectionOf(site, range), grouping: { by: 'all' }, currentSeq: readProjectorPosition(context.db) });
    const counters = countersOf(report.totals.get(''));
    const visits = counters[field.visits]!;
    return {
      count: visits,
      avg_duration_s: averageSeconds(counters[field.duration_ms]!, visits),
      avg_events: ratio(counters[field.visit_events]!, visits),
      bounce_rate: ratio(counters[field.bounces]!, visits),
    };
  });
}
