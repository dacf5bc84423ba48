// The path and query string of one stored event (a visit's entry or exit page with its parameters).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  page: db.prepare<[number], { path: string | null; query: string | null }>('SELECT path, query FROM events WHERE seq = ?'),
}));

export function findEventPage(db: Db, seq: number): { path: string | null; query: string | null } | undefined {
  return statements(db).page.get(seq);
}
