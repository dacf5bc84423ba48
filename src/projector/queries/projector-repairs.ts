// Repairs of derived rows that a schema upgrade asked for (projector_repairs, schema version 19): each is run once at
// the next start, before the projector, and its row deleted when it has finished.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  pending: db.prepare<[string], number>('SELECT 1 FROM projector_repairs WHERE name = ?').pluck(),
  finish: db.prepare<[string]>('DELETE FROM projector_repairs WHERE name = ?'),
}));

export function isRepairPending(db: Db, name: string): boolean {
  return statements(db).pending.get(name) !== undefined;
}

export function finishRepair(db: Db, name: string): void {
  statements(db).finish.run(name);
}
