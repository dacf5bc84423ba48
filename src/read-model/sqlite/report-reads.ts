// The report questions answered over the embedded database: rollups where one rollup dimension carries the
// filters, raw events otherwise (grouped-report.ts), each question in one read snapshot with its freshness.
import type { Db } from '../../db/open.ts';
import { toEventFilterParams, visitFilterNames } from './queries/event-filter.ts';
import { type Counters, emptyCounters, field } from '../../rollup-format/counter-shard.ts';
import { Dim } from '../../vocabulary/dimensions.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import type { ReportRange } from '../../vocabulary/report-filters.ts';
import type { Answer, ComputedFrom, Freshness as AnswerFreshness, Selection } from '../questions.ts';
import type { Figures, RankDimension, RankingFigures, RankingQuestion, RankingsFigures, RankingsQuestion, ReportQuestions } from '../report-questions.ts';
import type { GroupedReport, GroupTotals, Grouping, ReportSelection } from './grouping.ts';
import { groupedReport, groupedReports, planRollupRead } from './grouped-report.ts';
import { type RawPass, rawPass } from './raw-pass.ts';
import { toGroupedReport } from './raw-grouped.ts';
import { readRollups } from './rollup-grouped.ts';
import { countPropValues } from './queries/prop-value-counts.ts';
import { rankRows } from './ranked-rows.ts';
import { convertedVisits } from './goal-conversions.ts';
import { loadRawVisits } from './raw-visits.ts';
import { readProjectorPosition } from '../../projector/queries/projector-state.ts';
import type { GoalRule } from '../../vocabulary/goal-rule.ts';
import { addImportedCounts, addImportedGroups, importedDays, takesImported } from './imported-figures.ts';
import type { ImportedCountsRow } from './queries/imported-daily.ts';
import { type Freshness, inSnapshot, readFreshness } from './snapshot.ts';
import { groupedSourceKey } from '../source-groups.ts';

export interface SqliteReadOptions {
  db: Db;
  /** Waits, bounded, until the projector has passed every event stored before the call; false when the wait ran out. */
  waitForProjection: () => Promise<boolean>;
}

const dims: Record<RankDimension, Dim> = {
  path: Dim.path,
  page: Dim.page,
  source: Dim.source,
  campaign: Dim.campaign,
  device: Dim.device,
  browser: Dim.browser,
  os: Dim.os,
  country: Dim.country,
  region: Dim.region,
  city: Dim.city,
  type: Dim.type,
};

const noRevenue: ReadonlyMap<string, number> = new Map();

export function toFigures(totals: GroupTotals | undefined, visitors: number): Figures {
  const counters: Counters = totals?.counters ?? emptyCounters();
  const revenue = totals && totals.revenue.size > 0 ? new Map([...totals.revenue].filter(([, amount]) => amount !== 0)) : noRevenue;
  return {
    visitors,
    visits: counters[field.visits]!,
    pageviews: counters[field.pageviews]!,
    events: counters[field.events]!,
    bounces: counters[field.bounces]!,
    durationMs: counters[field.duration_ms]!,
    visitPageviews: counters[field.visit_pageviews]!,
    visitEvents: counters[field.visit_events]!,
    exits: counters[field.exits]!,
    conversions: counters[field.conversions]!,
    revenue,
  };
}

export function toSelection(question: Selection): ReportSelection {
  return { siteIds: question.scope.siteIds, workspaceId: question.scope.workspaceId, range: question.range, filters: question.filters, withInternal: question.withInternal };
}

export function toAnswerFreshness(freshness: Freshness, caughtUp: boolean): AnswerFreshness {
  return {
    position: freshness.projectedSeq,
    watermarkMs: freshness.watermarkMs,
    projectedThroughMs: freshness.projectedThroughMs,
    caughtUp,
    rawEventsFromDay: freshness.rawEventsFromDay,
  };
}

export function answered<Figures>(figures: Figures, freshness: Freshness, caughtUp: boolean, computedFrom: ComputedFrom): Answer<Figures> {
  return { ...figures, freshness: toAnswerFreshness(freshness, caughtUp), computedFrom };
}

export function daysOf(range: ReportRange): number[] {
  return Array.from({ length: range.toDay - range.fromDay + 1 }, (_, index) => range.fromDay + index);
}

/** The epoch-ms bounds of a range of days: its first millisecond and the first one after it. */
function boundsOf(range: ReportRange): { start_ms: number; end_ms: number } {
  return { start_ms: range.fromDay * dayMs, end_ms: (range.toDay + 1) * dayMs };
}

/** A row shows when anything of it counts in the range (a group whose counts all cancel out has none). */
const counts = (counters: Counters) => counters[field.events]! + counters[field.visits]! + counters[field.exits]! > 0;

/** The seqs of every event of the visits that converted on a goal (as of the projector's position). */
function goalVisitSeqs(db: Db, question: Selection, rule: GoalRule): number[] {
  const maxSeq = readProjectorPosition(db);
  const { siteIds } = question.scope;
  const visits = loadRawVisits(db, { siteIds, fromDay: question.range.fromDay, toDay: question.range.toDay, withInternal: question.withInternal, maxSeq });
  return convertedVisits(db, siteIds, visits, rule, maxSeq).flatMap((visit) => visit.events.map((event) => event.seq));
}

/** How a ranking groups: by its dimension, sources by their group when asked. */
export function rankingGrouping(question: RankingQuestion): Grouping {
  const keyOf = question.groupSources && question.by === 'source' ? groupedSourceKey : undefined;
  return { by: 'value', dim: dims[question.by], keyOf };
}

