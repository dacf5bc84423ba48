// The mail outbox: one row per mail accepted for sending, written in the transaction of what caused it (a claimed
// report period, an alert's firing); the worker sends the due rows and records each attempt's outcome.
import type { Db } from '../../db/open.ts';
import { toIso } from '../../clock.ts';
import { preparedOnce } from '../../db/statements.ts';

export type MailKind = 'report' | 'report_test' | 'alert';

export interface MailOutboxRow {
  id: string;
  kind: MailKind;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  /** JSON object of extra headers. */
  headers: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: number;
  created_at: string;
  sent_at: string | null;
  last_error: string | null;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<MailOutboxRow>(
    `INSERT INTO mail_outbox (id, kind, recipient, subject, text_body, html_body, headers, status, attempts, next_attempt_at, created_at, sent_at, last_error)
     VALUES (:id, :kind, :recipient, :subject, :text_body, :html_body, :headers, :status, :attempts, :next_attempt_at, :created_at, :sent_at, :last_error)
     ON CONFLICT (id) DO NOTHING`,
  ),
  exists: db.prepare<[string], { id: string }>('SELECT id FROM mail_outbox WHERE id = ?'),
  byId: db.prepare<[string], MailOutboxRow>('SELECT * FROM mail_outbox WHERE id = ?'),
  due: db.prepare<{ now: number; limit: number }, MailOutboxRow>(
    "SELECT * FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= :now ORDER BY next_attempt_at, id LIMIT :limit",
  ),
  settle: db.prepare<{ id: string; status: string; next_attempt_at: number; sent_at: string | null; last_error: string | null }>(
    `UPDATE mail_outbox SET attempts = attempts + 1, status = :status, next_attempt_at = :next_attempt_at, sent_at = :sent_at, last_error = :last_error
     WHERE id = :id AND status = 'pending'`,
  ),
  pending: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM mail_outbox WHERE status = 'pending'"),
}));

/** Inserts the row unless its id exists; false when it did (the same mail was accepted before: never twice). */
export function insertMailOutboxRow(db: Db, row: MailOutboxRow): boolean {
  return statements(db).insert.run(row).changes > 0;
}

export function mailOutboxRowExists(db: Db, id: string): boolean {
  return statements(db).exists.get(id) !== undefined;
}

export function findMailOutboxRow(db: Db, id: string): MailOutboxRow | undefined {
  return statements(db).byId.get(id);
}

/** Pending mails due at `now`, the longest waiting first. */
export function listDueMail(db: Db, now: number, limit: number): MailOutboxRow[] {
  return statements(db).due.all({ now, limit });
}

/** One more attempt made: sent, failed for good, or pending again at `nextAttemptAt`. */
export function settleMailOutboxRow(db: Db, id: string, outcome: { status: MailOutboxRow['status']; nextAttemptAt: number; sentAt: string | null; lastError: string | null }): void {
  statements(db).settle.run({ id, status: outcome.status, next_attempt_at: outcome.nextAttemptAt, sent_at: outcome.sentAt, last_error: outcome.lastError });
}

export function countPendingMail(db: Db): number {
  return statements(db).pending.get()!.n;
}

/** A rendered mail for the outbox: its subject, both parts and extra headers (List-Unsubscribe). */
export interface QueuedMail {
  subject: string;
  text: string;
  html: string | null;
  headers: Record<string, string>;
}

/**
 * Accepts a mail for sending now (a pending row, no attempt yet) unless its id exists; false when it did. Call in the
 * transaction of what caused the mail, so the mail and its cause commit together.
 */
export function queueMail(db: Db, entry: { id: string; kind: MailKind; recipient: string; mail: QueuedMail; nowMs: number }): boolean {
  return insertMailOutboxRow(db, {
    id: entry.id,
    kind: entry.kind,
    recipient: entry.recipient,
    subject: entry.mail.subject,
    text_body: entry.mail.text,
    html_body: entry.mail.html,
    headers: JSON.stringify(entry.mail.headers),
    status: 'pending',
    attempts: 0,
    next_attempt_at: entry.nowMs,
    created_at: toIso(entry.nowMs),
    sent_at: null,
    last_error: null,
  });
}
