// The dead-letter queue's rows (the event log's dlq table, beside the events in events.db): inserted by the ingest
// writer in the acknowledging commit (strictly increasing received_at per site), paged and replayed by src/dlq/, purged
// by retention, deleted with their site or GDPR subject.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface DlqRow {
  id: string;
  site_id: string;
  payload: string;
  error: string;
  context: string;
  received_at: string;
}

export interface ListDlqParams {
  site_id: string;
  before: string;
  limit: number;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<DlqRow>(
    'INSERT INTO dlq (id, site_id, payload, error, context, received_at) VALUES (:id, :site_id, :payload, :error, :context, :received_at)',
  ),
  newest: db.prepare<[string], { received_at: string | null }>('SELECT max(received_at) AS received_at FROM dlq WHERE site_id = ?'),
  page: db.prepare<ListDlqParams, DlqRow>(
    `SELECT id, site_id, payload, error, context, received_at FROM dlq
      WHERE site_id = :site_id AND received_at < :before ORDER BY received_at DESC LIMIT :limit`,
  ),
  find: db.prepare<{ site_id: string; id: string }, DlqRow>(
    'SELECT id, site_id, payload, error, context, received_at FROM dlq WHERE site_id = :site_id AND id = :id',
  ),
  delete: db.prepare<[string]>('DELETE FROM dlq WHERE id = ?'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM dlq WHERE site_id = ?'),
  // A subject's rows: the payload names the anon_id or the user_id (only events that passed the wire check are
  // quarantined, so payload is a JSON object; json_valid guards anyway). The site's rows are few: a scan.
  ofSubject: db.prepare<SubjectParams, DlqRow>(
    `SELECT id, site_id, payload, error, context, received_at FROM dlq
      WHERE site_id = :site_id AND json_valid(payload)
        AND (json_extract(payload, '$.anon_id') IN (SELECT value FROM json_each(:anon_ids)) OR json_extract(payload, '$.user_id') = :user_id)
      ORDER BY received_at`,
  ),
  deleteOlder: db.prepare<{ site_id: string; before: string; limit: number }>(
    `DELETE FROM dlq WHERE id IN (SELECT id FROM dlq WHERE site_id = :site_id AND received_at < :before LIMIT :limit)`,
  ),
}));

export interface SubjectParams {
  site_id: string;
  /** JSON array of the subject's anon_ids. */
  anon_ids: string;
  /** The subject's user_id, or null for an anon_id subject. */
  user_id: string | null;
}

export function insertDlqRow(db: Db, row: DlqRow): void {
  statements(db).insert.run(row);
}

export function newestDlqReceivedAt(db: Db, siteId: string): string | null {
  return statements(db).newest.get(siteId)?.received_at ?? null;
}

export function listDlqRows(db: Db, params: ListDlqParams): DlqRow[] {
  return statements(db).page.all(params);
}

export function findDlqRow(db: Db, siteId: string, id: string): DlqRow | undefined {
  return statements(db).find.get({ site_id: siteId, id });
}

export function deleteDlqRow(db: Db, id: string): void {
  statements(db).delete.run(id);
}

export function deleteDlqOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}

/** The rows of a GDPR subject: its anon_ids' events, and the events naming its user_id. */
export function listDlqRowsOfSubject(db: Db, siteId: string, anonIds: readonly string[], userId: string | null): DlqRow[] {
  return statements(db).ofSubject.all({ site_id: siteId, anon_ids: JSON.stringify(anonIds), user_id: userId });
}

/** Deletes at most `limit` of the site's rows received before `before` (ISO); returns how many. */
export function deleteDlqRowsReceivedBefore(db: Db, siteId: string, before: string, limit: number): number {
  return statements(db).deleteOlder.run({ site_id: siteId, before, limit }).changes;
}
