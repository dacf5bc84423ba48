// The goals table: one site's goals, each statement naming its site, so a goal of another site is never found.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface GoalRow {
  id: string;
  site_id: string;
  name: string;
  kind: 'pageview' | 'event';
  path: string | null;
  event_type: string | null;
  /** JSON object of exact string matches, or null. */
  props: string | null;
  created_at: string;
}

const columns = 'id, site_id, name, kind, path, event_type, props, created_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<GoalRow>(
    `INSERT INTO goals (${columns}) VALUES (:id, :site_id, :name, :kind, :path, :event_type, :props, :created_at)`,
  ),
  list: db.prepare<[string], GoalRow>(`SELECT ${columns} FROM goals WHERE site_id = ? ORDER BY created_at, rowid`),
  count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM goals WHERE site_id = ?'),
  find: db.prepare<[string, string], GoalRow>(`SELECT ${columns} FROM goals WHERE site_id = ? AND id = ?`),
  update: db.prepare<GoalRow>(
    `UPDATE goals SET name = :name, kind = :kind, path = :path, event_type = :event_type, props = :props
     WHERE site_id = :site_id AND id = :id`,
  ),
  remove: db.prepare<[string, string]>('DELETE FROM goals WHERE site_id = ? AND id = ?'),
  removeOfSite: db.prepare<[string]>('DELETE FROM goals WHERE site_id = ?'),
}));

export function insertGoal(db: Db, row: GoalRow): void {
  statements(db).insert.run(row);
}

export function listGoalRows(db: Db, siteId: string): GoalRow[] {
  return statements(db).list.all(siteId);
}

export function countGoals(db: Db, siteId: string): number {
  return statements(db).count.get(siteId)!.n;
}

export function findGoalRow(db: Db, siteId: string, id: string): GoalRow | undefined {
  return statements(db).find.get(siteId, id);
}

export function updateGoalRow(db: Db, row: GoalRow): void {
  statements(db).update.run(row);
}

/** Whether a row was removed. */
export function deleteGoalRow(db: Db, siteId: string, id: string): boolean {
  return statements(db).remove.run(siteId, id).changes > 0;
}

/** The site data remover (src/app.ts). */
export function deleteGoalsOfSite(db: Db, siteId: string): void {
  statements(db).removeOfSite.run(siteId);
}
