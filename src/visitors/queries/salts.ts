// The daily salts of cookieless visitor ids: one row per UTC day, at most yesterday's, today's and tomorrow's.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  byDay: db.prepare<[string], { salt: Buffer }>('SELECT salt FROM visitor_salts WHERE day = ?'),
  from: db.prepare<[string], { day: string; salt: Buffer }>('SELECT day, salt FROM visitor_salts WHERE day >= ? ORDER BY day'),
  insert: db.prepare<{ day: string; salt: Buffer; created_at: string }>(
    'INSERT INTO visitor_salts (day, salt, created_at) VALUES (:day, :salt, :created_at) ON CONFLICT (day) DO NOTHING',
  ),
  deleteBefore: db.prepare<[string]>('DELETE FROM visitor_salts WHERE day < ?'),
}));

/** The salts of `day` and later days (a read: it never waits for a writer). */
export function readSaltsFrom(db: Db, day: string): { day: string; salt: Buffer }[] {
  return statements(db).from.all(day);
}

/** The salt of `day`, inserting `candidate` if the day has none yet (another process may have won: its salt is kept). */
export function saltOfDay(db: Db, day: string, candidate: Buffer, createdAt: string): Buffer {
  const { byDay, insert } = statements(db);
  const existing = byDay.get(day);
  if (existing) return existing.salt;
  insert.run({ day, salt: candidate, created_at: createdAt });
  return byDay.get(day)!.salt;
}

/** Deletes the salts of days before `day`; answers how many went. */
export function deleteSaltsBefore(db: Db, day: string): number {
  return statements(db).deleteBefore.run(day).changes;
}
