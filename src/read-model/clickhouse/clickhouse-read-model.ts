// The read model when CLICKHOUSE_URL is set: the families ClickHouse answers (reports; event lists, counts and
// activity; timelines; page engagement; journeys and page flow; goals; attribution's conversions; funnels and their panels) come from it, the rest (a live tail, …) from the embedded implementation
// until they move too (docs/clickhouse.md lists which). An unreachable ClickHouse answers 503 backend_unavailable.
import type { ClickHouse } from '../../clickhouse/client.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import type { Db } from '../../db/open.ts';
import type { ReadModel } from '../read-model.ts';
import { answeringUnavailableAs503 } from './common.ts';
import { createClickHouseAttributionReads } from './attribution-reads.ts';
import { createClickHouseBehaviourReads } from './behaviour-reads.ts';
import { createClickHouseEngagementReads } from './engagement-reads.ts';
import { createClickHouseEventReads } from './event-reads.ts';
import { createClickHouseFunnelReads } from './funnel-reads.ts';
import { createClickHouseGoalReads } from './goal-reads.ts';
import { createClickHousePersonReads } from './person-reads.ts';
import { withRetainedDays } from './retained-days.ts';
import { reachesTrimmedDays, refusingTrimmedDays, type TrimmedThroughDay } from './trimmed-log.ts';
import { createClickHouseReportReads } from './report-reads.ts';
import { composedRankings } from '../composed-rankings.ts';
import { composedDashboard } from '../composed-dashboard.ts';
import { storedSources } from '../sqlite/stored-sources.ts';

export interface ClickHouseReadModelOptions {
  clickhouse: ClickHouse;
  /** Waits, bounded, until ClickHouse holds every event committed before the call; false when the wait ran out. */
  waitForShipping: () => Promise<boolean>;
  /** What reads of these sites leave out now: deletions ClickHouse has not carried out yet (clickhouse/deletions.ts). */
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /** The embedded read model: what ClickHouse does not answer yet, and the newest events. */
  embedded: ReadModel;
  /** The embedded database: the log's tail ClickHouse does not hold yet (a timeline shows it at once). */
  db: Db;
  /** The last day LOG_RETAIN_DAYS may have trimmed from the embedded log (trimmed-log.ts); absent: nothing trimmed. */
  trimmedThroughDay?: TrimmedThroughDay;
}

