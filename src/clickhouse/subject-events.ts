// A GDPR export's events that ClickHouse holds (docs/clickhouse.md, "Trimming the SQLite log"): once LOG_RETAIN_DAYS
// has trimmed the embedded log, a subject's older events are only there, so the export (src/gdpr/gdpr-actions.ts)
// adds these to the log's. Pending deletions are left out, as every ClickHouse read does. An unreachable ClickHouse
// answers 503 backend_unavailable: an export never leaves out what it cannot read.
import type { VisitorLogEventRow } from '../projector/queries/visitor-log-events.ts';
import type { Db } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import { ClickHouseUnavailableError, type ClickHouse } from './client.ts';
import { withoutDeleted } from './deletion-sql.ts';
import { pendingDeletionsOf } from './deletions.ts';
import { sql } from './sql-literal.ts';

/** The subject's shipped events of a site, in (ts, seq) order, at most `limit`. */
export type ShippedSubjectEvents = (siteId: string, anonIds: readonly string[], limit: number) => Promise<VisitorLogEventRow[]>;

/** @example const shippedEventsOf = shippedSubjectEvents(clickhouse, db); await shippedEventsOf('blog', ['a1'], 50_001) */
export function shippedSubjectEvents(clickhouse: ClickHouse, db: Db): ShippedSubjectEvents {
  return async (siteId, anonIds, limit) => {
    if (anonIds.length === 0) return [];
    try {
      return await clickhouse.query<VisitorLogEventRow>(
        sql`SELECT seq, id, type, ts, received_at, anon_id, path, source, country, region, city, browser, os, device_type, raw, user_id, is_bot, is_internal
            FROM events
            WHERE site_id = ${siteId} AND anon_id IN subject_anons${withoutDeleted(pendingDeletionsOf(db, [siteId]), 'events')}
            ORDER BY ts, seq LIMIT ${limit}`,
        {},
        // A table of the query, not literals: a user's devices are as many as the data makes them (max_ast_elements).
        [{ name: 'subject_anons', columns: { anon_id: 'String' }, rows: anonIds.map((anonId) => ({ anon_id: anonId })) }],
      );
    } catch (error) {
      if (!(error instanceof ClickHouseUnavailableError)) throw error;
      throw new ApiError(503, 'backend_unavailable', 'The analytics store (ClickHouse) is unreachable: the export would miss the events only it holds; try again shortly', undefined, { 'Retry-After': '5' });
    }
  };
}
