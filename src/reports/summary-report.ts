// GET /sites/:siteId/reports/summary-v2: the headline numbers of the range and a dense series by interval (hours
// for one day, days otherwise, or as asked), and optionally the same of a comparison period. A period still running
// (it holds now) is compared with the same part of the previous one: as many milliseconds from its start.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Figures } from '../read-model/report-questions.ts';
import type { Answer, Selection } from '../read-model/questions.ts';
import type { SeriesFigures } from '../read-model/time-questions.ts';
import { toIso } from '../clock.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import { type CommonParams, type QueryValues, single } from '../reading/common-params.ts';
import { measuresOf, withPageVisitors } from '../reading/measures.ts';
import { averageSeconds, buildMeta, ratio } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import { dayMs, toDateText } from '../vocabulary/periods.ts';
import { defaultInterval, type Interval, intervalLabel, intervals, maxSeriesPoints, seriesLength } from '../vocabulary/periods-interval.ts';
import type { ReportRange } from '../vocabulary/report-filters.ts';
import type { SummaryAnswer } from './answers.ts';
import { parseSince } from './since-param.ts';

export const compareModes = ['previous', 'year'] as const;
export type CompareMode = (typeof compareModes)[number];

export interface SummaryOptions {
  interval: Interval;
  compare: CompareMode | undefined;
  /** since: count from this UTC hour (epoch ms) of the range's first day on (a rolling "last 24 hours"). */
  sinceMs?: number;
}

/** The read model's selection of a V2 report's scope and common parameters. */
export function selectionOf(scope: ReportScope, params: CommonParams): Selection {
  return { scope, range: params.range, filters: params.filters, withInternal: params.withInternal };
}

/** interval (hour|day|week|month, at most maxSeriesPoints points) and compare (previous|year). */
export function parseSummaryOptions(query: QueryValues, range: ReportRange): SummaryOptions {
  const intervalText = single(query, 'interval');
  if (intervalText !== undefined && !(intervals as readonly string[]).includes(intervalText)) throw reportErrors.invalidParam('interval', 'must be hour, day, week or month');
  const interval = (intervalText as Interval | undefined) ?? defaultInterval(range);
  if (seriesLength(range, interval) > maxSeriesPoints) {
    throw reportErrors.invalidParam('interval', `makes more than ${maxSeriesPoints} points: hour takes a range of at most ${maxSeriesPoints / 24} days`);
  }
  const compare = single(query, 'compare');
  if (compare !== undefined && !(compareModes as readonly string[]).includes(compare)) throw reportErrors.invalidParam('compare', 'must be previous or year');
  const sinceMs = parseSince(query, range);
  if (sinceMs === undefined) return { interval, compare: compare as CompareMode | undefined };
  if (intervalText !== undefined && intervalText !== 'hour') throw reportErrors.invalidParam('interval', 'must be hour with since');
  return { interval: 'hour', compare: compare as CompareMode | undefined, sinceMs };
}

/**
 * The comparison of a window from `sinceMs` to the range's end: the window just as long just before it (previous) or
 * 364 days earlier (year), cut like a running period's when the window holds now.
 * @example windowComparison({ fromDay: 20599, toDay: 20600 }, 20599 * dayMs + 11 * 3_600_000, 'previous', now) // the 24 hours before
 */
export function windowComparison(range: ReportRange, sinceMs: number, mode: CompareMode, now: number): { range: ReportRange; sinceMs: number; untilMs: number; partial: boolean } {
  const endMs = (range.toDay + 1) * dayMs;
  const shift = mode === 'year' ? 364 * dayMs : endMs - sinceMs;
  const running = now >= sinceMs && now < endMs;
  const untilMs = (running ? now : endMs) - shift;
  return { range: { fromDay: Math.floor((sinceMs - shift) / dayMs), toDay: Math.floor((endMs - 1 - shift) / dayMs) }, sinceMs: sinceMs - shift, untilMs, partial: running };
}

/**
 * The comparison's days: as many days just before, or 364 days earlier (52 weeks: the same weekdays); and, when the
 * range holds `now`, the moment its count stops: as far into it as `now` is into the range.
 * @example comparisonOf({ fromDay: 20600, toDay: 20600 }, 'previous', 20600 * dayMs + 3_600_000) // { range: 20599-20599, untilMs: 20599 days + 1 h }
 */
