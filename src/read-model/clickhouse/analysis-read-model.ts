// The read model an analysis job (funnels and their panels, attribution, journeys, page flow, retention) is answered
// with: with CLICKHOUSE_URL set the ClickHouse one, composed as the HTTP thread composes it, so a job reads history
// where it lives (after LOG_RETAIN_DAYS the embedded log no longer holds it); else the embedded one. The job's route
// already waited (for the projector, then the shipper): the read model answers with that wait's outcome. Used on the
// analysis thread (its own read-only connection and ClickHouse client) and inline alike.
import type { ClickHouse } from '../../clickhouse/client.ts';
import { pendingDeletionsOf } from '../../clickhouse/deletions.ts';
import type { Db } from '../../db/open.ts';
import type { ReadModel } from '../read-model.ts';
import { withSourceGroups } from '../source-groups.ts';
import { createSqliteReadModel } from '../sqlite/sqlite-read-model.ts';
import { storedSources } from '../sqlite/stored-sources.ts';
import { createClickHouseReadModel } from './clickhouse-read-model.ts';
import type { TrimmedThroughDay } from './trimmed-log.ts';

/** @example const readModelFor = analysisReadModelFor(db, { clickhouse, trimmedThroughDay }); readModelFor(true).funnelPopulation(question) */
export function analysisReadModelFor(db: Db, history: { clickhouse: ClickHouse; trimmedThroughDay: TrimmedThroughDay } | undefined): (caughtUp: boolean) => ReadModel {
  return (caughtUp) => {
    const embedded = createSqliteReadModel({ db, waitForProjection: async () => caughtUp });
    if (!history) return embedded;
    const { clickhouse, trimmedThroughDay } = history;
    const composed = createClickHouseReadModel({ clickhouse, waitForShipping: async () => caughtUp, deletionsOf: (siteIds) => pendingDeletionsOf(db, siteIds), embedded, db, trimmedThroughDay });
    return withSourceGroups(composed, (siteIds) => storedSources(db, siteIds));
  };
}
