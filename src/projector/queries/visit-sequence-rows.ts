// The visit_sequences table (schema versions 30 to 32): one row per visit (schema 30 and 31: with a pageview), its start, its visitor
// (vid × 2 + internal), its pages as packed path ids and its visit filters' values as value ids. Written only through
// src/projector/visit-sequences.ts (its owner); journeys and page flow read a range of it
// (src/read-model/sqlite/visit-sequences.ts).
import type { Db } from '../../db/open.ts';
import { preparedOnce, statementsBySql } from '../../db/statements.ts';
import { Dim, type VisitAttributes } from '../../vocabulary/dimensions.ts';
import type { VisitRow } from './visit-rows.ts';

/** The visit filters' columns of a row (schema 31), each the value id of the visit's value under its dimension. */
export const attributeIdColumns = {
  source: 'source_id',
  device: 'device_id',
  browser: 'browser_id',
  os: 'os_id',
  country: 'country_id',
  region: 'region_id',
  city: 'city_id',
} as const;
export type AttributeIdColumn = (typeof attributeIdColumns)[keyof typeof attributeIdColumns];

/** A visit's filter values as value ids (report_values of the filter's dimension), null where the visit has none. */
export type AttributeIds = Record<AttributeIdColumn, number | null>;

/** A visit's filter values and campaign as the events and stored visits name them. */
export type AttributeValues = VisitAttributes;

export interface VisitSequenceRow extends AttributeIds {
  site_id: string;
  start_ts: number;
  /** vid × 2 + is_internal. */
  visitor: number;
  /** Path value ids (report_values, the path dimension) as unsigned LEB128, consecutive repeats collapsed. */
  pages: Buffer;
  /** Every kept event, packed (schema 32, src/projector/visit-events-pack.ts). */
  events: Buffer;
  /** The entry's campaign key's value id (report_values, the campaign dimension), null without one. */
  campaign_id: number | null;
}

/** A row's key with its filter ids (the schema 31 fill). */
export interface VisitSequenceAttributes extends AttributeIds {
  site_id: string;
  start_ts: number;
  visitor: number;
}

