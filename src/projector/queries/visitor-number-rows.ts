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

/** How many numbers the workspace has handed out (the size of its visitor bitsets). */
export function visitorNumbersIssued(db: Db, workspaceId: string): number {
  return (statements(db).count.get(workspaceId) as number | undefined) ?? 0;
}
