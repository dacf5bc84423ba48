// Deletions on their way to ClickHouse: the clickhouse_deletions table (schema.sql versions 22 and 29) is this
// module's. A GDPR delete, a site deletion or a retention purge records here, in its own transaction, what ClickHouse must stop counting; every
// ClickHouse read leaves it out at once (deletionFilters), and the shipping loop asks ClickHouse to delete the rows
// (mutations) and forgets the record once ClickHouse holds none of them (deletion-mutations.ts).
import type { Db } from '../db/open.ts';
import { preparedOnce } from '../db/statements.ts';
import { highestSeqIssued } from '../event-store/queries/newest-events.ts';

export interface PendingDeletion {
  id: number;
  siteId: string;
  /** The subject's visitors; undefined: the whole site. */
  anonIds: string[] | undefined;
  /** Events with seq up to this (and visits they entered) are deleted; later ones are new data. */
  throughSeq: number;
  /** A retention purge's bound: only events with ts before it (and visits that ended before it); undefined: any time. */
  beforeMs: number | undefined;
  mutationSent: boolean;
}

interface DeletionRow {
  id: number;
  site_id: string;
  anon_ids: string | null;
  through_seq: number;
  before_ts: number | null;
  mutation_sent_at: number | null;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<{ site_id: string; anon_ids: string | null; through_seq: number; created_at: number; before_ts: number | null }>(
    'INSERT INTO clickhouse_deletions (site_id, anon_ids, through_seq, created_at, before_ts) VALUES (:site_id, :anon_ids, :through_seq, :created_at, :before_ts)',
  ),
  // A site's deletion covers every earlier record of the site.
  deleteOfSite: db.prepare<{ site_id: string }>('DELETE FROM clickhouse_deletions WHERE site_id = :site_id'),
  ofSites: db.prepare<{ site_ids: string }, DeletionRow>(
    'SELECT id, site_id, anon_ids, through_seq, before_ts, mutation_sent_at FROM clickhouse_deletions WHERE site_id IN (SELECT value FROM json_each(:site_ids)) ORDER BY id',
  ),
  all: db.prepare<[], DeletionRow>('SELECT id, site_id, anon_ids, through_seq, before_ts, mutation_sent_at FROM clickhouse_deletions ORDER BY id'),
  markSent: db.prepare<{ id: number; at: number }>('UPDATE clickhouse_deletions SET mutation_sent_at = :at WHERE id = :id'),
  forget: db.prepare<{ id: number }>('DELETE FROM clickhouse_deletions WHERE id = :id'),
}));

function toPending(row: DeletionRow): PendingDeletion {
  return {
    id: row.id,
    siteId: row.site_id,
    anonIds: row.anon_ids === null ? undefined : (JSON.parse(row.anon_ids) as string[]),
    throughSeq: row.through_seq,
    beforeMs: row.before_ts ?? undefined,
    mutationSent: row.mutation_sent_at !== null,
  };
}

/** Records that a subject's events so far are deleted (call in the GDPR deletion's transaction, CLICKHOUSE_URL set). */
export function recordSubjectDeletion(db: Db, siteId: string, anonIds: readonly string[], nowMs: number): void {
  if (anonIds.length === 0) return;
  statements(db).insert.run({ site_id: siteId, anon_ids: JSON.stringify([...anonIds]), through_seq: highestSeqIssued(db), created_at: nowMs, before_ts: null });
}

/**
 * Records that a retention purge removes the site's events before `beforeMs` (call before the purge's batches, in a
 * write transaction, CLICKHOUSE_URL set): ClickHouse's copies stop counting at once, as the embedded ones go.
 */
export function recordRetentionDeletion(db: Db, siteId: string, beforeMs: number, nowMs: number): void {
  statements(db).insert.run({ site_id: siteId, anon_ids: null, through_seq: highestSeqIssued(db), created_at: nowMs, before_ts: beforeMs });
}

/** Records that a site's events so far are deleted (a site data remover: in the site deletion's transaction). */
export function recordSiteDeletion(db: Db, siteId: string, nowMs: number): void {
  statements(db).deleteOfSite.run({ site_id: siteId });
  statements(db).insert.run({ site_id: siteId, anon_ids: null, through_seq: highestSeqIssued(db), created_at: nowMs, before_ts: null });
}

/** Forgets a site's pending deletions (a site data remover without ClickHouse: nothing is left to carry out). */
export function forgetDeletionsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run({ site_id: siteId });
}

/** What reads of these sites must leave out of ClickHouse's rows now. */
export function pendingDeletionsOf(db: Db, siteIds: readonly string[]): PendingDeletion[] {
  return statements(db).ofSites.all({ site_ids: JSON.stringify(siteIds) }).map(toPending);
}

export function allPendingDeletions(db: Db): PendingDeletion[] {
  return statements(db).all.all().map(toPending);
}

export function markMutationSent(db: Db, id: number, nowMs: number): void {
  statements(db).markSent.run({ id, at: nowMs });
}

/** ClickHouse holds none of the deletion's rows any more: nothing needs leaving out. */
export function forgetDeletion(db: Db, id: number): void {
  statements(db).forget.run({ id });
}
