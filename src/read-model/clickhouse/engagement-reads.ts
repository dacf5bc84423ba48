// The engagement questions over ClickHouse: the engagement events of the pages asked about, selected by the event
// reads' rules (event-reads.ts: no bots, internal traffic only when asked, the path filter on the event's path, a
// visit filter on the visit holding the event), their props read here from the raw text (18.16 has no JSONExtract
// of a nested key), and the medians computed exactly as the SQLite implementation computes them. A goal filter is
// answered by the embedded implementation until the goal family moves (docs/clickhouse.md).
import type { ClickHouse } from '../../clickhouse/client.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { sql } from '../../clickhouse/sql-literal.ts';
import { pageKeyOf } from '../../vocabulary/dimensions.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { engagementType, type EngagementQuestions, median, type PageEngagement } from '../engagement-questions.ts';
import { freshnessOf, listOf } from './common.ts';
import { selectedEvents } from './event-reads.ts';

export interface ClickHouseEngagementReadOptions {
  clickhouse: ClickHouse;
  waitForShipping: () => Promise<boolean>;
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /** The embedded implementation: a goal-filtered question. */
  embedded: EngagementQuestions;
}

const validDepth = (value: unknown): value is number => typeof value === 'number' && value >= 0 && value <= 100;
const validMs = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** A JSON value as SQLite's json_extract gives it to JavaScript: true and false are the integers 1 and 0. */
const asSqliteGives = (value: unknown) => (typeof value === 'boolean' ? Number(value) : value);

/** The two props as SQLite's json_extract gives them: undefined when the text is not JSON or has none. */
function engagementProps(raw: string): { depth: unknown; ms: unknown } {
  try {
    const props = (JSON.parse(raw) as { props?: Record<string, unknown> } | null)?.props;
    return props !== null && typeof props === 'object' && !Array.isArray(props)
      ? { depth: asSqliteGives(props.scroll_depth), ms: asSqliteGives(props.engaged_ms) }
      : { depth: undefined, ms: undefined };
  } catch {
    return { depth: undefined, ms: undefined };
  }
}

export function createClickHouseEngagementReads({ clickhouse, waitForShipping, deletionsOf, embedded }: ClickHouseEngagementReadOptions): EngagementQuestions {
  return {
    async pageEngagement(question) {
      if (question.filters.goal) return embedded.pageEngagement(question);
      const caughtUp = await waitForShipping();
      const wanted = new Set(question.keys);
      const paths = [...new Set(question.keys.map((key) => (question.by === 'page' ? key.split('?', 1)[0]! : key)))];
      const rows =
        paths.length === 0
          ? []
          : await clickhouse.query<{ path: string; query: string | null; raw: string }>(
              selectedEvents(
                question,
                deletionsOf(question.scope.siteIds),
                question.range.fromDay * dayMs,
                (question.range.toDay + 1) * dayMs,
                sql`path, query, raw`,
                sql` AND type = ${engagementType} AND path IN ${listOf(paths)}`,
              ),
            );
      const collected = new Map<string, { depths: number[]; times: number[] }>();
      for (const row of rows) {
        const { depth, ms } = engagementProps(row.raw);
        if (!validDepth(depth) || !validMs(ms)) continue;
        const key = question.by === 'page' ? pageKeyOf(row.path, row.query)! : row.path;
        if (!wanted.has(key)) continue;
        let found = collected.get(key);
        if (!found) collected.set(key, (found = { depths: [], times: [] }));
        found.depths.push(depth);
        found.times.push(ms);
      }
      const pages = new Map<string, PageEngagement>(
        [...collected].map(([key, { depths, times }]) => [key, { scrollDepth: median(depths), engagedMs: median(times), events: depths.length }]),
      );
      return { pages, freshness: await freshnessOf(clickhouse, question.scope.siteIds, caughtUp), computedFrom: 'event_log' as const };
    },
  };
}
