// The visitor index: (visitor number, ts, seq) of every projected event of an existing site, bots included, and its
// reverse, event_visitors (seq → visitor number: a funnel groups a range's events by it, src/read-model/sqlite/funnel-population.ts). The
// projector writes it with its batches, so the acknowledging commit keeps no index by visitor (a random page written
// per event: docs/ingest.md, "The visitor index"). Reads of one visitor's events go through it up to the projector's
// position; a timeline adds the event log's tail past it (events_by_site), so it sees an event once it is
// acknowledged. A visitor number is shared by the sites of a workspace, so every read joins the event and checks
// its site and anon_id.
import type { Db } from '../../db/open.ts';
import { rawEventColumns, type RawEventRow } from '../../event-store/queries/raw-window-events.ts';
import type { LoggedEvent } from '../../event-store/stored-event.ts';
import { preparedOnce } from '../../db/statements.ts';

const visitorNumber = '(SELECT vid FROM report_visitors WHERE site_id = :site_id AND anon_id = :anon_id)';

export interface VisitEventsParams {
  site_id: string;
  anon_id: string;
  is_internal: number;
  start_ts: number;
  end_ts: number;
  /** An event to leave out (the one being projected, counted on its own). */
  except_seq: number;
  /** Only events the projector has reached: later ones are counted when it reaches them. */
  max_seq: number;
}

export interface VisitEventRow {
  seq: number;
  ts: number;
  type: string;
  path: string | null;
  query: string | null;
  revenue_minor: number | null;
  revenue_currency: string | null;
}

export interface VisitorWindowParams {
  site_id: string;
  anon_id: string;
  start_ms: number;
  end_ms: number;
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: number;
  /** At most the projector's position: the index holds nothing past it. */
  max_seq: number;
}

export interface VisitorTimelineParams {
  site_id: string;
  anon_id: string;
  /** Inclusive lower bound of ts, epoch ms. */
  not_before: number;
  /** Exclusive upper bound of ts, epoch ms. */
  before: number;
  /** At most this many rows; -1 for all. */
  limit: number;
}

/** The columns a timeline shows: never props, the user agent or anything else derived from them. */
export interface VisitorTimelineRow {
  seq: number;
  id: string;
  type: string;
  ts: number;
  anon_id: string;
  country: string | null;
  city: string | null;
  browser: string | null;
  os: string | null;
  device_type: string | null;
  /** The text received: url and referrer are read from it, nothing else (src/event-store/wire-fields.ts). */
  raw: string;
}

const timelineColumns = 'e.seq, e.id, e.type, e.ts, e.anon_id, e.country, e.city, e.browser, e.os, e.device_type, e.raw';

/**
 * Newest first (ts, then seq): the index walked backwards from `before` up to the projector's position, and the
 * event log's tail past it, each stopping at `limit`, then merged. One statement: one snapshot of both files, so an
 * event the projector passes meanwhile is in exactly one half. INDEXED BY: with ANALYZE statistics the planner would
 * walk every event of the site instead of the short tail. Exported for the query-plan test.
 */
export const visitorTimelineSql = `SELECT * FROM (
    SELECT ${timelineColumns} FROM visitor_events ve JOIN events e ON e.seq = ve.seq
     WHERE ve.vid = ${visitorNumber} AND ve.ts >= :not_before AND ve.ts < :before
       AND e.site_id = :site_id AND e.anon_id = :anon_id
     ORDER BY ve.ts DESC, ve.seq DESC LIMIT :limit)
  UNION ALL
  SELECT * FROM (
    SELECT ${timelineColumns} FROM events e INDEXED BY events_by_site
     WHERE e.site_id = :site_id AND e.seq > (SELECT position FROM projector_state WHERE id = 1)
       AND e.anon_id = :anon_id AND e.ts >= :not_before AND e.ts < :before
     ORDER BY e.ts DESC, e.seq DESC LIMIT :limit)
  ORDER BY ts DESC, seq DESC LIMIT :limit`;

export interface VisitorSpanParams {
  site_id: string;
  anon_id: string;
  /** Strictly after this event in (ts, seq) order. */
  after_ts: number;
  after_seq: number;
  /** Strictly before this event in (ts, seq) order; until_seq = Number.MAX_SAFE_INTEGER keeps every event of until_ts. */
  until_ts: number;
  until_seq: number;
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: number;
  /** The analysis's watermark: events past it are left out. */
  max_seq: number;
}

export interface VisitorNextEventRow {
  seq: number;
  ts: number;
  type: string;
  path: string | null;
}

/**
 * A visitor's kept events strictly between two (ts, seq) positions, up to a watermark: the index up to the projector's
 * position, the event log's tail past it (the watermark may be past the position while the projector rebuilds).
 * `columns` and `firstOnly` make the two reads of a funnel's panels (src/read-model/sqlite/attempt-events.ts).
 */
