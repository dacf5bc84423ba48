// The attribution endpoint (flat envelope; query:read). It reads derived data (visits, identities), so it first
// waits, bounded, for the projector to pass every event committed before the request.
import { getQuery, getRouterParam, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import type { Projection } from '../projector/projection.ts';
import { resolveWorkspace } from '../http/access.ts';
import type { QueryValues } from '../http/common-params.ts';
import { namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { AttributionResultsAnswer } from './answers.ts';
import { parseResultsParams } from './attribution-params.ts';
import { attributionResults } from './attribution-results.ts';
import { attributionModels } from './models.ts';

const slugOf = (event: H3Event) => getRouterParam(event, 'slug', { decode: true }) ?? '';

export const attributionRefusals = refusals(needsCredential, namedInPath, {
  400: ['invalid_param', 'unknown_model', 'invalid_date_param', 'invalid_date_range', 'range_too_large'],
});

export const timeRangeParams = [
  { name: 'from', description: 'Start, inclusive: YYYY-MM-DD (from 00:00 UTC) or an ISO-8601 timestamp with an offset', required: true },
  { name: 'to', description: 'End, inclusive: YYYY-MM-DD (to the end of that UTC day) or an ISO-8601 timestamp with an offset; at most 366 days after from', required: true },
];

export function mountAttribution(app: H3, context: AppContext, projection: Projection): void {
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
      const { workspace } = resolveWorkspace(event, context, slugOf(event), { scope: 'query:read' });
      const params = parseResultsParams(getQuery(event) as QueryValues);
      await projection.catchUp();
      return attributionResults(context, workspace, params);
    },
  });
}
