// GET /sites/:siteId/reports/pages-v2: pages ranked by pageviews (then path), with include_params, limit and an
// opaque cursor pinned to the first page's position, so paging is stable while events keep arriving.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reading/cursor.ts';
import { measuresOf, withPageVisitors } from '../reading/measures.ts';
import { buildMeta } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { PagesAnswer } from './answers.ts';
import { selectionOf } from './summary-report.ts';
import type { RankingAsk, RankingFigures } from '../read-model/report-questions.ts';
import type { Answer } from '../read-model/questions.ts';

/** The engagement figures (CONTRACT section 10), from the tracker's engagement events. */
const engagementMeasures = {
  scroll_depth: 'median scroll_depth (percent) of the engagement events on the page in the range; absent when none',
  time_on_page_s: 'median engaged_ms of the engagement events on the page in the range, in seconds (1 decimal); absent when none',
};

export interface PagesOptions {
  includeParams: boolean;
  limit: number;
  cursor: string | undefined;
  /** since=: a rolling window inside the range (epoch ms). */
  sinceMs?: number;
}

/** A time kept in a cursor ('' for none). */
function msOrNull(value: string | number | undefined): number | null {
  return value === undefined || value === '' ? null : Number(value);
}

export async function pagesReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, options: PagesOptions): Promise<PagesAnswer> {
  const fingerprint = fingerprintOf(['pages', scope.meta, params.range, params.filters, params.withInternal, options.includeParams, options.sinceMs ?? null]);
  const state = options.cursor === undefined ? undefined : verifyCursor(context, options.cursor, 'pages', fingerprint);
  const offset = state ? Number(state.o) : 0;
  const answer = await readModel.ranking({
    ...selectionOf(scope, params),
    ...pagesAsk(options),
    offset,
    // Later pages answer as of the first page's position, and say so.
    asOf: state ? Number(state.w) : undefined,
    sinceMs: options.sinceMs,
  });
  return pagesAnswer(context, readModel, scope, params, options, answer, { fingerprint, state, offset });
}

/** What the read model is asked for the first page of pages-v2 (alone, or in a dashboard's batch). */
export function pagesAsk(options: PagesOptions): RankingAsk {
  return { by: options.includeParams ? 'page' : 'path', order: 'pageviews', limit: options.limit };
}

/** The first page of pages-v2 from the read model's answer (its engagement figures asked here). */
export function firstPagesAnswer(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, options: PagesOptions, answer: Answer<RankingFigures>): Promise<PagesAnswer> {
  const fingerprint = fingerprintOf(['pages', scope.meta, params.range, params.filters, params.withInternal, options.includeParams, options.sinceMs ?? null]);
  return pagesAnswer(context, readModel, scope, params, options, answer, { fingerprint, state: undefined, offset: 0 });
}

async function pagesAnswer(
  context: AppContext,
  readModel: ReadModel,
  scope: ReportScope,
  params: CommonParams,
  options: PagesOptions,
  answer: Answer<RankingFigures>,
  { fingerprint, state, offset }: { fingerprint: string; state: Record<string, string | number> | undefined; offset: number },
): Promise<PagesAnswer> {
  const engagement = await readModel.pageEngagement({ ...selectionOf(scope, params), by: options.includeParams ? 'page' : 'path', keys: answer.rows.map((row) => row.key), sinceMs: options.sinceMs });
  const asOf = state ? Number(state.w) : answer.freshness.position;
  const freshness = state ? { ...answer.freshness, watermarkMs: msOrNull(state.r), projectedThroughMs: msOrNull(state.p) } : answer.freshness;
  const next = answer.more
    ? signCursor(context, 'pages', fingerprint, { o: offset + options.limit, w: asOf, r: freshness.watermarkMs ?? '', p: freshness.projectedThroughMs ?? '' })
    : null;
  return {
    meta: buildMeta({
      scope,
      params,
      measures: { ...withPageVisitors(measuresOf('visitors', 'pageviews', 'entries', 'exits'), true), ...engagementMeasures },
      freshness,
      caughtUp: answer.freshness.caughtUp,
      computedFrom: answer.computedFrom,
      imported: answer.imported,
      truncated: answer.more,
      nextCursor: next,
      limit: options.limit,
      now: context.clock.now(),
    }),
    data: {
      rows: answer.rows.map(({ key, figures }) => {
        const engaged = engagement.pages.get(key);
        return {
          path: key,
          visitors: figures.visitors,
          pageviews: figures.pageviews,
          entries: figures.visits,
          exits: figures.exits,
          ...(engaged ? { scroll_depth: engaged.scrollDepth, time_on_page_s: Math.round(engaged.engagedMs / 100) / 10 } : {}),
        };
      }),
    },
  };
}