/** A ranking's page of rows from its grouped report, imported figures added (never to a rolling window: they are daily). */
export function rankedFigures(db: Db, question: RankingQuestion, report: GroupedReport): RankingFigures {
  const keyOf = question.groupSources && question.by === 'source' ? groupedSourceKey : undefined;
  const imported = takesImported(question) && question.sinceMs === undefined ? addImportedGroups(db, question, question.by, report.totals, keyOf) : undefined;
  const rows = rankRows(report, counts, field[question.order]);
  const page = rows.slice(question.offset, question.offset + question.limit);
  const visitors = report.visitorsOf(page.map((row) => row.key));
  const visitorsOf = (key: string) => (visitors.get(key) ?? 0) + (imported?.get(key) ?? 0);
  return {
    rows: page.map((row) => ({ key: row.key, figures: toFigures(row.totals, visitorsOf(row.key)) })),
    more: rows.length > question.offset + question.limit,
    ...(imported && { imported: true }),
  };
}

/**
 * A batch of rankings over a raw pass (raw-pass.ts): those a rollup carries read it now, the others ask the pass
 * (which must have the question's sinceMs) for their grouping; their figures once the pass has run, each equal to
 * ranking()'s for it.
 * @example const rankings = planRankings(db, question, pass); pass.run(); rankings();
 */
export function planRankings(db: Db, question: RankingsQuestion, pass: RawPass): () => RankingsFigures['rankings'] {
  const selection = toSelection(question);
  const asks = question.rankings.map((ask) => ({ ...question, ...ask, offset: 0 }));
  const reports = asks.map((ask): (() => GroupedReport) => {
    const grouping = rankingGrouping(ask);
    // A rolling window is cut at a moment, which rollups of whole days cannot do.
    const plan = question.sinceMs === undefined ? planRollupRead(selection, grouping) : undefined;
    if (plan) {
      const report = readRollups(db, plan);
      return () => report;
    }
    const groups = pass.group(grouping, true);
    return () => toGroupedReport(groups());
  });
  return () =>
    asks.map((ask, index) => {
      const report = reports[index]!();
      return { ...rankedFigures(db, ask, report), computedFrom: report.computedFrom };
    });
}

export function createSqliteReportReads({ db, waitForProjection }: SqliteReadOptions): ReportQuestions {
  return {
    async summary(question) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const selection = toSelection(question);
        const currentSeq = freshness.projectedSeq;
        // The days and the totals together: one scan of the raw events when no rollup carries the filters.
        const [byDay, whole] = groupedReports(db, { selection, groupings: [{ by: 'day' }, { by: 'all' }], currentSeq }) as [GroupedReport, GroupedReport];
        const days = daysOf(question.range);
        const dayVisitors = question.visitors ? byDay.visitorsOf(days.map(String)) : undefined;
        const imported = takesImported(question) ? importedDays(db, question) : new Map<number, ImportedCountsRow>();
        let importedVisitors = 0;
        for (const [day, row] of imported) {
          const key = String(day);
          const group = byDay.totals.get(key) ?? { counters: emptyCounters(), revenue: new Map() };
          byDay.totals.set(key, group);
          addImportedCounts(group.counters, row);
          const all = whole.totals.get('') ?? { counters: emptyCounters(), revenue: new Map() };
          whole.totals.set('', all);
          addImportedCounts(all.counters, row);
          importedVisitors += row.visitors;
        }
        const visitorsOf = (key: string, exact: number) => exact + (question.visitors ? (key === '' ? importedVisitors : (imported.get(Number(key))?.visitors ?? 0)) : 0);
        const total = toFigures(whole.totals.get(''), visitorsOf('', question.visitors ? whole.visitorsOf(['']).get('')! : 0));
        const series = days.map((day) => ({ day, ...toFigures(byDay.totals.get(String(day)), visitorsOf(String(day), dayVisitors?.get(String(day)) ?? 0)) }));
        return answered({ total, days: series, ...(imported.size > 0 && { imported: true }) }, freshness, caughtUp, whole.computedFrom);
      });
    },

    async ranking(question) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const report = groupedReport(db, {
          selection: toSelection(question),
          grouping: rankingGrouping(question),
          currentSeq: freshness.projectedSeq,
          asOfSeq: question.asOf,
          sinceMs: question.sinceMs,
        });
        return answered(rankedFigures(db, question, report), freshness, caughtUp, report.computedFrom);
      });
    },

    async rankings(question) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const pass = rawPass(db, toSelection(question), freshness.projectedSeq, question.sinceMs);
        const rankings = planRankings(db, question, pass);
        pass.run();
        const answers = rankings();
        return answered({ rankings: answers }, freshness, caughtUp, answers.some((ranking) => ranking.computedFrom === 'events') ? 'events' : 'rollups');
      });
    },

    async propValues(question) {
      // Read from the event log: only a visit filter needs the projector (its visits), as on the event endpoints.
      const needsVisits = question.filters.goal !== undefined || visitFilterNames.some((name) => question.filters[name] !== undefined);
      const caughtUp = needsVisits ? await waitForProjection() : true;
      return inSnapshot(db, () => {
        const rows = countPropValues(db, {
          only_seqs: question.filters.goal ? JSON.stringify(goalVisitSeqs(db, question, question.filters.goal.rule)) : null,
          site_ids: JSON.stringify(question.scope.siteIds),
          ...boundsOf(question.range),
          ...toEventFilterParams(question.filters, question.withInternal),
          type: question.type,
          property: question.property,
          value_chars: question.valueChars,
          row_limit: question.limit + 1,
        });
        return answered({ rows }, readFreshness(db, question.scope.siteIds), caughtUp, 'event_log');
      });
    },
  };
}
