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

/** signed_visits' columns besides sign (schema.sql version 5): what a live visit row shows. */
export const visitRowColumns = sql`site_id, anon_id, is_internal, visit_id, start_ts, end_ts, events, pageviews, entry_seq, entry_path, entry_query,
  source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts, exit_seq, exit_path, exit_query`;

/**
 * Visits as ClickHouse counts them, without FINAL: the visit rows matching `where` whose values net a sum(sign) of 1
 * (a changed visit's old row and its -1 cancel; schema.sql version 5). `where` may test any of a row's own columns:
 * both rows of a pair carry the same values, so it keeps or drops both. Pending deletions are such a condition too.
 * The one FROM-expression of live visits every read family uses. `columns` may be fewer than all when they include
 * site_id, anon_id, is_internal, start_ts and end_ts (one visitor's visits are disjoint, so these name one visit).
 */
export function signedVisits(where: SqlText, deletions: readonly PendingDeletion[], columns: SqlText = visitRowColumns): SqlText {
  return sql`(SELECT ${columns} FROM signed_visits WHERE ${where}${withoutDeleted(deletions, 'visits')} GROUP BY ${columns} HAVING sum(sign) > 0)`;
}

/**
 * The condition on signed_visits for the scope's visits that overlap [startMs, endMs): those start before endMs and
 * end at or after startMs, and no earlier than the site's longest visit before startMs (visit_spans keeps that bound
 * as rows arrive), so the read is a range of the sorting key (site_id, start_ts) rather than every earlier visit.
 */
export function overlappingVisits(question: Pick<Selection, 'scope' | 'withInternal'>, startMs: number, endMs: number): SqlText {
  const sites = listOf(question.scope.siteIds);
  return sql`site_id IN ${sites} AND start_ts < ${endMs} AND end_ts >= ${startMs}
    AND start_ts >= ${startMs} - (SELECT maxMerge(longest) FROM visit_spans WHERE site_id IN ${sites})
    AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)`;
}

/** The scope's live visits (not merged away, not deleted) that overlap [startMs, endMs), one row each. */
export function liveVisits(question: Pick<Selection, 'scope' | 'withInternal'>, startMs: number, endMs: number, deletions: readonly PendingDeletion[], columns?: SqlText): SqlText {
  return signedVisits(overlappingVisits(question, startMs, endMs), deletions, columns);
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
        const unavailable = new ApiError(503, 'backend_unavailable', 'The analytics store (ClickHouse) is unreachable; ingest goes on and this answer will be back shortly', undefined, {
          'Retry-After': String(backendRetryAfterSeconds),
        });
        // Why, for logs and test reports (a timeout, a refused or reset connection); never in the answer's body.
        unavailable.cause = error;
        throw unavailable;
      }
    };
  }
  return guarded as Questions;
}
