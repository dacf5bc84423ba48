// The projector's position: every event with seq <= position is counted in the derived tables.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  read: db.prepare<[], number>('SELECT position FROM projector_state WHERE id = 1').pluck(),
  // The projector's first statement in a batch: a write, so the batch holds sightline.db's write lock from its
  // start (and never the event log's: it only reads events).
  touch: db.prepare<{ updated_at: number }>('UPDATE projector_state SET updated_at = :updated_at WHERE id = 1'),
  save: db.prepare<{ position: number; updated_at: number }>('UPDATE projector_state SET position = :position, updated_at = :updated_at WHERE id = 1'),
}));

export function readProjectorPosition(db: Db): number {
  return (statements(db).read.get() as number | undefined) ?? 0;
}

export function saveProjectorPosition(db: Db, position: number, updatedAt: number): void {
  statements(db).save.run({ position, updated_at: updatedAt });
}

/** Takes sightline.db's write lock (waiting for it) by writing first: call as a batch's first statement. */
export function touchProjectorState(db: Db, updatedAt: number): void {
  statements(db).touch.run({ updated_at: updatedAt });
}