/** A read of a range's rows: per visit filter, the value ids it takes (none: the filter is not asked). */
export interface VisitSequencesRead {
  site_id: string;
  start_ms: number;
  end_ms: number;
  /** A packed path id the rows must hold (at least), or none. */
  needle?: Buffer;
  filters: readonly { column: AttributeIdColumn; ids: readonly number[] }[];
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
  insert: db.prepare<VisitSequenceRow>(
    `INSERT INTO visit_sequences (site_id, start_ts, visitor, pages, events, campaign_id, ${Object.values(attributeIdColumns).join(', ')})
     VALUES (:site_id, :start_ts, :visitor, :pages, :events, :campaign_id, ${Object.values(attributeIdColumns).map((column) => `:${column}`).join(', ')})`,
  ),
  setAttributes: db.prepare<VisitSequenceAttributes>(
    `UPDATE visit_sequences SET ${Object.values(attributeIdColumns).map((column) => `${column} = :${column}`).join(', ')}
      WHERE site_id = :site_id AND start_ts = :start_ts AND visitor = :visitor`,
  ),
  startsInSpan: db.prepare<VisitorSpan, number>('SELECT start_ts FROM visit_sequences WHERE site_id = :site_id AND start_ts >= :from_ts AND start_ts <= :to_ts AND visitor = :visitor').pluck(),
  // Through the primary key's (site_id, start_ts) range: the site's visits starting inside one visit's span (a few).
  deleteInSpan: db.prepare<VisitorSpan>('DELETE FROM visit_sequences WHERE site_id = :site_id AND start_ts >= :from_ts AND start_ts <= :to_ts AND visitor = :visitor'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM visit_sequences WHERE site_id = ?'),
  // Through the visitor index, in (ts, seq) order. vid and site_id name one anon_id: no need to read anon_id out of raw.
  spanEvents: db
    .prepare<VisitEventsOfSpan, SpanEvent>(
      `SELECT ve.ts, e.type, e.path, ve.seq, e.revenue_minor, e.revenue_currency FROM visitor_events ve JOIN events e ON e.seq = ve.seq
        WHERE ve.vid = :vid AND ve.ts >= :from_ts AND ve.ts <= :to_ts AND ve.seq <= :max_seq
          AND e.site_id = :site_id AND e.is_internal = :is_internal AND e.is_bot = 0
        ORDER BY ve.ts, ve.seq`,
    ),
  // The first kept event's filter values, when it is not the stored visit's first (a visit the purge cut).
  eventAttributes: db.prepare<[number], AttributeValues>('SELECT source, utm_source, utm_medium, utm_campaign, device_type, browser, os, country, region, city FROM events WHERE seq = ?'),
  /** The range reads, by SQL text (bounded: which of the seven filters are asked, with or without a needle). */
  inRange: statementsBySql(db),
  pathTexts: db
    .prepare<[string, string], [number, string]>(`SELECT value_id, value FROM report_values WHERE site_id = ? AND dim = ${Dim.path} AND value_id IN (SELECT value FROM json_each(?))`)
    .raw(),
  backfill: db.prepare<[], BackfillState>('SELECT after_visit, last_visit FROM visit_sequences_backfill'),
  attributesBackfill: db.prepare<[], BackfillState>('SELECT after_visit, last_visit FROM visit_sequences_attributes_backfill'),
  attributesBackfillAdvance: db.prepare<[number]>('UPDATE visit_sequences_attributes_backfill SET after_visit = ?'),
  attributesBackfillFinish: db.prepare('DELETE FROM visit_sequences_attributes_backfill'),
  eventsBackfill: db.prepare<[], BackfillState>('SELECT after_visit, last_visit FROM visit_sequences_events_backfill'),
  eventsBackfillAdvance: db.prepare<[number]>('UPDATE visit_sequences_events_backfill SET after_visit = ?'),
  eventsBackfillFinish: db.prepare('DELETE FROM visit_sequences_events_backfill'),
  raiseLongest: db.prepare<[string, number]>(
    'INSERT INTO visit_sequences_longest (site_id, span_ms) VALUES (?, ?) ON CONFLICT (site_id) DO UPDATE SET span_ms = max(span_ms, excluded.span_ms)',
  ),
  deleteLongestOfSite: db.prepare<[string]>('DELETE FROM visit_sequences_longest WHERE site_id = ?'),
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
  statements(db).deleteLongestOfSite.run(siteId);
}

/** Raises the site's longest visit span to `spanMs` if it is shorter (called for visits a day long or longer). */
export function raiseLongestVisit(db: Db, siteId: string, spanMs: number): void {
  statements(db).raiseLongest.run(siteId, spanMs);
}

/** One event of a visitor's span. */
export interface SpanEvent {
  ts: number;
  type: string;
  path: string | null;
  seq: number;
  revenue_minor: number | null;
  revenue_currency: string | null;
}

/** A visitor's kept non-bot events of one traffic kind in [from_ts, to_ts], in (ts, seq) order. */
export function listSpanEvents(db: Db, span: VisitEventsOfSpan): SpanEvent[] {
  return statements(db).spanEvents.all(span);
}

/** One event's visit filter values (the event exists: it was just read). */
export function findEventAttributes(db: Db, seq: number): AttributeValues {
  return statements(db).eventAttributes.get(seq)!;
}

/** The starts of a visitor's rows in [from_ts, to_ts] (one per visit with a pageview). */
export function listStartsInSpan(db: Db, span: VisitorSpan): number[] {
  return statements(db).startsInSpan.all(span);
}

export function setVisitSequenceAttributes(db: Db, row: VisitSequenceAttributes): void {
  statements(db).setAttributes.run(row);
}

/** The range read's SQL. Exported for the query-plan test. */
export function visitSequencesReadSql(read: Pick<VisitSequencesRead, 'needle' | 'filters'>): string {
  // Only rows whose blob holds the bytes of one path id: every visit with that page, and a few more (the bytes can
  // also end a longer id's), which the reader checks.
  const needle = read.needle ? ' AND instr(pages, :needle) > 0' : '';
  // A visit without a pageview has a row (schema 32) with no pages: no journey of it.
  const filters = read.filters.map((filter, index) => ` AND ${filter.column} IN (SELECT value FROM json_each(:filter${index}))`).join('');
  // One string for the whole range: a JS value (a Buffer) per row cost more than the rows' reading itself.
  return `SELECT group_concat(visitor || ' ' || hex(pages), ' ') FROM visit_sequences
    WHERE site_id = :site_id AND start_ts >= :start_ms AND start_ts < :end_ms AND pages <> x''${needle}${filters}`;
}

/**
 * Every visit of a site starting in [start_ms, end_ms) whose filter values are among the read's, in no particular
 * order, as one text: "visitor HEX" pairs (the visitor in decimal, the pages blob in upper-case hex), all separated by
 * single spaces ('' when none). With a needle (a packed path id), at least the visits holding that path.
 */
export function readVisitSequencesText(db: Db, read: VisitSequencesRead): string {
  const params: Record<string, string | number | Buffer> = { site_id: read.site_id, start_ms: read.start_ms, end_ms: read.end_ms };
  if (read.needle) params.needle = read.needle;
  read.filters.forEach((filter, index) => (params[`filter${index}`] = JSON.stringify(filter.ids)));
  return (statements(db).inRange(visitSequencesReadSql(read)).pluck().get(params) as string | null) ?? '';
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

/** The pending fill of schema version 31 (undefined once done, or when no row was stored before it). */
export function readAttributesBackfillState(db: Db): BackfillState | undefined {
  return statements(db).attributesBackfill.get();
}

export function advanceAttributesBackfill(db: Db, afterVisit: number): void {
  statements(db).attributesBackfillAdvance.run(afterVisit);
}

export function finishAttributesBackfill(db: Db): void {
  statements(db).attributesBackfillFinish.run();
}

/** The pending fill of schema version 32 (undefined once done, or when nothing was projected before it). */
export function readEventsBackfillState(db: Db): BackfillState | undefined {
  return statements(db).eventsBackfill.get();
}

export function advanceEventsBackfill(db: Db, afterVisit: number): void {
  statements(db).eventsBackfillAdvance.run(afterVisit);
}

export function finishEventsBackfill(db: Db): void {
  statements(db).eventsBackfillFinish.run();
}

/** Stored visits with id in (after, last], by id, at most `limit`. */
export function listVisitsAfter(db: Db, after: number, last: number, limit: number): VisitRow[] {
  return statements(db).visitsAfter.all(after, last, limit);
}

/** A visitor's stored visits (both traffic kinds) starting before `beforeMs`. */
export function listVisitsStartedBefore(db: Db, siteId: string, anonId: string, beforeMs: number): VisitRow[] {
  return statements(db).visitsStartedBefore.all(siteId, anonId, beforeMs);
}
