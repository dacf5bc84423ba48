// The visit_sequences table (schema version 30): one row per visit with a pageview, its start, its visitor (vid × 2 +
// internal) and its pages as packed path ids. Written only through src/projector/visit-sequences.ts (its owner);
// journeys and page flow read a range of it (src/read-model/sqlite/visit-sequences.ts).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { Dim } from '../../vocabulary/dimensions.ts';
import type { VisitRow } from './visit-rows.ts';

export interface VisitSequenceRow {
  site_id: string;
  start_ts: number;
  /** vid × 2 + is_internal. */
  visitor: number;
  /** Path value ids (report_values, the path dimension) as unsigned LEB128, consecutive repeats collapsed. */
  pages: Buffer;
}

/** A visitor's visits starting in [from_ts, to_ts] (inclusive): the rows a visit spanning that time replaces. */
export interface VisitorSpan {
  site_id: string;
  visitor: number;
  from_ts: number;
  to_ts: number;
}

export interface VisitEventsOfSpan {
  site_id: string;
  vid: number;
  is_internal: number;
  from_ts: number;
  to_ts: number;
  max_seq: number;
}

export interface BackfillState {
  after_visit: number;
  last_visit: number;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<VisitSequenceRow>('INSERT INTO visit_sequences (site_id, start_ts, visitor, pages) VALUES (:site_id, :start_ts, :visitor, :pages)'),
  // Through the primary key's (site_id, start_ts) range: the site's visits starting inside one visit's span (a few).
  deleteInSpan: db.prepare<VisitorSpan>('DELETE FROM visit_sequences WHERE site_id = :site_id AND start_ts >= :from_ts AND start_ts <= :to_ts AND visitor = :visitor'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM visit_sequences WHERE site_id = ?'),
  // Through the visitor index, in (ts, seq) order; a pageview's path, else null (custom events only keep the visit
  // going). vid and site_id name one anon_id: no need to read anon_id out of raw.
  spanEvents: db
    .prepare<VisitEventsOfSpan, [number, string | null]>(
      `SELECT ve.ts, CASE WHEN e.type = 'pageview' THEN e.path END FROM visitor_events ve JOIN events e ON e.seq = ve.seq
        WHERE ve.vid = :vid AND ve.ts >= :from_ts AND ve.ts <= :to_ts AND ve.seq <= :max_seq
          AND e.site_id = :site_id AND e.is_internal = :is_internal AND e.is_bot = 0
        ORDER BY ve.ts, ve.seq`,
    )
    .raw(),
  // One string for the whole range: a JS value (a Buffer) per row cost more than the rows' reading itself.
  inRange: db
    .prepare<{ site_id: string; start_ms: number; end_ms: number }, string | null>(
      `SELECT group_concat(visitor || ' ' || hex(pages), ' ') FROM visit_sequences
        WHERE site_id = :site_id AND start_ts >= :start_ms AND start_ts < :end_ms`,
    )
    .pluck(),
  // Only rows whose blob holds the bytes of one path id: every visit with that page, and a few more (the bytes can
  // also end a longer id's), which the reader checks.
  inRangeWith: db
    .prepare<{ site_id: string; start_ms: number; end_ms: number; needle: Buffer }, string | null>(
      `SELECT group_concat(visitor || ' ' || hex(pages), ' ') FROM visit_sequences
        WHERE site_id = :site_id AND start_ts >= :start_ms AND start_ts < :end_ms AND instr(pages, :needle) > 0`,
    )
    .pluck(),
  pathTexts: db
    .prepare<[string, string], [number, string]>(`SELECT value_id, value FROM report_values WHERE site_id = ? AND dim = ${Dim.path} AND value_id IN (SELECT value FROM json_each(?))`)
    .raw(),
  backfill: db.prepare<[], BackfillState>('SELECT after_visit, last_visit FROM visit_sequences_backfill'),
  backfillAdvance: db.prepare<[number]>('UPDATE visit_sequences_backfill SET after_visit = ?'),
  backfillFinish: db.prepare('DELETE FROM visit_sequences_backfill'),
  visitsAfter: db.prepare<[number, number, number], VisitRow>('SELECT * FROM sessions WHERE id > ? AND id <= ? ORDER BY id LIMIT ?'),
  visitsStartedBefore: db.prepare<[string, string, number], VisitRow>('SELECT * FROM sessions WHERE site_id = ? AND anon_id = ? AND start_ts < ?'),
}));

export function insertVisitSequence(db: Db, row: VisitSequenceRow): void {
  statements(db).insert.run(row);
}

export function deleteVisitSequencesInSpan(db: Db, span: VisitorSpan): void {
  statements(db).deleteInSpan.run(span);
}

export function deleteVisitSequencesOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}

/** A visitor's kept non-bot events of one traffic kind in [from_ts, to_ts], in order: [ts, a pageview's path or null]. */
export function listSpanEvents(db: Db, span: VisitEventsOfSpan): [number, string | null][] {
  return statements(db).spanEvents.all(span);
}

/**
 * Every visit of a site starting in [start_ms, end_ms), in no particular order, as one text: "visitor HEX" pairs
 * (the visitor in decimal, the pages blob in upper-case hex), all separated by single spaces ('' when none). With a
 * needle (a packed path id), at least the visits holding that path.
 */
export function readVisitSequencesText(db: Db, siteId: string, startMs: number, endMs: number, needle?: Buffer): string {
  const params = { site_id: siteId, start_ms: startMs, end_ms: endMs };
  return (needle ? statements(db).inRangeWith.get({ ...params, needle }) : statements(db).inRange.get(params)) ?? '';
}

/** The text of some path value ids of a site. */
export function listPathTexts(db: Db, siteId: string, ids: readonly number[]): [number, string][] {
  return statements(db).pathTexts.all(siteId, JSON.stringify(ids));
}

/** The pending backfill of schema version 30 (undefined once done, or when nothing was projected before it). */
export function readBackfillState(db: Db): BackfillState | undefined {
  return statements(db).backfill.get();
}

export function advanceBackfill(db: Db, afterVisit: number): void {
  statements(db).backfillAdvance.run(afterVisit);
}

export function finishBackfill(db: Db): void {
  statements(db).backfillFinish.run();
}

/** Stored visits with id in (after, last], by id, at most `limit`. */
export function listVisitsAfter(db: Db, after: number, last: number, limit: number): VisitRow[] {
  return statements(db).visitsAfter.all(after, last, limit);
}

/** A visitor's stored visits (both traffic kinds) starting before `beforeMs`. */
export function listVisitsStartedBefore(db: Db, siteId: string, anonId: string, beforeMs: number): VisitRow[] {
  return statements(db).visitsStartedBefore.all(siteId, anonId, beforeMs);
}
