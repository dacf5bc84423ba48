// Prepared statements are created once per database handle and reused (STYLE rule 3).
import type { Db } from './open.ts';

/**
 * Wraps a builder of prepared statements so it runs once per handle.
 * @example
 * const statements = preparedOnce((db) => ({ byId: db.prepare('SELECT * FROM sites WHERE id = ?') }));
 * statements(db).byId.get('blog');
 */
export function preparedOnce<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let statements = cache.get(db);
    if (!statements) {
      statements = build(db);
      cache.set(db, statements);
    }
    return statements;
  };
}

/** Runs `work` in a BEGIN IMMEDIATE transaction: it commits or rolls back as one. */
export function inWriteTransaction<T>(db: Db, work: () => T): T {
  return db.transaction(work).immediate();
}
