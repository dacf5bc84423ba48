// Visit rows: find the ones an event may join, insert, update, delete. Visits live in the `sessions` table (its name
// since schema version 2; schema.sql is only appended to, so it keeps it): the code calls them visits.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { VisitAttributes } from '../../vocabulary/dimensions.ts';

/** A stored visit: its first event's attributes (the visit dimensions) and what the projector keeps of its run. */
export interface VisitRow extends VisitAttributes {
  id: number;
  site_id: string;
  anon_id: string;
  is_internal: 0 | 1;
  start_ts: number;
  end_ts: number;
  events: number;
  pageviews: number;
  entry_seq: number;
  entry_path: string | null;
  exit_ts: number | null;
  exit_seq: number | null;
  exit_path: string | null;
}

export interface VisitsInReachParams {
  site_id: string;
  anon_id: string;
  is_internal: 0 | 1;
  /** The earliest event's ts minus the gap: a visit ending after it may be touched. */
  from_ts: number;
  /** The latest event's ts plus the gap: only visits starting before it may be touched. */
  before_ts: number;
}

const columns = `site_id, anon_id, is_internal, start_ts, end_ts, events, pageviews, entry_seq, entry_path,
  source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts, exit_seq,
  exit_path`;
const columnNames = columns.split(',').map((column) => column.trim()) as (keyof Omit<VisitRow, 'id'>)[];
// Positional parameters: binding 22 by name costs several µs per statement, and a batch inserts a visit for about
// every fourth event of spread-out history.
const values = columnNames.map(() => '?').join(', ');
type VisitArgs = (string | number | null)[];

const statements = preparedOnce((db) => ({
  // Visits are disjoint, so of those starting before from_ts only the latest can reach past it; the others in
  // reach start in [from_ts, before_ts). Two walks of the visitor's index.
  inReach: db.prepare<[site_id: string, anon_id: string, is_internal: number, from_ts: number, before_ts: number, site_id: string, anon_id: string, is_internal: number, from_ts: number], VisitRow>(
    `SELECT id, ${columns} FROM sessions
      WHERE site_id = ? AND anon_id = ? AND is_internal = ? AND start_ts >= ? AND start_ts < ?
     UNION ALL
     SELECT * FROM (SELECT id, ${columns} FROM sessions
      WHERE site_id = ? AND anon_id = ? AND is_internal = ? AND start_ts < ?
      ORDER BY start_ts DESC LIMIT 1)`,
  ),
  insert: db.prepare<VisitArgs>(`INSERT INTO sessions (${columns}) VALUES (${values})`),
  update: db.prepare<VisitRow>(
    `UPDATE sessions SET ${columns
      .split(',')
      .map((column) => `${column.trim()} = :${column.trim()}`)
      .join(', ')} WHERE id = :id`,
  ),
  // Only columns no index holds: SQLite rewrites the entries of every index whose columns an UPDATE names.
  updateTail: db.prepare<[end_ts: number, events: number, pageviews: number, exit_ts: number | null, exit_seq: number | null, exit_path: string | null, id: number]>(
    'UPDATE sessions SET end_ts = ?, events = ?, pageviews = ?, exit_ts = ?, exit_seq = ?, exit_path = ? WHERE id = ?',
  ),
  delete: db.prepare<[number]>('DELETE FROM sessions WHERE id = ?'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM sessions WHERE site_id = ?'),
}));

/** Every visit of one visitor that an event with ts in [from_ts + gap, before_ts - gap] may join (and perhaps one more), in no order. */
export function listVisitsInReach(db: Db, params: VisitsInReachParams): VisitRow[] {
  const { site_id, anon_id, is_internal, from_ts, before_ts } = params;
  return statements(db).inReach.all(site_id, anon_id, is_internal, from_ts, before_ts, site_id, anon_id, is_internal, from_ts);
}

export function insertVisit(db: Db, row: Omit<VisitRow, 'id'>): number {
  const args: VisitArgs = [];
  for (const column of columnNames) args.push(row[column]);
  return Number(statements(db).insert.run(...args).lastInsertRowid);
}

export function updateVisit(db: Db, row: VisitRow): void {
  statements(db).update.run(row);
}

/** For a visit whose start and entry did not move (the common case: a later event extends it). */
export function updateVisitTail(db: Db, row: VisitRow): void {
  statements(db).updateTail.run(row.end_ts, row.events, row.pageviews, row.exit_ts, row.exit_seq, row.exit_path, row.id);
}

export function deleteVisit(db: Db, id: number): void {
  statements(db).delete.run(id);
}

export function deleteVisitsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
