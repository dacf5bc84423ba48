// The time questions over the embedded database. A series by day, week or month reads the rollups (a week or a
// month is a range of whole days, its visitors the union of its days'); a series by hour, and any figure cut at a
// moment (a partial period's comparison), is counted from raw events, since rollups keep whole days only. Realtime
// reads the event log by event time.
import type { Db } from '../../db/open.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { intervalStartOf, intervalStarts, type Interval } from '../../vocabulary/periods-interval.ts';
import type { ReportRange } from '../../vocabulary/report-filters.ts';
import type { Figures } from '../report-questions.ts';
import type { RealtimeFigures, SeriesFigures, SeriesQuestion, TimeQuestions } from '../time-questions.ts';
import type { ReportSelection } from './grouping.ts';
import { groupedReport, groupedReports, planRollupRead, rawGroupsCut } from './grouped-report.ts';
import { type RawPass, rawPass } from './raw-pass.ts';
import { toGroupedReport } from './raw-grouped.ts';
import { readRollups } from './rollup-grouped.ts';
import type { ComputedFrom } from '../questions.ts';
import { listRecentEvents } from './queries/recent-events.ts';
import type { RawGroup } from './raw-grouped.ts';
import { answered, daysOf, toFigures, toSelection, type SqliteReadOptions } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';
import { importedDays, takesImported } from './imported-figures.ts';
import type { ImportedCountsRow } from './queries/imported-daily.ts';

const minuteMs = 60_000;

/** The days of the interval starting at startMs, cut to the range. */
function intervalDays(startMs: number, next: number | undefined, range: ReportRange): ReportRange {
  const fromDay = Math.floor(startMs / dayMs);
  const toDay = next === undefined ? range.toDay : Math.min(range.toDay, Math.floor(next / dayMs) - 1);
  return { fromDay, toDay };
}

/**
 * Totals and points from the rollups (whole days), when one carries the filters: the day grouping, or one grouped read
 * per week or month (planSeries counts the points of filters no rollup carries in its raw pass).
 */
export function seriesFromRollups(db: Db, selection: ReportSelection, interval: Exclude<Interval, 'hour'>, currentSeq: number) {
  // The totals and the days together: one scan of the raw events when no rollup carries the filters.
  const [whole, byDay] = groupedReports(db, { selection, groupings: interval === 'day' ? [{ by: 'all' }, { by: 'day' }] : [{ by: 'all' }], currentSeq });
  const total = toFigures(whole!.totals.get(''), whole!.visitorsOf(['']).get('')!);
  if (interval === 'day' && byDay) {
    const days = daysOf(selection.range);
    const visitors = byDay.visitorsOf(days.map(String));
    const points = days.map((day) => ({ startMs: day * dayMs, ...toFigures(byDay.totals.get(String(day)), visitors.get(String(day))!) }));
    return { total, points, computedFrom: whole!.computedFrom };
  }
  const starts = intervalStarts(selection.range, interval);
  const points = starts.map((startMs, index) => {
    const part = groupedReport(db, { selection: { ...selection, range: intervalDays(startMs, starts[index + 1], selection.range) }, grouping: { by: 'all' }, currentSeq });
    return { startMs, ...toFigures(part.totals.get(''), part.visitorsOf(['']).get('')!) };
  });
  return { total, points, computedFrom: whole!.computedFrom };
}

/** Points (and totals) counted from raw events, optionally only up to a moment. */
function rawSeries(db: Db, selection: ReportSelection, interval: Interval, currentSeq: number, untilMs: number | undefined, sinceMs?: number) {
  const { range, filters } = selection;
  // One scan for the points and the totals, streamed over a large window (grouped-report.ts); no goal, as before.
  const bucket = { by: 'bucket' as const, bucketOf: (ms: number) => String(intervalStartOf(ms, interval, range)) };
  const [byInterval, whole] = rawGroupsCut(db, selection, currentSeq, [bucket, { by: 'all' }], { sinceMs, untilMs, withGoal: false }) as [Map<string, RawGroup>, Map<string, RawGroup>];
  // A window's points start at the interval holding its start.
  const firstStart = sinceMs === undefined ? -Infinity : intervalStartOf(sinceMs, interval, range);
  const figuresOf = (group: RawGroup | undefined): Figures => toFigures(group, group?.visitors.size ?? 0);
  return {
    total: figuresOf(whole.get('')),
    points: intervalStarts(range, interval)
      .filter((startMs) => startMs >= firstStart)
      .map((startMs) => ({ startMs, ...figuresOf(byInterval.get(String(startMs))) })),
  };
}

/** Adds imported daily counts to figures (as the summary adds them to its rollup counters). */
function addImportedFigures(figures: Figures, row: ImportedCountsRow): Figures {
  return {
    ...figures,
    visitors: figures.visitors + row.visitors,
    visits: figures.visits + row.visits,
    pageviews: figures.pageviews + row.pageviews,
    visitPageviews: figures.visitPageviews + row.pageviews,
    bounces: figures.bounces + row.bounces,
    durationMs: figures.durationMs + row.duration_s * 1000,
    events: figures.events + row.pageviews + row.events,
  };
}

