// The report questions (summary-v2, pages-v2, sources-v2, campaigns-v2, breakdown-v2, props-v2 and the legacy
// reports): figures of the visits and events a selection picks, in total, by day, or ranked by a dimension.
import type { Answer, ComputedFrom, LogPosition, ReadScope, Selection } from './questions.ts';
import type { ReportRange } from '../vocabulary/report-filters.ts';

/** The figures of a group of visits and events (CONTRACT section 4, docs/reports.md). */
export interface Figures {
  /** Distinct anon_ids with a counted event (exact; 0 where the question asked for no visitors). */
  visitors: number;
  /** Visits that start in the range. */
  visits: number;
  pageviews: number;
  events: number;
  /** Visits with exactly one pageview and no other event. */
  bounces: number;
  /** Sum of the visits' durations (last event time − first), in milliseconds. */
  durationMs: number;
  /** Pageviews and events of the visits that start in the range. */
  visitPageviews: number;
  visitEvents: number;
  /** Visits whose last pageview is on the page (pages only). */
  exits: number;
  /** Purchase events. */
  conversions: number;
  /** Revenue by currency in integer minor units (campaigns only), zero amounts left out. */
  revenue: ReadonlyMap<string, number>;
}

export interface SummaryQuestion extends Selection {
  /** Count exact visitors (the union of the range's visitors, and each day's); legacy reports need none. */
  visitors: boolean;
}

export interface SummaryFigures {
  total: Figures;
  /** One entry per day of the range, oldest first, empty days included. */
  days: (Figures & { day: number })[];
  /** Imported daily figures (Plausible's aggregates) are added: visitors are then sums over days, not exact. */
  imported?: boolean;
}

/** What a ranking groups by: a page's path, the path with its query, a visit dimension, or the event type. */
export type RankDimension = 'path' | 'page' | 'source' | 'campaign' | 'device' | 'browser' | 'os' | 'country' | 'region' | 'city' | 'type';

export interface RankingQuestion extends Selection {
  by: RankDimension;
  /** Rows ranked by this figure, descending, then by key ascending. */
  order: 'pageviews' | 'visits' | 'events';
  /** Rows to skip and rows to give (visitors are counted for those rows only). */
  offset: number;
  limit: number;
  /** Answer as of this earlier position (the later pages of a paged ranking), not the current one. */
  asOf?: LogPosition;
  /**
   * With by: 'source', rows are grouped sources (source-groups.ts): a group's row is keyed by its name ("Google"),
   * its figures the sums of its stored sources' and its visitors the union of theirs (exact); other sources keep
   * their own row.
   */
  groupSources?: boolean;
  /**
   * Count only events at or after this time (epoch ms), and visits starting at or after it: a rolling window inside
   * the range (the dashboard's "last 24 hours"), counted from raw events as summary-v2's since= is.
   */
  sinceMs?: number;
}

/** One ranking of a batch: its first page (offset 0). */
export type RankingAsk = Pick<RankingQuestion, 'by' | 'order' | 'limit' | 'groupSources'>;

/** Several rankings of one selection (a dashboard's panels), answered together. */
export interface RankingsQuestion extends Selection {
  rankings: readonly RankingAsk[];
  /** As RankingQuestion's: a rolling window, for every ranking of the batch. */
  sinceMs?: number;
}

export interface RankingsFigures {
  /** One answer per ranking asked, in its order, each what ranking() answers for it (offset 0), with its source. */
  rankings: (RankingFigures & { computedFrom: ComputedFrom })[];
}

export interface RankingFigures {
  /** key: the path, page, source, campaign key (src/vocabulary/dimensions.ts), dimension value or event type. */
  rows: { key: string; figures: Figures }[];
  /** Rows exist past offset + limit. */
  more: boolean;
  /** Imported daily figures are added (as for SummaryFigures). */
  imported?: boolean;
}

export interface PropValuesQuestion extends Selection {
  type: string;
  property: string;
  /** Values are cut to this many characters and grouped by what remains. */
  valueChars: number;
  limit: number;
}

export interface PropValuesFigures {
  /** Most events first, then value; at most limit + 1 rows (the extra one says there are more). */
  rows: { value: string; events: number; visitors: number }[];
}

export interface ReportQuestions {
  /**
   * The selection's totals and its days.
   * @example await readModel.summary({ scope, range, filters: {}, withInternal: false, visitors: true })
   */
  summary(question: SummaryQuestion): Promise<Answer<SummaryFigures>>;
  /**
   * Groups ranked by a figure, one page of them with exact visitors.
   * @example await readModel.ranking({ ...selection, by: 'source', order: 'visits', offset: 0, limit: 10 })
   */
  ranking(question: RankingQuestion): Promise<Answer<RankingFigures>>;
  /**
   * Several rankings of one selection as of one position, each equal to ranking()'s answer for it: a dashboard's
   * panels after a filter click, read from one scan of the selection's raw events where rollups cannot answer.
   * `computedFrom` is `events` when any ranking needed raw events.
   * @example await readModel.rankings({ ...selection, rankings: [{ by: 'path', order: 'pageviews', limit: 10 }, { by: 'country', order: 'visits', limit: 10 }] })
   */
  rankings(question: RankingsQuestion): Promise<Answer<RankingsFigures>>;
  /** One event type's events and visitors by the values of one of its props, read from the event log. */
  propValues(question: PropValuesQuestion): Promise<Answer<PropValuesFigures>>;
}

/** A selection of one site's whole traffic without internal visits: what the legacy reports read. */
export function legacySelection(scope: ReadScope, range: ReportRange): Selection {
  return { scope, range, filters: {}, withInternal: false };
}
