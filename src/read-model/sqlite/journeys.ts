// Conversions and their journeys: the purchases of a range, each with the person who converted (anon_ids merged
// through user_id on the site) and the visits of that person that started within the lookback before it, read
// through the purchase and visit queries (queries/purchase-events.ts, queries/visits-of-anon-ids.ts).
import type { Db } from '../../db/open.ts';
import { anonIdsOfUser } from '../../projector/queries/identity-rows.ts';
import type { Conversion, ConversionAt, ConversionRange } from '../attribution-questions.ts';
import { listPurchaseEvents, type PurchaseEventRow } from './queries/purchase-events.ts';
import { findUserOfAnon } from './queries/user-of-anon.ts';
import { listVisitsOfAnonIds } from './queries/visits-of-anon-ids.ts';

/** Purchases read per statement when a whole range is asked. */
const pageSize = 5000;
const beforeFirst: ConversionAt = { ts: -1, seq: -1 };

/**
 * The person is the conversion's user_id, else the user its anon_id is bound to on the site (the binding seen
 * last), else the anon_id alone. Touchpoints start in [ts − lookback, ts): a visit that begins with the conversion
 * itself (a server-side purchase with no earlier visit) is not a touchpoint of it.
 */
function toConversion(db: Db, row: PurchaseEventRow, lookbackMs: number): Conversion {
  const userId = row.user_id ?? findUserOfAnon(db, row.site_id, row.anon_id);
  const anonIds = new Set([row.anon_id]);
  if (userId !== undefined) for (const anonId of anonIdsOfUser(db, row.site_id, userId)) anonIds.add(anonId);
  const visits = listVisitsOfAnonIds(db, {
    site_id: row.site_id,
    anon_ids: JSON.stringify([...anonIds]),
    start_from: row.ts - lookbackMs,
    start_before: row.ts,
  });
  return {
    id: row.id,
    siteId: row.site_id,
    ts: row.ts,
    seq: row.seq,
    userId: userId ?? null,
    anonId: row.anon_id,
    revenue: row.revenue_minor !== null && row.revenue_currency !== null ? { minor: row.revenue_minor, currency: row.revenue_currency } : null,
    touchpoints: visits.map((visit) => ({ startMs: visit.start_ts, source: visit.source, medium: visit.utm_medium, campaign: visit.utm_campaign })),
  };
}

export interface ConversionsRead {
  siteIds: readonly string[];
  range: ConversionRange;
  /** Conversions up to this seq: their visits are derived. */
  maxSeq: number;
  lookbackMs: number;
}

/**
 * One range's conversions with their journeys, oldest first: a page (limit + 1 read to tell whether more follow),
 * or the whole range, a statement per pageSize purchases. Call inside one snapshot.
 * @example readConversions(db, { siteIds: ['shop'], range, maxSeq: 120, lookbackMs }).conversions[0].touchpoints
 */
export function readConversions(db: Db, read: ConversionsRead): { conversions: Conversion[]; more: boolean } {
  const { range } = read;
  const params = (after: ConversionAt, limit: number) => ({
    site_ids: JSON.stringify(read.siteIds),
    start_ms: range.startMs,
    end_ms: range.endMs,
    max_seq: read.maxSeq,
    event_id: range.eventId,
    after_ts: after.ts,
    after_seq: after.seq,
    limit,
  });
  if (range.page) {
    const { limit } = range.page;
    const rows = listPurchaseEvents(db, params(range.page.after ?? beforeFirst, limit + 1));
    return { conversions: rows.slice(0, limit).map((row) => toConversion(db, row, read.lookbackMs)), more: rows.length > limit };
  }
  const conversions: Conversion[] = [];
  let after = beforeFirst;
  for (;;) {
    const rows = listPurchaseEvents(db, params(after, pageSize));
    for (const row of rows) conversions.push(toConversion(db, row, read.lookbackMs));
    if (rows.length < pageSize) break;
    after = rows[rows.length - 1]!;
  }
  return { conversions, more: false };
}