const spanSql = (columns: string, firstOnly: boolean) => {
  const span = (ts: string, seq: string) => `${ts} >= :after_ts AND ${ts} <= :until_ts AND (${ts} > :after_ts OR ${seq} > :after_seq)
       AND (${ts} < :until_ts OR ${seq} < :until_seq)`;
  // Each half in its index's order (ve.ts, not e.ts: the same value, but only ve's is ordered by the index).
  const first = (ts: string, seq: string) => (firstOnly ? `ORDER BY ${ts}, ${seq} LIMIT 1` : '');
  const kept = 'e.site_id = :site_id AND e.anon_id = :anon_id AND e.is_bot = 0 AND (e.is_internal = 0 OR :with_internal = 1)';
  return `SELECT * FROM (
    SELECT ${columns} FROM visitor_events ve JOIN events e ON e.seq = ve.seq
     WHERE ve.vid = ${visitorNumber} AND ${span('ve.ts', 've.seq')} AND ve.seq <= :max_seq AND ${kept} ${first('ve.ts', 've.seq')}
  ) UNION ALL SELECT * FROM (
    SELECT ${columns} FROM events e INDEXED BY events_by_site
     WHERE e.site_id = :site_id AND e.seq > (SELECT position FROM projector_state WHERE id = 1) AND e.seq <= :max_seq
       AND ${span('e.ts', 'e.seq')} AND ${kept} ${first('e.ts', 'e.seq')}
  )`;
};

/** Exported for the query-plan test: the event types of a span (distinct, each half bounded by the visitor's events). */
export const visitorSpanTypesSql = `SELECT DISTINCT type FROM (${spanSql('e.type AS type', false)})`;
/** Exported for the query-plan test: the first event of a span. */
export const visitorFirstInSpanSql = `${spanSql('e.seq AS seq, e.ts AS ts, e.type AS type, e.path AS path', true)} ORDER BY ts, seq LIMIT 1`;

