// The person questions (a user's timeline) over ClickHouse: the user's anon_ids from the shipped identity bindings
// and each one's events from the shipped log, both up to the highest seq ClickHouse holds, plus the embedded log's
// unshipped tail past it (src/clickhouse/unshipped-tail.ts), so a timeline sees an event as soon as it is
// acknowledged, as the SQLite implementation does. Pages are cut exactly as person-reads.ts of SQLite cuts them.
import type { ClickHouse } from '../../clickhouse/client.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { sql } from '../../clickhouse/sql-literal.ts';
import { readUnshippedTimeline, type UnshippedTimelineRow } from '../../clickhouse/unshipped-tail.ts';
import type { Db } from '../../db/open.ts';
import type { PersonQuestions, TimelinePage } from '../person-questions.ts';
import { toTimelineEvent } from '../timeline-event.ts';

export interface ClickHousePersonReadOptions {
  clickhouse: ClickHouse;
  /** The embedded database: its log's tail that ClickHouse does not hold yet. */
  db: Db;
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
}

const noLowerBound = Number.MIN_SAFE_INTEGER;
const noUpperBound = Number.MAX_SAFE_INTEGER;

const newestFirst = (a: UnshippedTimelineRow, b: UnshippedTimelineRow) => b.ts - a.ts || b.seq - a.seq;

export function createClickHousePersonReads({ clickhouse, db, deletionsOf }: ClickHousePersonReadOptions): PersonQuestions {
  return {
    async timeline(question) {
      const deletions = deletionsOf([question.siteId]);
      // One position for every read of the page: ClickHouse's rows up to it, the embedded log's past it.
      const [position] = await clickhouse.query<{ through: number }>(sql`SELECT max(seq) AS through FROM events`);
      const through = position?.through ?? 0;
      const bound = await clickhouse.query<{ anon_id: string }>(
        sql`SELECT DISTINCT anon_id FROM identity_bindings
            WHERE site_id = ${question.siteId} AND user_id = ${question.userId} AND seq <= ${through}${withoutDeleted(deletions, 'identity_bindings')}`,
      );
      const tail = readUnshippedTimeline(db, question.siteId, question.userId, through, bound.map((row) => row.anon_id));
      if (tail.anonIds.length === 0) return { unknownUser: true };

      /** The newest `count` events (all with -1) with notBefore <= ts < before. */
      const newestEvents = async (notBefore: number, before: number, count: number): Promise<UnshippedTimelineRow[]> => {
        const shipped = await clickhouse.query<UnshippedTimelineRow>(
          sql`SELECT seq, id, type, ts, anon_id, country, city, browser, os, device_type, raw FROM events
              WHERE site_id = ${question.siteId} AND anon_id IN user_anons AND seq <= ${through}
                AND ts >= ${notBefore} AND ts < ${before}${withoutDeleted(deletions, 'events')}
              ORDER BY ts DESC, seq DESC${count < 0 ? sql`` : sql` LIMIT ${count}`}`,
          {},
          // A table of the query, not literals: a user's devices are as many as the data makes them (max_ast_elements).
          [{ name: 'user_anons', columns: { anon_id: 'String' }, rows: tail.anonIds.map((anonId) => ({ anon_id: anonId })) }],
        );
        const rows = [...shipped, ...tail.events.filter((row) => row.ts >= notBefore && row.ts < before)].sort(newestFirst);
        return count < 0 ? rows : rows.slice(0, count);
      };

      // The page: at most limit rows ending on a millisecond boundary, or the newest millisecond whole when it alone
      // holds more (the SQLite implementation's rule, so paging by time neither skips nor repeats an event).
      const { limit } = question;
      const page = async (): Promise<{ rows: UnshippedTimelineRow[]; nextBefore: number | null }> => {
        const rows = await newestEvents(noLowerBound, question.beforeMs ?? noUpperBound, limit + 1);
        if (rows.length <= limit) return { rows, nextBefore: null };
        const firstLeftOut = rows[limit]!.ts;
        const cut = rows.findIndex((row) => row.ts === firstLeftOut);
        if (cut > 0) return { rows: rows.slice(0, cut), nextBefore: rows[cut - 1]!.ts };
        const wholeMillisecond = await newestEvents(firstLeftOut, firstLeftOut + 1, -1);
        const older = await newestEvents(noLowerBound, firstLeftOut, 1);
        return { rows: wholeMillisecond, nextBefore: older.length > 0 ? firstLeftOut : null };
      };
      const { rows, nextBefore } = await page();
      return { unknownUser: false, events: rows.map(toTimelineEvent), nextBeforeMs: nextBefore } satisfies TimelinePage;
    },
  };
}
