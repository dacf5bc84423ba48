// The time questions: a selection's figures in a series of hours, days, weeks or months, optionally only up to a
// moment (the same part of a previous period as the current one has run), and what is happening right now
// (realtime-v2: the last 30 minutes by event time, from the stored events).
import type { Answer, ReadScope, Selection } from './questions.ts';
import type { Figures } from './report-questions.ts';
import type { Interval } from '../vocabulary/periods-interval.ts';

export interface SeriesQuestion extends Selection {
  interval: Interval;
  /**
   * Count only events before this time (epoch ms), and visits as far as they went before it: a partial period's
   * comparison (the same part of the previous period). Absent: the whole range.
   */
  untilMs?: number;
  /**
   * Count only events at or after this time (epoch ms), and visits starting at or after it; the points start at
   * its interval (a rolling window such as the last 24 hours). Absent: from the range's first day.
   */
  sinceMs?: number;
}

export interface SeriesFigures {
  /** The selection's figures in the range (up to untilMs), with exact visitors. */
  total: Figures;
  /** One point per interval of the range, oldest first, empty ones included; startMs: the interval's start, cut to the range. */
  points: (Figures & { startMs: number })[];
  /**
   * Imported daily figures (docs/import-export.md) are added: to the totals, and to the points of a series by day,
   * week or month (an hour holds none: they are daily); their visitors are sums over days.
   */
  imported?: boolean;
}

export interface RealtimeQuestion {
  scope: ReadScope;
  /** The moment "now" is (epoch ms): the windows end at it. */
  nowMs: number;
}

/** Counted from stored events by event time; an event counts in a window when now − window < ts ≤ now. Internal traffic and bots never count. */
export interface RealtimeFigures {
  visitorsLast5m: number;
  visitorsLast30m: number;
  pageviewsLast30m: number;
  /** 30 per-minute pageview counts, oldest first: minute i holds now − (30 − i) min < ts ≤ now − (29 − i) min. */
  perMinute: number[];
}

export interface TimeQuestions {
  /**
   * The selection's totals and its series by interval.
   * @example await readModel.series({ scope, range, filters: {}, withInternal: false, interval: 'hour' })
   */
  series(question: SeriesQuestion): Promise<Answer<SeriesFigures>>;
  /**
   * The last 30 minutes of a scope, from the stored events (not from any derived table: it is exact at once).
   * @example await readModel.realtime({ scope, nowMs: clock.now() })
   */
  realtime(question: RealtimeQuestion): Promise<Answer<RealtimeFigures>>;
}