export function createClickHouseReadModel({ clickhouse, waitForShipping, deletionsOf, embedded: whole, db, trimmedThroughDay = () => undefined }: ClickHouseReadModelOptions): ReadModel {
  // What the embedded model still answers from raw events is refused over trimmed days (never a partial figure);
  // unfiltered reports it answers from the rollups, which trimming keeps.
  const embedded = refusingTrimmedDays(trimmedThroughDay, whole);
  const readsRawEvents = (name: string, question: { filters?: object; untilMs?: number; sinceMs?: number }) =>
    name === 'propValues' || Object.keys(question.filters ?? {}).length > 0 || question.untilMs !== undefined || question.sinceMs !== undefined;
  const embeddedRollups = refusingTrimmedDays(trimmedThroughDay, whole, readsRawEvents as (name: string, question: never) => boolean);
  // Grouped sources group the scope's stored sources: the projector's dictionary, in the embedded database.
  const reports = createClickHouseReportReads({ clickhouse, waitForShipping, deletionsOf, knownSources: (siteIds) => storedSources(db, siteIds) });
  // The newest events (a live tail, the newest position, recent visitors) are in the log whatever it trimmed.
  const events = createClickHouseEventReads({ clickhouse, waitForShipping, deletionsOf, tail: whole });
  // A partial period's comparison cuts visits at a moment, which the shipped visits cannot: the embedded database
  // answers it (it holds every event until trimming exists). Realtime reads the newest events, which are there first.
  // A rolling window (sinceMs) is cut at a moment too.
  const series: ReadModel['series'] = (question) =>
    question.untilMs === undefined && question.sinceMs === undefined && question.filters.goal === undefined ? reports.series(question) : embedded.series(question);
  const people = createClickHousePersonReads({ clickhouse, db, deletionsOf });
  // A goal filter (the visits that converted) is not answered over ClickHouse yet: the embedded model answers it.
  const goalFiltered = <Question extends { filters: { goal?: unknown } }, Answer>(ask: (question: Question) => Promise<Answer>, embeddedAsk: (question: Question) => Promise<Answer>) =>
    (question: Question) => (question.filters.goal === undefined ? ask(question) : embeddedAsk(question));
  const summary = goalFiltered(reports.summary, embedded.summary);
  // A later page of a ranking is pinned to its first page's position (asOf), which the embedded model answers exactly
  // (visits as of an earlier position are recomputed from raw events there); ClickHouse's shipped visits are current.
  // A rolling window (sinceMs) cuts visits at a moment, as a partial comparison does: the embedded model answers it.
  // Over trimmed days the embedded model cannot recompute the pin: ClickHouse answers the page as of now instead.
  const ranking: ReadModel['ranking'] = (question) =>
    question.sinceMs !== undefined
      ? embedded.ranking(question)
      : question.asOf === undefined || (question.filters.goal === undefined && reachesTrimmedDays(question, trimmedThroughDay()))
        ? goalFiltered(reports.ranking, embedded.ranking)({ ...question, asOf: undefined })
        : embedded.ranking(question);
  const propValues = goalFiltered(reports.propValues, embedded.propValues);
  // Reports reaching a day a retention purge removed read the embedded rollups, which keep it (retained-days.ts).
  const { summary: embeddedSummary, ranking: embeddedRanking, propValues: embeddedPropValues, series: embeddedSeries } = embeddedRollups;
  const retainedReports = withRetainedDays(
    db,
    answeringUnavailableAs503({ summary, ranking, propValues, series }),
    { summary: embeddedSummary, ranking: embeddedRanking, propValues: embeddedPropValues, series: embeddedSeries },
  );
  const { listEvents, eventTypeCounts, pathActivity, ...tail } = events;
  const retainedEvents = withRetainedDays(db, answeringUnavailableAs503({ listEvents, eventTypeCounts, pathActivity }));
  const shippedEngagement = withRetainedDays(db, answeringUnavailableAs503(createClickHouseEngagementReads({ clickhouse, waitForShipping, deletionsOf, embedded })));
  // A rolling window (sinceMs) is answered where the ranking beside it is: by the embedded model.
  const engagement: Pick<ReadModel, 'pageEngagement'> = {
    pageEngagement: (question) => (question.sinceMs === undefined ? shippedEngagement.pageEngagement(question) : embedded.pageEngagement(question)),
  };
  // Journeys and page flow; retention counts the projector's visitor sets (rollups) and stays embedded.
  const { journeys, pageFlow } = createClickHouseBehaviourReads({ clickhouse, waitForShipping, deletionsOf, embedded });
  const behaviour = withRetainedDays(db, answeringUnavailableAs503({ journeys, pageFlow }), { journeys: embedded.journeys, pageFlow: embedded.pageFlow });
  const shippedGoals = withRetainedDays(
    db,
    answeringUnavailableAs503(createClickHouseGoalReads({ clickhouse, waitForShipping, deletionsOf, reports, embedded })),
    { goals: embedded.goals },
  );
  const goals: Pick<ReadModel, 'goals'> = { goals: (question) => (question.sinceMs === undefined ? shippedGoals.goals(question) : embedded.goals(question)) };
  const attribution = withRetainedDays(db, answeringUnavailableAs503(createClickHouseAttributionReads({ clickhouse, waitForShipping, deletionsOf })));
  // Funnels read raw events only, which a retention purge removes from both stores alike: no embedded fallback.
  const funnels = withRetainedDays(db, answeringUnavailableAs503(createClickHouseFunnelReads({ clickhouse, waitForShipping, deletionsOf, db })));
  // A dashboard's batch of rankings: each asked of the ranking above (ClickHouse scans per panel anyway).
  const rankings = composedRankings((question) => retainedReports.ranking(question));
  // A dashboard: its rankings, series and goals each asked as above.
  const dashboard = composedDashboard({ rankings, series: retainedReports.series, goals: goals.goals });
  return { ...whole, ...retainedReports, rankings, dashboard, ...retainedEvents, ...tail, ...answeringUnavailableAs503(people), ...engagement, ...behaviour, ...goals, ...attribution, ...funnels };
}
