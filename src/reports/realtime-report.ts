// GET /sites/:siteId/reports/realtime-v2: the last 5 and 30 minutes of a site by event time, from the stored events
// (not from the dashboard's own stream), so every open page shows the same figures at once.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { RealtimeAnswer } from './answers.ts';

export async function realtimeReport(context: AppContext, readModel: ReadModel, scope: ReportScope): Promise<RealtimeAnswer> {
  const figures = await readModel.realtime({ scope, nowMs: context.clock.now() });
  return {
    visitors_last_5m: figures.visitorsLast5m,
    visitors_last_30m: figures.visitorsLast30m,
    pageviews_last_30m: figures.pageviewsLast30m,
    series: figures.perMinute,
  };
}
