// A report's figures, all asked of the read model (the same questions summary-v2, pages-v2 and sources-v2 ask, so
// the mail says what the dashboard says): the headline measures with their change from the previous period, then the
// ranked sections.
import type { ReadModel } from '../read-model/read-model.ts';
import type { Selection } from '../read-model/questions.ts';
import { averageSeconds, ratio } from '../reading/meta.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { ReportPeriod } from './report-periods.ts';
import { type ReportSection, reportSections } from './report-sections.ts';

/** Rows per ranked section. */
export const sectionRows = 5;

export interface Measure {
  current: number;
  previous: number;
  /** (current − previous) / previous, rounded to 4 decimals; null when the previous period had none. */
  change: number | null;
}

export interface ReportFigures {
  visitors: Measure;
  pageviews: Measure;
  /** Fractions (like summary-v2's bounce_rate). */
  bounce_rate: Measure;
  avg_visit_duration_s: Measure;
  sections: ReportSection[];
}

function measureOf(current: number, previous: number): Measure {
  return { current, previous, change: previous === 0 ? null : Math.round(((current - previous) / previous) * 10_000) / 10_000 };
}

/**
 * @example const figures = await buildReportFigures(readModel, site, duePeriodOf('weekly', now));
 */
export async function buildReportFigures(readModel: ReadModel, site: Pick<SiteRow, 'id' | 'workspace_id'>, period: ReportPeriod): Promise<ReportFigures> {
  const scope = { siteIds: [site.id], workspaceId: site.workspace_id };
  const selection: Selection = { scope, range: period.range, filters: {}, withInternal: false };
  const [current, previous, ...sections] = await Promise.all([
    readModel.summary({ ...selection, visitors: true }),
    readModel.summary({ ...selection, range: period.previous, visitors: true }),
    ...reportSections.map((source) => source(readModel, selection, sectionRows)),
  ]);
  const now = current.total;
  const before = previous.total;
  return {
    visitors: measureOf(now.visitors, before.visitors),
    pageviews: measureOf(now.pageviews, before.pageviews),
    bounce_rate: measureOf(ratio(now.bounces, now.visits), ratio(before.bounces, before.visits)),
    avg_visit_duration_s: measureOf(averageSeconds(now.durationMs, now.visits), averageSeconds(before.durationMs, before.visits)),
    sections,
  };
}
