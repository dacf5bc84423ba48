// Delivery attempts: one row per request sent (or refused before sending), the history an operator reads.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

/** What an attempt came to (the label of sightline_webhook_deliveries_total and the history's outcome). */
export const attemptOutcomes = ['delivered', 'http_error', 'redirect', 'gone', 'timeout', 'network_error', 'address_refused', 'secret_unavailable'] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];

export interface AttemptRow {
  outbox_id: string;
  attempted_at: string;
  outcome: AttemptOutcome;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<AttemptRow>(
    `INSERT INTO webhook_attempts (outbox_id, attempted_at, outcome, status_code, latency_ms, response_excerpt)
     VALUES (:outbox_id, :attempted_at, :outcome, :status_code, :latency_ms, :response_excerpt)`,
  ),
  ofOutbox: db.prepare<[string], AttemptRow>(
    'SELECT outbox_id, attempted_at, outcome, status_code, latency_ms, response_excerpt FROM webhook_attempts WHERE outbox_id = ? ORDER BY id',
  ),
}));

export function insertAttempt(db: Db, row: AttemptRow): void {
  statements(db).insert.run(row);
}

/** The attempts of one delivery, oldest first (at most its max_attempts). */
export function listAttemptsOf(db: Db, outboxId: string): AttemptRow[] {
  return statements(db).ofOutbox.all(outboxId);
}