const statements = preparedOnce((db) => ({
  insert: db.prepare<[number, number, number]>('INSERT INTO visitor_events (vid, ts, seq) VALUES (?, ?, ?)'),
  insertVisitorOfEvent: db.prepare<[number, number]>('INSERT INTO event_visitors (seq, vid) VALUES (?, ?)'),
  visitEvents: db.prepare<VisitEventsParams, VisitEventRow>(
    `SELECT e.seq, e.ts, e.type, e.path, e.query, e.revenue_minor, e.revenue_currency
       FROM visitor_events ve JOIN events e ON e.seq = ve.seq
      WHERE ve.vid = ${visitorNumber} AND ve.ts >= :start_ts AND ve.ts <= :end_ts AND ve.seq <= :max_seq AND ve.seq != :except_seq
        AND e.site_id = :site_id AND e.anon_id = :anon_id AND e.is_internal = :is_internal AND e.is_bot = 0`,
  ),
  visitorWindow: db.prepare<VisitorWindowParams, RawEventRow>(
    `SELECT ${rawEventColumns.split(',').map((column) => `e.${column.trim()}`).join(', ')}
       FROM visitor_events ve JOIN events e ON e.seq = ve.seq
      WHERE ve.vid = ${visitorNumber} AND ve.ts >= :start_ms AND ve.ts < :end_ms AND ve.seq <= :max_seq
        AND e.site_id = :site_id AND e.anon_id = :anon_id AND e.is_bot = 0 AND (e.is_internal = 0 OR :with_internal = 1)`,
  ),
  timeline: db.prepare<VisitorTimelineParams, VisitorTimelineRow>(visitorTimelineSql),
  spanTypes: db.prepare<VisitorSpanParams, string>(visitorSpanTypesSql).pluck(),
  firstInSpan: db.prepare<VisitorSpanParams, VisitorNextEventRow>(visitorFirstInSpanSql),
  // event_visitors first: its rows are found through visitor_events.
  deleteVisitorOfEvents: db.prepare<{ vid: number; site_id: string }>(
    `DELETE FROM event_visitors WHERE seq IN (
       SELECT ve.seq FROM visitor_events ve JOIN events e ON e.seq = ve.seq WHERE ve.vid = :vid AND e.site_id = :site_id)`,
  ),
  deleteOfVisitor: db.prepare<{ vid: number; site_id: string }>(
    `DELETE FROM visitor_events WHERE vid = :vid AND seq IN (
       SELECT ve.seq FROM visitor_events ve JOIN events e ON e.seq = ve.seq WHERE ve.vid = :vid AND e.site_id = :site_id)`,
  ),
  deleteVisitorOfSiteEvents: db.prepare<[string]>('DELETE FROM event_visitors WHERE seq IN (SELECT seq FROM events WHERE site_id = ?)'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM visitor_events WHERE seq IN (SELECT seq FROM events WHERE site_id = ?)'),
  deleteOfEvent: db.prepare<[number]>('DELETE FROM event_visitors WHERE seq = ?'),
}));

/** Rows per multi-row INSERT of the batch's index (3 parameters each: well under SQLite's 32,766). */
const rowsPerInsert = 100;

const multiRowStatements = preparedOnce((db) => ({
  insert: db.prepare<number[]>(`INSERT INTO visitor_events (vid, ts, seq) VALUES ${Array(rowsPerInsert).fill('(?, ?, ?)').join(', ')}`),
  insertVisitorOfEvent: db.prepare<number[]>(`INSERT INTO event_visitors (seq, vid) VALUES ${Array(rowsPerInsert).fill('(?, ?)').join(', ')}`),
}));

/**
 * A projector batch's index rows (one per event it reads of an existing site), written in its transaction together: sorted by key and a hundred per statement, instead of two
 * statements per event in random visitor order. Reads of the index inside the batch (a visit's other events) must
 * call flush() first; a batch that fails drops the object with its transaction.
 */
export class VisitorIndexRows {
  /** vid, ts, seq of each event, flat. */
  private rows: number[] = [];

  add(vid: number, event: Pick<LoggedEvent, 'ts' | 'seq'>): void {
    this.rows.push(vid, event.ts, event.seq);
  }

  flush(db: Db): void {
    const rows = this.rows;
    if (rows.length === 0) return;
    this.rows = [];
    const count = rows.length / 3;
    const order = Array.from({ length: count }, (_, index) => index * 3);
    // visitor_events in (vid, ts, seq) order, event_visitors in seq order: each B-tree walked forwards.
    order.sort((a, b) => rows[a]! - rows[b]! || rows[a + 1]! - rows[b + 1]! || rows[a + 2]! - rows[b + 2]!);
    const single = statements(db);
    const multi = multiRowStatements(db);
    const params: number[] = [];
    for (let start = 0; start < count; start += rowsPerInsert) {
      const end = Math.min(count, start + rowsPerInsert);
      if (end - start < rowsPerInsert) {
        for (let index = start; index < end; index++) single.insert.run(rows[order[index]!]!, rows[order[index]! + 1]!, rows[order[index]! + 2]!);
        break;
      }
      params.length = 0;
      for (let index = start; index < end; index++) params.push(rows[order[index]!]!, rows[order[index]! + 1]!, rows[order[index]! + 2]!);
      multi.insert.run(...params);
    }
    order.sort((a, b) => rows[a + 2]! - rows[b + 2]!);
    for (let start = 0; start < count; start += rowsPerInsert) {
      const end = Math.min(count, start + rowsPerInsert);
      if (end - start < rowsPerInsert) {
        for (let index = start; index < end; index++) single.insertVisitorOfEvent.run(rows[order[index]! + 2]!, rows[order[index]!]!);
        break;
      }
      params.length = 0;
      for (let index = start; index < end; index++) params.push(rows[order[index]! + 2]!, rows[order[index]!]!);
      multi.insertVisitorOfEvent.run(...params);
    }
  }
}

/** A visitor's non-bot events of one traffic kind inside a visit's span, up to `max_seq` (the projector's reach). */
export function listVisitEvents(db: Db, params: VisitEventsParams): VisitEventRow[] {
  return statements(db).visitEvents.all(params);
}

/** A visitor's non-bot events in [start_ms, end_ms), up to `max_seq` (the exact fallback computation). */
export function listVisitorWindowEvents(db: Db, params: VisitorWindowParams): RawEventRow[] {
  return statements(db).visitorWindow.all(params);
}

/** A visitor's events in [not_before, before), newest first, the unprojected tail included. */
export function listVisitorTimelineEvents(db: Db, params: VisitorTimelineParams): VisitorTimelineRow[] {
  return statements(db).timeline.all(params);
}

/** The distinct types of a visitor's kept events strictly between two (ts, seq) positions, up to the watermark. */
export function listVisitorSpanTypes(db: Db, params: VisitorSpanParams): string[] {
  return statements(db).spanTypes.all(params);
}

/** A visitor's first kept event strictly between two (ts, seq) positions, up to the watermark. */
export function findVisitorFirstInSpan(db: Db, params: VisitorSpanParams): VisitorNextEventRow | undefined {
  return statements(db).firstInSpan.get(params);
}

/** Before the visitor's events are deleted: its rows of this site (the number may be shared with other sites). */
export function deleteVisitorEventsOfVisitor(db: Db, vid: number, siteId: string): void {
  statements(db).deleteVisitorOfEvents.run({ vid, site_id: siteId });
  statements(db).deleteOfVisitor.run({ vid, site_id: siteId });
}

/** Before the site's events are deleted (a site data remover of the 'derived' phase). */
export function deleteVisitorEventsOfSite(db: Db, siteId: string): void {
  statements(db).deleteVisitorOfSiteEvents.run(siteId);
  statements(db).deleteOfSite.run(siteId);
}

/** The event's row of event_visitors (the retention purge deletes events one by one; visitor_events is keyed by vid). */
export function deleteVisitorOfEvent(db: Db, seq: number): void {
  statements(db).deleteOfEvent.run(seq);
}
