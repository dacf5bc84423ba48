// The attribution endpoint (flat envelope; query:read). It reads derived data (visits, identities), so it first
// waits, bounded, for the projector to pass every event committed before the request, and says in `completeness`
// when that wait ran out (`projection_lag`) and in `freshness` how far the projector had got.
import { getQuery, type H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { resolveWorkspace } from '../access/resolve-access.ts';
import { parseDateRange, type QueryValues, single } from '../reading/common-params.ts';
import { ApiError } from '../http/errors.ts';
import { namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { readStoreRefusals } from '../reading/common-param-errors.ts';
import { jsonText } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { AttributionResultsAnswer, RoiAnswer, RoiCompareAnswer } from './answers.ts';
import { maxRangeDays, parseModel, parseResultsParams } from './attribution-params.ts';
import type { AnalysisRunner } from '../analysis/analysis-runner.ts';
import type { AttributionJob } from './attribution-jobs.ts';
import type { RoiParams } from './roi.ts';
import { type AttributionModel, attributionModels } from './models.ts';
import { pathParam } from '../http/path-params.ts';


// readStoreRefusals: with ClickHouse configured a job reads it, and an unreachable one answers 503 backend_unavailable.
export const attributionRefusals = refusals(needsCredential, namedInPath, readStoreRefusals, {
  400: ['invalid_param', 'unknown_model', 'invalid_date_param', 'invalid_date_range', 'range_too_large'],
  503: ['overloaded'],
});

export const timeRangeParams = [
  { name: 'from', description: 'Start, inclusive: YYYY-MM-DD (from 00:00 UTC) or an ISO-8601 timestamp with an offset', required: true },
  { name: 'to', description: 'End, inclusive: YYYY-MM-DD (to the end of that UTC day) or an ISO-8601 timestamp with an offset; at most 366 days after from', required: true },
];

/** ROI ranges: inclusive YYYY-MM-DD days, at most 366 (spec, "Attribution, ROI, spend"). */
function parseRoiRange(query: QueryValues, fromName: string, toName: string, model: AttributionModel): RoiParams {
  try {
    const { range, from, to } = parseDateRange({ from: single(query, fromName), to: single(query, toName) }, maxRangeDays);
    return { model, from, to, fromDay: range.fromDay, toDay: range.toDay };
  } catch (error) {
    // compare_from / compare_to are checked by the same rules: name them in the refusal.
    if (!(error instanceof ApiError) || fromName === 'from') throw error;
    const rename = (text: string) => text.replace(/\bfrom\b/g, fromName).replace(/\bto\b/g, toName);
    throw new ApiError(error.status, error.code, rename(error.message), error.details?.map((detail) => ({ path: rename(detail.path), message: rename(detail.message) })));
  }
}

const roiRefusals = refusals(needsCredential, namedInPath, readStoreRefusals, { 400: ['invalid_param', 'unknown_model', 'invalid_date_param', 'invalid_date_range', 'range_too_large'], 503: ['overloaded'] });
const dayParams = [
  { name: 'from', description: 'First day, YYYY-MM-DD (UTC), inclusive', required: true, schema: { type: 'string', format: 'date' } },
  { name: 'to', description: 'Last day, YYYY-MM-DD (UTC), inclusive; at most 366 days in all', required: true, schema: { type: 'string', format: 'date' } },
];
const roiModelParam = { name: 'model', description: `Attribution model of the revenue: one of ${attributionModels.join(', ')} (default last_touch)`, schema: { enum: [...attributionModels] } };

/**
 * The computations run on the analysis thread (src/analysis/analysis-runner.ts), as the funnels do: a range of
 * thousands of conversions takes a noticeable fraction of a second, which this thread spends acknowledging ingest.
 * `waitForProjection` is the bounded wait for the projector, run here before a job is handed over (a job waiting on
 * the analysis thread would hold it).
 * @example mountAttribution(h3, context, () => projection.catchUp(), analysis);
 */
export function mountAttribution(app: H3, context: AppContext, waitForProjection: () => Promise<boolean>, analysis: AnalysisRunner<AttributionJob>): void {
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/attribution/results',
    refusals: attributionRefusals,
    summary: 'Purchases of a range with their touchpoints and credits under a model, and totals per source, medium and campaign',
    query: [
      { name: 'model', description: `One of ${attributionModels.join(', ')}`, required: true, schema: { enum: [...attributionModels] } },
      ...timeRangeParams,
      { name: 'conversion_id', description: 'Only this purchase event' },
      { name: 'limit', description: '1-10000, default 1000', schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'cursor', description: 'The next_cursor of the previous page (opaque)' },
    ],
    answer: AttributionResultsAnswer,
    handler: async (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'query:read' });
      const params = parseResultsParams(getQuery(event) as QueryValues);
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'attribution', now: context.clock.now(), workspace, params, caughtUp }));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/roi',
    refusals: roiRefusals,
    summary: 'Spend against attributed revenue per currency and per source, medium and campaign (workspace-wide)',
    query: [...dayParams, roiModelParam],
    answer: RoiAnswer,
    handler: async (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'query:read' });
      const query = getQuery(event) as QueryValues;
      const model = parseModel(query, 'last_touch');
      const params = parseRoiRange(query, 'from', 'to', model);
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'roi', now: context.clock.now(), workspace, params, caughtUp }));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/roi/compare',
    refusals: roiRefusals,
    summary: 'The ROI of two day ranges and the change per currency',
    query: [
      ...dayParams,
      { name: 'compare_from', description: 'First day of the range compared with, YYYY-MM-DD', required: true, schema: { type: 'string', format: 'date' } },
      { name: 'compare_to', description: 'Last day of the range compared with, YYYY-MM-DD; at most 366 days in all', required: true, schema: { type: 'string', format: 'date' } },
      roiModelParam,
    ],
    answer: RoiCompareAnswer,
    handler: async (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'query:read' });
      const query = getQuery(event) as QueryValues;
      const model = parseModel(query, 'last_touch');
      const current = parseRoiRange(query, 'from', 'to', model);
      const previous = parseRoiRange(query, 'compare_from', 'compare_to', model);
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'roi-compare', now: context.clock.now(), workspace, current, previous, caughtUp }));
    },
  });
}
