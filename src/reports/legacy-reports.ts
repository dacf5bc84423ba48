// The legacy reports (spec, "Legacy report shapes"): pageviews, events and sessions of one site, from and to only,
// bots and internal traffic left out. Empty ranges give zeros.
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { ReadScope } from '../read-model/questions.ts';
import { legacySelection } from '../read-model/report-questions.ts';
import { engagementType } from '../read-model/engagement-questions.ts';
import { averageSeconds, ratio } from '../reading/meta.ts';
import { toDateText } from '../vocabulary/periods.ts';
import type { ReportRange } from '../vocabulary/report-filters.ts';
import type { LegacyEventsAnswer, LegacyPageviewsAnswer, LegacySessionsAnswer } from './answers.ts';

const scopeOf = (site: SiteRow): ReadScope => ({ siteIds: [site.id], workspaceId: site.workspace_id });

export async function legacyPageviews(readModel: ReadModel, site: SiteRow, range: ReportRange): Promise<LegacyPageviewsAnswer> {
  const { days } = await readModel.summary({ ...legacySelection(scopeOf(site), range), visitors: false });
  const byDay = days.map((day) => ({ date: toDateText(day.day), count: day.pageviews }));
  return { count: byDay.reduce((sum, day) => sum + day.count, 0), by_day: byDay };
}

/**
 * Every event type of the range, most events first: no limit, as the legacy shape has none. The tracker's engagement
 * events are measurements of a page, not events a site sends: never listed here (CONTRACT section 10).
 */
export async function legacyEvents(readModel: ReadModel, site: SiteRow, range: ReportRange): Promise<LegacyEventsAnswer> {
  const { rows } = await readModel.ranking({ ...legacySelection(scopeOf(site), range), by: 'type', order: 'events', offset: 0, limit: Number.MAX_SAFE_INTEGER });
  return { by_name: rows.filter((row) => row.key !== engagementType).map((row) => ({ name: row.key, count: row.figures.events })) };
}

export async function legacySessions(readModel: ReadModel, site: SiteRow, range: ReportRange): Promise<LegacySessionsAnswer> {
  const { total } = await readModel.summary({ ...legacySelection(scopeOf(site), range), visitors: false });
  return {
    count: total.visits,
    avg_duration_s: averageSeconds(total.durationMs, total.visits),
    avg_events: ratio(total.visitEvents, total.visits),
    bounce_rate: ratio(total.bounces, total.visits),
  };
}