export function comparisonOf(range: ReportRange, mode: CompareMode, now: number): { range: ReportRange; untilMs: number | undefined } {
  const shift = mode === 'year' ? 364 : range.toDay - range.fromDay + 1;
  const compared = { fromDay: range.fromDay - shift, toDay: range.toDay - shift };
  const startMs = range.fromDay * dayMs;
  const running = now >= startMs && now < (range.toDay + 1) * dayMs;
  return { range: compared, untilMs: running ? compared.fromDay * dayMs + (now - startMs) : undefined };
}

function figuresAnswer(total: Figures) {
  return {
    visitors: total.visitors,
    visits: total.visits,
    pageviews: total.pageviews,
    events: total.events,
    bounce_rate: ratio(total.bounces, total.visits),
    avg_visit_duration_s: averageSeconds(total.durationMs, total.visits),
    views_per_visit: ratio(total.visitPageviews, total.visits),
  };
}

function seriesAnswer(figures: SeriesFigures, interval: Interval) {
  return figures.points.map((point) => ({ date: intervalLabel(point.startMs, interval), visitors: point.visitors, visits: point.visits, pageviews: point.pageviews }));
}

/** `annotations`: those of the range the reader sees (meta.annotations). */
export async function summaryReport(
  context: AppContext,
  readModel: ReadModel,
  scope: ReportScope,
  params: CommonParams,
  options: SummaryOptions,
  annotations: SummaryAnswer['meta']['annotations'] = [],
): Promise<SummaryAnswer> {
  const current = await readModel.series({ ...selectionOf(scope, params), interval: options.interval, sinceMs: options.sinceMs });
  return summaryWithComparison(context, readModel, scope, params, options, current, annotations);
}

/**
 * summary-v2's answer from its current series (read alone, or with a dashboard's other panels): its comparison read
 * here, then both put in the answer's shape.
 */
export async function summaryWithComparison(
  context: AppContext,
  readModel: ReadModel,
  scope: ReportScope,
  params: CommonParams,
  options: SummaryOptions,
  current: Answer<SeriesFigures>,
  annotations: SummaryAnswer['meta']['annotations'],
): Promise<SummaryAnswer> {
  const now = context.clock.now();
  const selection = selectionOf(scope, params);
  const { sinceMs } = options;
  const compared: { range: ReportRange; untilMs: number | undefined; sinceMs?: number; partial: boolean } | undefined =
    options.compare === undefined
      ? undefined
      : sinceMs === undefined
        ? { ...comparisonOf(params.range, options.compare, now), partial: false }
        : windowComparison(params.range, sinceMs, options.compare, now);
  if (compared && sinceMs === undefined) compared.partial = compared.untilMs !== undefined;
  const previous = compared && (await readModel.series({ ...selection, range: compared.range, interval: options.interval, untilMs: compared.untilMs, sinceMs: compared.sinceMs }));
  const meta = buildMeta({
    scope,
    params,
    measures: withPageVisitors(measuresOf('visitors', 'visits', 'pageviews', 'events', 'bounce_rate', 'avg_visit_duration_s', 'views_per_visit'), params.filters.path !== undefined),
    freshness: current.freshness,
    caughtUp: current.freshness.caughtUp,
    computedFrom: current.computedFrom,
    imported: current.imported,
    truncated: false,
    nextCursor: null,
    limit: null,
    now,
  });
  return {
    meta: {
      ...meta,
      annotations,
      interval: options.interval,
      ...(compared && {
        comparison: {
          from: toDateText(compared.range.fromDay),
          to: toDateText(compared.range.toDay),
          partial: compared.partial,
          until: compared.partial && compared.untilMs !== undefined ? toIso(compared.untilMs) : null,
          ...(compared.sinceMs !== undefined && { since: toIso(compared.sinceMs) }),
        },
      }),
    },
    data: {
      ...figuresAnswer(current.total),
      series: seriesAnswer(current, options.interval),
      ...(previous && { comparison: { ...figuresAnswer(previous.total), series: seriesAnswer(previous, options.interval) } }),
    },
  };
}
