// Dense visitor numbers: (site, anon_id) → vid, one number per anon_id and workspace, allocated from a counter.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  bySite: db.prepare<[string, string], number>('SELECT vid FROM report_visitors WHERE site_id = ? AND anon_id = ?').pluck(),
  allocate: db
    .prepare<[string], number>(
      `INSERT INTO report_visitor_numbers (workspace_id, next_vid) VALUES (?, 1)
       ON CONFLICT (workspace_id) DO UPDATE SET next_vid = next_vid + 1 RETURNING next_vid - 1`,
    )
    .pluck(),
  insert: db.prepare<[string, string, number]>('INSERT INTO report_visitors (site_id, anon_id, vid) VALUES (?, ?, ?)'),
  delete: db.prepare<[string, string]>('DELETE FROM report_visitors WHERE site_id = ? AND anon_id = ?'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_visitors WHERE site_id = ?'),
  // A number is shared by the sites of one workspace, never across workspaces: the sites bound the lookup.
  anonIdsOfNumbers: db.prepare<{ sites: string; vids: string }, { vid: number; anon_id: string }>(
    `SELECT DISTINCT vid, anon_id FROM report_visitors INDEXED BY report_visitors_by_vid
      WHERE vid IN (SELECT value FROM json_each(:vids)) AND site_id IN (SELECT value FROM json_each(:sites))`,
  ),
  count: db.prepare<[string], number>('SELECT next_vid FROM report_visitor_numbers WHERE workspace_id = ?').pluck(),
}));

export function findVisitorNumber(db: Db, siteId: string, anonId: string): number | undefined {
  return statements(db).bySite.get(siteId, anonId) as number | undefined;
}

export function allocateVisitorNumber(db: Db, workspaceId: string): number {
  return statements(db).allocate.get(workspaceId)!;
}

export function insertVisitorNumber(db: Db, siteId: string, anonId: string, vid: number): void {
  statements(db).insert.run(siteId, anonId, vid);
}

export function deleteVisitorNumber(db: Db, siteId: string, anonId: string): void {
  statements(db).delete.run(siteId, anonId);
}

export function deleteVisitorNumbersOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}

/**
 * The anon_id of each of `vids` on the sites (of one workspace).
 * @example listAnonIdsOfVisitorNumbers(db, ['blog'], [3]) // Map { 3 => 'a1' }
 */
export function listAnonIdsOfVisitorNumbers(db: Db, siteIds: readonly string[], vids: readonly number[]): Map<number, string> {
  const anonIds = new Map<number, string>();
  if (vids.length === 0) return anonIds;
  for (const row of statements(db).anonIdsOfNumbers.all({ sites: JSON.stringify(siteIds), vids: JSON.stringify(vids) })) anonIds.set(row.vid, row.anon_id);
  return anonIds;
}

/** How many numbers the workspace has handed out (the size of its visitor bitsets). */
export function visitorNumbersIssued(db: Db, workspaceId: string): number {
  return (statements(db).count.get(workspaceId) as number | undefined) ?? 0;
}
