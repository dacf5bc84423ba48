// The goal questions over ClickHouse, with the SQLite implementation's semantics (sqlite/goal-reads.ts): the
// selection's visits that overlap the range and pass the visit filters (their entry's values), each goal's events of
// its type in the range inside those visits, matched by the vocabulary's rule in TypeScript (the props are read from
// the raw text: 18.16 has no JSONExtract of a nested key), the path filter on the converting event itself. The
// denominator is the selection's visitors as the ClickHouse summary counts them. A goal filter on the selection is
// answered by the embedded implementation until the report questions take it (docs/clickhouse.md).
import type { ClickHouse } from '../../clickhouse/client.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { sql } from '../../clickhouse/sql-literal.ts';
import { eventMatchesGoal, goalEventType } from '../../vocabulary/goal-rule.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import type { GoalFigures, GoalQuestions } from '../goal-questions.ts';
import type { ReportQuestions } from '../report-questions.ts';
import { freshnessOf, listOf, liveVisits, visitFilterSql } from './common.ts';

export interface ClickHouseGoalReadOptions {
  clickhouse: ClickHouse;
  waitForShipping: () => Promise<boolean>;
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /** The ClickHouse summary: the denominator. */
  reports: Pick<ReportQuestions, 'summary'>;
  /** The embedded implementation: a goal-filtered selection. */
  embedded: GoalQuestions;
}

interface CandidateRow {
  anon_id: string;
  type: string;
  path: string | null;
  revenue_minor: number | null;
  revenue_currency: string | null;
  raw: string;
}

/** The props object as SQLite's json_extract(raw, '$.props') gives it when it is an object, else null. */
function propsOf(raw: string): unknown {
  try {
    const props = (JSON.parse(raw) as { props?: unknown } | null)?.props;
    return props !== null && typeof props === 'object' && !Array.isArray(props) ? props : null;
  } catch {
    return null;
  }
}

export function createClickHouseGoalReads({ clickhouse, waitForShipping, deletionsOf, reports, embedded }: ClickHouseGoalReadOptions): GoalQuestions {
  return {
    async goals(question) {
      if (question.filters.goal) return embedded.goals(question);
      const caughtUp = await waitForShipping();
      const { siteIds } = question.scope;
      const deletions = deletionsOf(siteIds);
      const startMs = question.range.fromDay * dayMs;
      const endMs = (question.range.toDay + 1) * dayMs;
      const selection = { scope: question.scope, range: question.range, filters: question.filters, withInternal: question.withInternal };
      const whole = await reports.summary({ ...selection, visitors: true });
      const visits = sql`SELECT site_id, anon_id, is_internal, start_ts AS v_start, end_ts AS v_end
        FROM ${liveVisits(question, startMs, endMs, deletions)} WHERE 1 = 1${visitFilterSql(question.filters)}`;
      const types = [...new Set(question.goals.map(({ rule }) => goalEventType(rule)))];
      const rows =
        types.length === 0
          ? []
          : await clickhouse.query<CandidateRow>(
              sql`SELECT anon_id, type, path, revenue_minor, revenue_currency, raw FROM (
                    SELECT site_id, anon_id, is_internal, ts, type, path, revenue_minor, revenue_currency, raw FROM events
                    WHERE site_id IN ${listOf(siteIds)} AND type IN ${listOf(types)} AND ts >= ${startMs} AND ts < ${endMs} AND is_bot = 0
                      ${withoutDeleted(deletions, 'events')})
                  ALL INNER JOIN (${visits}) USING (site_id, anon_id, is_internal)
                  WHERE ts >= v_start AND ts <= v_end`,
            );
      const paths = question.filters.path;
      const candidates = rows.map((row) => ({ ...row, props: propsOf(row.raw) }));
      const goals: GoalFigures[] = question.goals.map(({ id, rule }) => {
        const people = new Set<string>();
        const revenue = new Map<string, number>();
        let conversions = 0;
        for (const event of candidates) {
          if (!eventMatchesGoal(rule, event)) continue;
          if (paths && (event.path === null || !paths.includes(event.path))) continue;
          conversions++;
          people.add(event.anon_id);
          if (event.revenue_minor !== null && event.revenue_currency !== null) {
            revenue.set(event.revenue_currency, (revenue.get(event.revenue_currency) ?? 0) + event.revenue_minor);
          }
        }
        for (const [currency, amount] of revenue) if (amount === 0) revenue.delete(currency);
        return { id, visitors: people.size, conversions, revenue };
      });
      return { visitors: whole.total.visitors, goals, freshness: await freshnessOf(clickhouse, siteIds, caughtUp), computedFrom: 'events' as const };
    },
  };
}
