// The read side's named values (report_state): the cursor signing secret (src/reading/cursor.ts).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  read: db.prepare<[string], Buffer | number>('SELECT value FROM report_state WHERE name = ?').pluck(),
  insertIfMissing: db.prepare<[string, Buffer | number]>('INSERT INTO report_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),
}));

export function readStateValue(db: Db, name: string): Buffer | number | undefined {
  return statements(db).read.get(name) as Buffer | number | undefined;
}

/** Stores the value unless the name already has one. */
export function insertStateValueIfMissing(db: Db, name: string, value: Buffer | number): void {
  statements(db).insertIfMissing.run(name, value);
}