/** The series with the imported days added: to the totals, and to the point holding each day (not to hours). */
export function withImported<Series extends { total: Figures; points: (Figures & { startMs: number })[] }>(series: Series, imported: Map<number, ImportedCountsRow>, interval: Interval): Series & { imported?: true } {
  if (imported.size === 0) return series;
  let total = series.total;
  const points = [...series.points];
  for (const [day, row] of imported) {
    total = addImportedFigures(total, row);
    if (interval === 'hour') continue;
    // The point whose interval holds the day: the last one starting at or before it.
    let index = -1;
    for (let at = 0; at < points.length && points[at]!.startMs <= day * dayMs; at++) index = at;
    if (index >= 0) points[index] = { ...addImportedFigures(points[index]!, row), startMs: points[index]!.startMs };
  }
  return { ...series, total, points, imported: true };
}

/**
 * A series of a whole period (SeriesQuestion without untilMs) over a raw pass (raw-pass.ts, with the question's
 * sinceMs): what rollups answer is read now, what needs raw events asked of the pass; the figures once it has run.
 * Rollups where one carries the filters, the totals as every other report counts them; hours, and a rolling window,
 * from the raw events by design (event_log, so an answer over days whose raw events a retention period removed says
 * so), without the goal filter (the raw series never applied one).
 * @example const series = planSeries(db, question, currentSeq, pass); pass.run(); series();
 */
export function planSeries(db: Db, question: SeriesQuestion, currentSeq: number, pass: RawPass): () => SeriesFigures & { computedFrom: ComputedFrom } {
  const selection = toSelection(question);
  const { range } = selection;
  const { interval, sinceMs } = question;
  const bucket = { by: 'bucket' as const, bucketOf: (ms: number) => String(intervalStartOf(ms, interval, range)) };
  const figuresOf = (group: RawGroup | undefined): Figures => toFigures(group, group?.visitors.size ?? 0);
  const rawPoints = (byInterval: Map<string, RawGroup>, firstStart: number) =>
    intervalStarts(range, interval)
      .filter((startMs) => startMs >= firstStart)
      .map((startMs) => ({ startMs, ...figuresOf(byInterval.get(String(startMs))) }));
  if (sinceMs !== undefined) {
    // A window's points start at the interval holding its start.
    const [byInterval, whole] = [pass.group(bucket, false), pass.group({ by: 'all' }, false)];
    return () => ({ total: figuresOf(whole().get('')), points: rawPoints(byInterval(), intervalStartOf(sinceMs, interval, range)), computedFrom: 'event_log' });
  }
  const imported = takesImported(question) ? importedDays(db, question) : new Map<number, ImportedCountsRow>();
  const plan = planRollupRead(selection, { by: 'all' });
  if (interval === 'hour') {
    const rollupTotal = plan && readRollups(db, plan);
    const rawTotal = plan ? undefined : pass.group({ by: 'all' }, true);
    const byHour = pass.group(bucket, false);
    return () => {
      const whole = rollupTotal ?? toGroupedReport(rawTotal!());
      const total = toFigures(whole.totals.get(''), whole.visitorsOf(['']).get('')!);
      return { ...withImported({ total, points: rawPoints(byHour(), -Infinity) }, imported, 'hour'), computedFrom: 'event_log' };
    };
  }
  if (plan) {
    const { computedFrom, ...figures } = seriesFromRollups(db, selection, interval, currentSeq);
    return () => ({ ...withImported(figures, imported, interval), computedFrom });
  }
  // No rollup carries the filters: the totals and every point from the pass (a week's or a month's visitors are
  // those of its events, as its own grouped read of its days counts them).
  const [whole, byInterval] = [pass.group({ by: 'all' }, true), pass.group(bucket, true)];
  return () => ({ ...withImported({ total: figuresOf(whole().get('')), points: rawPoints(byInterval(), -Infinity) }, imported, interval), computedFrom: 'events' });
}

export function createSqliteTimeReads({ db, waitForProjection }: SqliteReadOptions): TimeQuestions {
  return {
    async series(question: SeriesQuestion) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const selection = toSelection(question);
        const currentSeq = freshness.projectedSeq;
        // A period cut at a moment (a partial comparison) is counted from raw events alone.
        if (question.untilMs !== undefined) return answered(rawSeries(db, selection, question.interval, currentSeq, question.untilMs, question.sinceMs), freshness, caughtUp, 'event_log');
        const pass = rawPass(db, selection, currentSeq, question.sinceMs);
        const series = planSeries(db, question, currentSeq, pass);
        pass.run();
        const { computedFrom, ...figures } = series();
        return answered(figures, freshness, caughtUp, computedFrom);
      });
    },

    async realtime(question) {
      return inSnapshot(db, () => {
        const { nowMs } = question;
        const perMinute = Array.from({ length: 30 }, () => 0);
        const last5m = new Set<string>();
        const last30m = new Set<string>();
        let pageviews = 0;
        for (const siteId of question.scope.siteIds) {
          for (const row of listRecentEvents(db, { site_id: siteId, after_ms: nowMs - 30 * minuteMs, upto_ms: nowMs })) {
            last30m.add(row.anon_id);
            if (row.ts > nowMs - 5 * minuteMs) last5m.add(row.anon_id);
            if (row.type !== 'pageview') continue;
            pageviews++;
            // Minute 29 holds now − 1 min < ts ≤ now: an event exactly on a boundary counts in the minute it ends.
            perMinute[29 - Math.floor((nowMs - row.ts) / minuteMs)]! += 1;
          }
        }
        const figures: RealtimeFigures = { visitorsLast5m: last5m.size, visitorsLast30m: last30m.size, pageviewsLast30m: pageviews, perMinute };
        return answered(figures, readFreshness(db, question.scope.siteIds), true, 'event_log');
      });
    },
  };
}
