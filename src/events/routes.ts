// The Events v2 endpoints: list-v2, overview-v2, activity-v2 (JSON in the { meta, data } envelope) and stream-v2
// (Server-Sent Events). Access exactly as the V2 reports: admin token or a query:read key, missing and foreign
// sites one 404; then the parameters (structured 400s); then the answer.
import { getQuery, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { refusals } from '../http/refusals.ts';
import { addRoute, type QueryParameterDoc } from '../http/routes.ts';
import type { IngestService } from '../ingest/service.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { commonParams, cursorParam, dateParams, filterParams, limitParam } from '../reading/common-param-docs.ts';
import { parseCommonParams, parseLimit, type QueryValues, refuseReportOnlyFilters, single } from '../reading/common-params.ts';
import { dateRangeRefusals, filterRefusals, reportAccessRefusals, reportErrors, v2Refusals } from '../reading/common-param-errors.ts';
import { resolveReportSite, siteIdOf, toReportScope } from '../reading/scope.ts';
import { resolveSite } from '../access/resolve-access.ts';
import type { Caller } from '../access/caller.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { EventActivityAnswer, EventListAnswer, EventOverviewAnswer } from './answers.ts';
import { parseActivityParams, parseStreamParams } from './event-params.ts';
import { openEventStream, type StreamResponse } from './event-stream.ts';
import { eventsActivity } from './events-activity.ts';
import { eventsOverview, overviewTypeLimit } from './events-overview.ts';
import { listEvents } from './list-events.ts';
import { createStreamHub, type ProgressSource } from './stream-hub.ts';
import { resolveErrorStacks, type StackCarrier } from '../sourcemaps/resolve-stacks.ts';

const queryOf = (event: H3Event) => getQuery(event) as QueryValues;
// activity-v2 and stream-v2 take from/to as the reports do, but optional: without them the window or the tail
// alone sets the times.
const optionalDateParams = (what: string): QueryParameterDoc[] =>
  dateParams.map((param) => ({ ...param, required: false, description: `${param.description}; optional (both or neither): ${what}` }));

const activityQuery: QueryParameterDoc[] = [
  {
    name: 'end',
    description: 'End of the 60-minute window (exclusive), ISO-8601 with an offset; default now. Capped to the end of to (the next day 00:00 UTC) when later',
    schema: { type: 'string', format: 'date-time' },
  },
  ...optionalDateParams('only the part of the window inside the range counts'),
  ...filterParams,
  limitParam(10),
];

const streamQuery: QueryParameterDoc[] = [
  { name: 'cursor', description: 'Resume after this cursor (a cursor frame\'s or an event\'s id); the Last-Event-ID header wins over it. Without either the stream starts at the newest event' },
  { name: 'name', description: 'Only events of this type' },
  { name: 'anon_id', description: 'Only this visitor\'s events' },
  ...optionalDateParams('only events whose time (ts) is inside the range are sent'),
  // scope is refused: a stream tails one site.
  ...filterParams.filter((param) => param.name !== 'scope'),
];

/** Access first (401/404/403), then the common parameters (400). */
function v2(context: AppContext, event: H3Event) {
  const site = resolveReportSite(event, context);
  const query = queryOf(event);
  refuseReportOnlyFilters(query);
  const params = parseCommonParams(query);
  return { query, params, scope: toReportScope(context, site, params.allSites) };
}

/** What the stream caps count as one credential: the admin token, one API key whatever its scopes, or one user. */
function credentialOf(caller: Caller): string {
  if (caller.kind === 'admin') return 'admin-token';
  return caller.kind === 'apiKey' ? `api-key:${caller.keyId}` : `user:${caller.userId}`;
}

/** The Node response under the request when Node serves it (not under app.fetch). */
function nodeResponseOf(event: H3Event): StreamResponse | undefined {
  const response = event.req.runtime?.node?.res;
  return response && 'writableLength' in response ? response : undefined;
}

/**
 * Event-level reads see an event as soon as it is committed; the read model waits, bounded, for the projector only
 * when a visit filter (source, device, browser, os, country, region, city) needs the visits it derives.
 * @example mountEvents(app, context, readModel, ingest, projection, metrics.registry); // stream-v2 hears of new events from ingest's write queue and of visits from the projector
 */
export function mountEvents(app: H3, context: AppContext, readModel: ReadModel, ingest?: Pick<IngestService, 'writeQueue'>, progress?: ProgressSource, metrics?: MetricsRegistry): void {
  const { config } = context;
  const hub = createStreamHub(context, {
    limits: {
      perSite: config.eventStreamsPerSite,
      perCredential: config.eventStreamsPerCredential,
      perWorkspace: config.eventStreamsPerWorkspace,
      total: config.eventStreamsTotal,
    },
    ...(ingest ? { commits: ingest.writeQueue } : {}),
    ...(progress ? { progress } : {}),
    ...(metrics ? { metrics } : {}),
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/events/list-v2',
    refusals: v2Refusals,
    summary: 'Events of the range in ingest order (or newest first with order=newest), paged by an opaque cursor; error events with their stack resolved through uploaded source maps',
    query: [...commonParams, limitParam(50), cursorParam, { name: 'order', description: 'oldest (default): ingest order; newest: newest first', schema: { enum: ['oldest', 'newest'] } }],
    answer: EventListAnswer,
    handler: async (event) => {
      const { query, params, scope } = v2(context, event);
      const order = single(query, 'order') ?? 'oldest';
      if (order !== 'oldest' && order !== 'newest') throw reportErrors.invalidParam('order', 'must be oldest or newest');
      const options = { limit: parseLimit(query, 50), order, cursor: single(query, 'cursor'), enrich: (page: StackCarrier[]) => resolveErrorStacks(context.db, page) } as const;
      return listEvents(context, readModel, scope, params, options);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/events/overview-v2',
    refusals: v2Refusals,
    summary: `Exact event total of the range and the ${overviewTypeLimit} most frequent event types`,
    query: commonParams,
    answer: EventOverviewAnswer,
    handler: async (event) => {
      const { params, scope } = v2(context, event);
      return eventsOverview(context, readModel, scope, params);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/events/activity-v2',
    refusals: v2Refusals,
    summary: 'Events per path in the 60 minutes before end, in twelve 5-minute buckets',
    query: activityQuery,
    answer: EventActivityAnswer,
    handler: async (event) => {
      const site = resolveReportSite(event, context);
      const query = queryOf(event);
      const params = parseActivityParams(query, context.clock.now());
      const limit = parseLimit(query, 10);
      return eventsActivity(context, readModel, toReportScope(context, site, params.allSites), params, { limit });
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/events/stream-v2',
    refusals: refusals(reportAccessRefusals, dateRangeRefusals, filterRefusals, { 429: ['too_many_streams'], 503: ['overloaded'] }),
    summary: 'Server-Sent Events tail of new events, resumable by cursor or Last-Event-ID',
    query: streamQuery,
    produces: 'text/event-stream',
    handler: (event) => {
      const { caller, site } = resolveSite(event, context, siteIdOf(event), { scope: 'query:read' });
      const params = parseStreamParams(queryOf(event), event.req.headers.get('last-event-id'));
      return openEventStream(context, readModel, hub, site, credentialOf(caller), params, {
        heartbeatMs: config.eventStreamHeartbeatMs,
        bufferBytes: config.eventStreamBufferBytes,
        signal: event.req.signal,
        response: nodeResponseOf(event),
      });
    },
  });
}
