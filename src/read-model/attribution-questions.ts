// The attribution questions (attribution results, ROI and its comparison, docs/attribution-and-spend.md): the
// purchases of a time range, each with the person who converted and the visits that led to it. Crediting the visits
// under a model, and summing, is the attribution's own.
import type { Answer, LogPosition, ReadScope } from './questions.ts';

/** Where a conversion stands in (ts, seq) order: a page of conversions starts after one. */
export interface ConversionAt {
  ts: number;
  seq: LogPosition;
}

/** One set of conversions asked: a time range, optionally one purchase, optionally one page. */
export interface ConversionRange {
  /** The conversions' time, inclusive bounds, epoch ms. */
  startMs: number;
  endMs: number;
  /** Only the purchase with this event id (lower case); null: every purchase. */
  eventId: string | null;
  /** A page: at most `limit` conversions after `after`. Without it, every conversion of the range. */
  page?: { after: ConversionAt | null; limit: number };
}

export interface ConversionsQuestion {
  scope: ReadScope;
  /** Read together, in one snapshot and as of one position (a page and its totals, or two ranges compared). */
  ranges: readonly ConversionRange[];
  /** A visit is a touchpoint when it starts at most this long before the conversion. */
  lookbackMs: number;
  /** An earlier answer's position (a later page): conversions up to it. Absent: the projector's position. */
  asOf?: LogPosition;
}

/** A visit that led to a conversion. */
export interface Touchpoint {
  /** The visit's start, epoch ms. */
  startMs: number;
  source: string;
  medium: string | null;
  campaign: string | null;
}

/** A purchase (non-bot, not internal), with who made it and the visits before it. */
export interface Conversion extends ConversionAt {
  /** The purchase event's id. */
  id: string;
  siteId: string;
  /** The person: the purchase's user_id, else the user its anon_id is bound to on the site (the binding seen last), else none. */
  userId: string | null;
  anonId: string;
  /** In integer minor units; null for a purchase without revenue. */
  revenue: { minor: number; currency: string } | null;
  /**
   * The person's visits on the site (every anon_id of the user, or the one anon_id) that start in
   * [ts − lookback, ts), internal traffic left out, oldest first (then by anon_id).
   */
  touchpoints: Touchpoint[];
}

export interface ConversionsFigures {
  /** Conversions were read up to this position: the question's asOf, else the projector's (freshness.position). */
  asOf: LogPosition;
  /** One per range asked, in its order: its conversions in (ts, seq) order, and for a page whether more follow. */
  ranges: { conversions: Conversion[]; more: boolean }[];
}

export interface AttributionQuestions {
  /**
   * Purchases of time ranges with their touchpoints, every range read in one snapshot.
   * @example await readModel.conversions({ scope, ranges: [{ startMs, endMs, eventId: null }], lookbackMs: 30 * dayMs })
   */
  conversions(question: ConversionsQuestion): Promise<Answer<ConversionsFigures>>;
}
