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

// Any table of sightline.db would do: workspaces always exists, and WHERE 0 reads and writes none of its rows.
const mainWriteLocks = preparedOnce((db) => db.prepare('UPDATE main.workspaces SET id = id WHERE 0'));

export interface WriteTransactionOptions {
  /** The work writes the event log too (site deletion, the DLQ): lock it from the start as well. */
  eventLog?: boolean;
}

/**
 * Runs `work` in a write transaction that holds sightline.db's write lock from its start (a second writer queues
 * behind the busy timeout instead of failing halfway); it commits or rolls back as one. BEGIN IMMEDIATE would lock
 * every attached file, the event log included, and hold the ingest writer's commits for as long: a no-op write to a
 * table of sightline.db takes that file's lock alone. With `eventLog`, both files are locked from the start.
 */
export function inWriteTransaction<T>(db: Db, work: () => T, options: WriteTransactionOptions = {}): T {
  if (options.eventLog) return db.transaction(work).immediate();
  return db
    .transaction(() => {
      mainWriteLocks(db).run();
      return work();
    })
    .deferred();
}

/**
 * Runs `work` with the busy timeout off: a write that can be skipped (a key's last use) fails at once instead of
 * blocking the HTTP thread while the projector holds sightline.db's write lock.
 * @example runWithoutWaiting(db, () => touchKeyLastUsed(db, id, now)); // throws SQLITE_BUSY when the lock is taken
 */
export function runWithoutWaiting<T>(db: Db, work: () => T): T {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    return work();
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * Statements prepared by their SQL text on first use and kept for the next (at most `max`; beyond it the cache starts
 * over): for scans whose SQL varies with the question (steps, filters), each variant prepared once.
 * @example const scan = statementsBySql(db); scan(sqlText).all(params);
 */
export function statementsBySql(db: Db, max = 256): (sql: string) => ReturnType<Db['prepare']> {
  const prepared = new Map<string, ReturnType<Db['prepare']>>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (!statement) {
      if (prepared.size >= max) prepared.clear();
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
}
