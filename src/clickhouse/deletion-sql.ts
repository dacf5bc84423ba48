// The rows of ClickHouse a pending deletion names, as SQL: the same condition leaves them out of every read at once
// and deletes them by a mutation later (deletion-mutations.ts), so the two can never disagree.
import type { PendingDeletion } from './deletions.ts';
import { joinSql, sql, type SqlText } from './sql-literal.ts';

/** The tables a deletion reaches; identity_bindings names its binding event's seq as events do. */
export type DeletedTable = 'events' | 'visits' | 'identity_bindings';

/**
 * The condition a deletion puts on a table's rows: its site's events with seq up to throughSeq (visits: those such an
 * event entered; bindings: those such an event made), of its visitors only when it names some, and of a retention
 * purge only events before its time bound and visits that ended before it (the embedded purge's rule).
 */
export function deletedRows(deletion: PendingDeletion, table: DeletedTable): SqlText {
  const upTo = table === 'visits' ? sql`entry_seq <= ${deletion.throughSeq}` : sql`seq <= ${deletion.throughSeq}`;
  const visitors = deletion.anonIds ? sql` AND anon_id IN (${joinSql(deletion.anonIds.map((anonId) => sql`${anonId}`), ', ')})` : sql``;
  if (deletion.beforeMs === undefined) return sql`(site_id = ${deletion.siteId} AND ${upTo}${visitors})`;
  // A retention purge: events before the bound and visits that ended before it; identities stay (as in SQLite).
  if (table === 'identity_bindings') return sql`0`;
  const before = table === 'visits' ? sql`end_ts < ${deletion.beforeMs}` : sql`ts < ${deletion.beforeMs}`;
  return sql`(site_id = ${deletion.siteId} AND ${upTo} AND ${before}${visitors})`;
}

/** ` AND NOT (…)` leaving out every deletion's rows, or nothing when none is pending. */
export function withoutDeleted(deletions: readonly PendingDeletion[], table: DeletedTable): SqlText {
  if (deletions.length === 0) return sql``;
  return sql` AND NOT (${joinSql(deletions.map((deletion) => deletedRows(deletion, table)), ' OR ')})`;
}
