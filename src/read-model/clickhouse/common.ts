// What the ClickHouse read families share: quoted lists, the report filters as SQL, the scope's live visits, and an
// answer's freshness. Every value reaches SQL through the sql tag (src/clickhouse/sql-literal.ts).
import { ClickHouseUnavailableError, type ClickHouse } from '../../clickhouse/client.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { ApiError } from '../../http/errors.ts';
import { joinSql, sql, SqlText } from '../../clickhouse/sql-literal.ts';
import { visitFilterColumns, type ReportFilters } from '../../vocabulary/report-filters.ts';
import type { Freshness, Selection } from '../questions.ts';

/** Column names are constants of this file, never input. */
export function sqlName(name: string): SqlText {
  if (!/^[a-z_]+$/.test(name)) throw new TypeError(`not a column: ${name}`);
  return new SqlText(name);
}

/** `(a, b, …)`: a list of quoted values for IN. */
export const listOf = (values: readonly string[]) => sql`(${joinSql(values.map((value) => sql`${value}`), ', ')})`;
export const isIn = (column: string, values: string[] | undefined) => (values ? sql` AND ${sqlName(column)} IN ${listOf(values)}` : sql``);

export function visitFilterSql(filters: ReportFilters, prefix = ''): SqlText {
  return joinSql(
    (Object.entries(visitFilterColumns) as [keyof typeof visitFilterColumns, string][]).map(([name, column]) => isIn(`${prefix}${column}`, filters[name])),
    '',
  );
}

/**
 * The scope's live visits (newest version, not merged away, not deleted) that overlap [startMs, endMs). Deletions are
 * tested outside FINAL, like `deleted`: a non-key column tested inside it could drop a newer version before a merge.
 */
export function liveVisits(question: Pick<Selection, 'scope' | 'withInternal'>, startMs: number, endMs: number, deletions: readonly PendingDeletion[]): SqlText {
  return sql`(SELECT * FROM (SELECT * FROM visits FINAL WHERE site_id IN ${listOf(question.scope.siteIds)})
    WHERE deleted = 0 AND start_ts < ${endMs} AND end_ts >= ${startMs} AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)${withoutDeleted(deletions, 'visits')})`;
}

/**
 * An answer's freshness over ClickHouse: its position is the highest seq shipped; caughtUp is the shipping wait's.
 * Read from event_marks (schema.sql version 2: the maxima per site, kept as events arrive), not from a scan of events.
 */
export async function freshnessOf(clickhouse: ClickHouse, siteIds: readonly string[], caughtUp: boolean): Promise<Freshness> {
  const [row] = await clickhouse.query<{ position: number; watermark: number; n: number }>(
    sql`SELECT (SELECT maxMerge(max_seq) FROM event_marks) AS position, maxMerge(max_received_at) AS watermark, count() AS n
        FROM event_marks WHERE site_id IN ${listOf(siteIds)}`,
  );
  const watermarkMs = row && row.n > 0 ? row.watermark : null;
  return { position: row?.position ?? 0, watermarkMs, projectedThroughMs: watermarkMs, caughtUp, rawEventsFromDay: undefined };
}

/** How long a client should wait before asking again while ClickHouse is unreachable (the shipper's backoff is similar). */
export const backendRetryAfterSeconds = 5;

/**
 * The same questions, with an unreachable ClickHouse answered as 503 backend_unavailable and Retry-After: a read whose
 * data lives in ClickHouse never falls back to a partial figure.
 */
export function answeringUnavailableAs503<Questions extends object>(questions: Questions): Questions {
  const guarded: Record<string, unknown> = {};
  for (const [name, question] of Object.entries(questions)) {
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await (question as (...input: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        if (!(error instanceof ClickHouseUnavailableError)) throw error;
        throw new ApiError(503, 'backend_unavailable', 'The analytics store (ClickHouse) is unreachable; ingest goes on and this answer will be back shortly', undefined, {
          'Retry-After': String(backendRetryAfterSeconds),
        });
      }
    };
  }
  return guarded as Questions;
}
