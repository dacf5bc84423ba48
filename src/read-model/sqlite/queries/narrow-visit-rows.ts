// The rows of visit_sequences the raw pass reads in place of the event log (schema 32; written only by
// src/projector/visit-sequences.ts): a site's visits starting in a time span, each with its visitor, packed events,
// visit filters' and campaign's value ids; the visit filters asked become `IN` lists on the id columns, so rows of
// other values are skipped in SQL. Also the dictionary (report_values) that turns the ids back into texts.
import type { Db } from '../../../db/open.ts';
import { preparedOnce, statementsBySql } from '../../../db/statements.ts';
import { attributeIdColumns, type AttributeIdColumn } from '../../../projector/queries/visit-sequence-rows.ts';

/** A row: start_ts, visitor (vid × 2 + is_internal), packed events, then the seven filter ids and the campaign id. */
export type NarrowVisitRow = [number, number, Uint8Array, ...(number | null)[]];

export interface NarrowVisitsRead {
  site_id: string;
  start_ms: number;
  end_ms: number;
  withInternal: boolean;
  /** Per visit filter asked, the value ids a row's column must take. */
  filters: readonly { column: AttributeIdColumn; ids: readonly number[] }[];
}

/** The columns after the events blob, in NarrowVisitRow's order. */
export const narrowIdColumns = [...Object.values(attributeIdColumns), 'campaign_id'] as const;

const statements = preparedOnce((db) => ({
  inSpan: statementsBySql(db, 64),
  longest: db.prepare<[string], number>('SELECT span_ms FROM visit_sequences_longest WHERE site_id = ?').pluck(),
  values: db.prepare<[string, number], [number, string]>('SELECT value_id, value FROM report_values WHERE site_id = ? AND dim = ?').raw(),
}));

/** The read's SQL (bounded variants: which of the seven filters are asked, and the traffic kinds). */
export function narrowVisitsSql(read: Pick<NarrowVisitsRead, 'filters' | 'withInternal'>): string {
  const internal = read.withInternal ? '' : ' AND visitor % 2 = 0';
  const filters = read.filters.map((filter, index) => ` AND ${filter.column} IN (SELECT value FROM json_each(:filter${index}))`).join('');
  return `SELECT start_ts, visitor, events, ${narrowIdColumns.join(', ')} FROM visit_sequences
    WHERE site_id = :site_id AND start_ts >= :start_ms AND start_ts < :end_ms${internal}${filters}`;
}

/** The site's rows starting in [start_ms, end_ms) that pass the read's filters, in no particular order. */
export function iterateNarrowVisits(db: Db, read: NarrowVisitsRead): IterableIterator<NarrowVisitRow> {
  const params: Record<string, string | number> = { site_id: read.site_id, start_ms: read.start_ms, end_ms: read.end_ms };
  read.filters.forEach((filter, index) => (params[`filter${index}`] = JSON.stringify(filter.ids)));
  return statements(db).inSpan(narrowVisitsSql(read)).raw().iterate(params) as IterableIterator<NarrowVisitRow>;
}

/** The longest visit of the site (end − start) once one reached a day, else 0: how far back a read must look. */
export function readLongestVisit(db: Db, siteId: string): number {
  return statements(db).longest.get(siteId) ?? 0;
}

/** A dimension's dictionary of a site: value id → text. */
export function readValueTexts(db: Db, siteId: string, dim: number): Map<number, string> {
  return new Map(statements(db).values.all(siteId, dim));
}
