// The read model over the embedded database: each family of questions in its own file, composed here.
import type { ReadModel } from '../read-model.ts';
import { createSqliteEventReads } from './event-reads.ts';
import { createSqlitePersonReads } from './person-reads.ts';
import { createSqliteAttributionReads } from './attribution-reads.ts';
import { createSqliteFunnelReads } from './funnel-reads.ts';
import { createSqliteBehaviourReads } from './behaviour-reads.ts';
import { createSqliteGoalReads } from './goal-reads.ts';
import { createSqliteEngagementReads } from './engagement-reads.ts';
import { createSqliteReportReads, type SqliteReadOptions } from './report-reads.ts';
import { createSqliteTimeReads } from './time-reads.ts';
import { createSqliteDashboardReads } from './dashboard-reads.ts';
import { withSourceGroups } from '../source-groups.ts';
import { storedSources } from './stored-sources.ts';

/**
 * @example const readModel = createSqliteReadModel({ db, waitForProjection: () => projection.catchUp() });
 */
export function createSqliteReadModel(options: SqliteReadOptions): ReadModel {
  // A group's name as a source filter (source=Google) selects its stored sources, on every question.
  return withSourceGroups<ReadModel>({
    ...createSqliteReportReads(options),
    ...createSqliteEventReads(options),
    ...createSqlitePersonReads(options),
    ...createSqliteFunnelReads(options),
    ...createSqliteAttributionReads(options),
    ...createSqliteBehaviourReads(options),
    ...createSqliteGoalReads(options),
    ...createSqliteEngagementReads(options),
    ...createSqliteTimeReads(options),
    ...createSqliteDashboardReads(options),
  }, (siteIds) => storedSources(options.db, siteIds));
}
