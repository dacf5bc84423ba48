// The read model when CLICKHOUSE_URL is set: the families ClickHouse answers (reports; event lists, counts and
// activity) come from it, the rest (a live tail, people, funnels, attribution) from the embedded implementation until
// they move too (docs/clickhouse.md lists which). An unreachable ClickHouse answers 503 backend_unavailable.
import type { ClickHouse } from '../../clickhouse/client.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import type { ReadModel } from '../read-model.ts';
import { answeringUnavailableAs503 } from './common.ts';
import { createClickHouseEventReads } from './event-reads.ts';
import { createClickHouseReportReads } from './report-reads.ts';

export interface ClickHouseReadModelOptions {
  clickhouse: ClickHouse;
  /** Waits, bounded, until ClickHouse holds every event committed before the call; false when the wait ran out. */
  waitForShipping: () => Promise<boolean>;
  /** What reads of these sites leave out now: deletions ClickHouse has not carried out yet (clickhouse/deletions.ts). */
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /** The embedded read model: what ClickHouse does not answer yet, and the newest events. */
  embedded: ReadModel;
}

export function createClickHouseReadModel({ clickhouse, waitForShipping, deletionsOf, embedded }: ClickHouseReadModelOptions): ReadModel {
  const reports = createClickHouseReportReads({ clickhouse, waitForShipping, deletionsOf });
  const events = createClickHouseEventReads({ clickhouse, waitForShipping, deletionsOf, tail: embedded });
  // A partial period's comparison cuts visits at a moment, which the shipped visits cannot: the embedded database
  // answers it (it holds every event until trimming exists). Realtime reads the newest events, which are there first.
  // A rolling window (sinceMs) is cut at a moment too.
  const series: ReadModel['series'] = (question) => (question.untilMs === undefined && question.sinceMs === undefined ? reports.series(question) : embedded.series(question));
  return { ...embedded, ...answeringUnavailableAs503({ ...reports, series }), ...answeringUnavailableAs503(events) };
}
