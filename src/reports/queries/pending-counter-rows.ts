// Staged counter changes (day grain): added to by group commits, read by reports on top of the shards, folded into
// the shards and deleted by the writer when idle.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { counterFields, field } from '../../projector/rollup/counter-shard.ts';

/** Every counter but `visitors`, whose changes are known only when visitor sets are written. */
export const stagedFields = counterFields.filter((name) => name !== 'visitors');
export const stagedIndexes = stagedFields.map((name) => field[name]);

export interface PendingCounterKey {
  site_id: string;
  dim: number;
  internal: number;
  day: number;
  value_id: number;
}

/** site_id, dim, internal, day, value_id, then one amount per staged field. */
export type PendingCounterRow = [string, number, number, number, number, ...number[]];

const keyColumns = 'site_id, dim, internal, day, value_id';
const amounts = stagedFields.join(', ');

const statements = preparedOnce((db) => ({
  add: db.prepare<unknown[]>(
    `INSERT INTO report_pending_counters (${keyColumns}, ${amounts}) VALUES (${Array(5 + stagedFields.length).fill('?').join(', ')})
     ON CONFLICT (${keyColumns}) DO UPDATE SET ${stagedFields.map((name) => `${name} = ${name} + excluded.${name}`).join(', ')}`,
  ),
  first: db.prepare<[number], PendingCounterRow>(`SELECT ${keyColumns}, ${amounts} FROM report_pending_counters ORDER BY ${keyColumns} LIMIT ?`).raw(),
  deleteThrough: db.prepare<[string, number, number, number, number]>(
    'DELETE FROM report_pending_counters WHERE (site_id, dim, internal, day, value_id) <= (?, ?, ?, ?, ?)',
  ),
  inRange: db
    .prepare<[string, number, number, number, number], [number, number, ...number[]]>(
      `SELECT day, value_id, ${amounts} FROM report_pending_counters WHERE site_id = ? AND dim = ? AND internal = ? AND day BETWEEN ? AND ?`,
    )
    .raw(),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_pending_counters WHERE site_id = ?'),
}));

/** Adds `changes` (one per staged field) to the key's staged row. */
export function addPendingCounters(db: Db, key: PendingCounterKey, changes: readonly number[]): void {
  statements(db).add.run(key.site_id, key.dim, key.internal, key.day, key.value_id, ...changes);
}

/** The first rows in key order (so one slice meets each shard once). */
export function listPendingCounters(db: Db, limit: number): PendingCounterRow[] {
  return statements(db).first.all(limit);
}

/** Deletes every row up to and including `row` in key order (the rows listPendingCounters returned). */
export function deletePendingCountersThrough(db: Db, row: PendingCounterRow): void {
  statements(db).deleteThrough.run(row[0], row[1], row[2], row[3], row[4]);
}

/** [day, value_id, ...amounts] of one site, dimension and traffic kind over a day range. */
export function listPendingCountersInRange(db: Db, siteId: string, dim: number, internal: number, fromDay: number, toDay: number): [number, number, ...number[]][] {
  return statements(db).inRange.all(siteId, dim, internal, fromDay, toDay);
}

export function deletePendingCountersOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
