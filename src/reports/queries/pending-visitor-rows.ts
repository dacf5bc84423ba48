// Staged visitor-set additions (day grain): a visitor number joining a dimension value's set on a day. Reports OR
// them into the stored sets; the writer folds them in when idle.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface VisitorSetKey {
  site_id: string;
  dim: number;
  value_id: number;
  internal: number;
}

/** site_id, dim, value_id, internal, day, vid. */
export type PendingVisitorRow = [string, number, number, number, number, number];

const statements = preparedOnce((db) => ({
  add: db.prepare<PendingVisitorRow>('INSERT OR IGNORE INTO report_pending_visitors (site_id, dim, value_id, internal, day, vid) VALUES (?, ?, ?, ?, ?, ?)'),
  first: db
    .prepare<[number], PendingVisitorRow>(
      'SELECT site_id, dim, value_id, internal, day, vid FROM report_pending_visitors ORDER BY site_id, dim, value_id, internal, day, vid LIMIT ?',
    )
    .raw(),
  deleteThrough: db.prepare<PendingVisitorRow>(
    'DELETE FROM report_pending_visitors WHERE (site_id, dim, value_id, internal, day, vid) <= (?, ?, ?, ?, ?, ?)',
  ),
  deleteInDays: db.prepare<[string, number, number, number, number, number, number]>(
    'DELETE FROM report_pending_visitors WHERE site_id = ? AND dim = ? AND value_id = ? AND internal = ? AND day BETWEEN ? AND ? AND vid = ?',
  ),
  vidsInRange: db
    .prepare<[string, number, number, number, number, number], number>(
      'SELECT vid FROM report_pending_visitors WHERE site_id = ? AND dim = ? AND value_id = ? AND internal = ? AND day BETWEEN ? AND ?',
    )
    .pluck(),
  setsInRange: db
    .prepare<[string, number, number, number, number], [number, number]>(
      'SELECT DISTINCT value_id, day FROM report_pending_visitors WHERE site_id = ? AND dim = ? AND internal = ? AND day BETWEEN ? AND ?',
    )
    .raw(),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_pending_visitors WHERE site_id = ?'),
}));

export function addPendingVisitor(db: Db, set: VisitorSetKey, day: number, vid: number): void {
  statements(db).add.run(set.site_id, set.dim, set.value_id, set.internal, day, vid);
}

/** The first rows in key order (so one slice meets each container once). */
export function listPendingVisitors(db: Db, limit: number): PendingVisitorRow[] {
  return statements(db).first.all(limit);
}

/** Deletes every row up to and including `row` in key order (the rows listPendingVisitors returned). */
export function deletePendingVisitorsThrough(db: Db, row: PendingVisitorRow): void {
  statements(db).deleteThrough.run(...row);
}

/** Takes a visitor out of a set's staged additions over a day range (it left the set). */
export function deletePendingVisitorInDays(db: Db, set: VisitorSetKey, fromDay: number, toDay: number, vid: number): void {
  statements(db).deleteInDays.run(set.site_id, set.dim, set.value_id, set.internal, fromDay, toDay, vid);
}

export function listPendingVids(db: Db, set: VisitorSetKey, fromDay: number, toDay: number): number[] {
  return statements(db).vidsInRange.all(set.site_id, set.dim, set.value_id, set.internal, fromDay, toDay);
}

/** [value_id, day] pairs with staged additions, of one site, dimension and traffic kind over a day range. */
export function listPendingVisitorSets(db: Db, siteId: string, dim: number, internal: number, fromDay: number, toDay: number): [number, number][] {
  return statements(db).setsInRange.all(siteId, dim, internal, fromDay, toDay);
}

export function deletePendingVisitorsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
