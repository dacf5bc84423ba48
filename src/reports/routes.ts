// The report endpoints: the legacy pageviews, events and sessions, and the V2 summary, pages, sources and
// campaigns with the { meta, data } envelope. Thin handlers: access → parameters → report.
import { getQuery, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import {
  BreakdownAnswer,
  CampaignsAnswer,
  PropsAnswer,
  RealtimeAnswer,
  LegacyEventsAnswer,
  LegacyPageviewsAnswer,
  LegacySessionsAnswer,
  PagesAnswer,
  SourcesAnswer,
  SummaryAnswer,
  GoalsAnswer,
  DashboardAnswer,
} from './answers.ts';
import { dashboardReport } from './dashboard-report.ts';
import { parseSince, sinceParam } from './since-param.ts';
import { breakdownDimensions, breakdownReport, parseBreakdownDimension } from './breakdown-report.ts';
import { campaignsReport } from './campaigns-report.ts';
import { maxPropNameLength, parsePropsQuery, propsReport } from './props-report.ts';
import { legacyEvents, legacyPageviews, legacySessions } from './legacy-reports.ts';
import { pagesReport } from './pages-report.ts';
import { commonParams, cursorParam, dateParams, limitParam } from '../reading/common-param-docs.ts';
import { parseBoolean, parseCommonParams, parseDateRange, parseLimit, type QueryValues, single } from '../reading/common-params.ts';
import { maxRangeDays } from '../vocabulary/report-filters.ts';
import { dateRangeRefusals, readStoreRefusals, reportAccessRefusals, v2Refusals } from '../reading/common-param-errors.ts';
import { prepareCursorSecret } from '../reading/cursor.ts';
import { resolveReportSite, siteIdOf, toReportScope } from '../reading/scope.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { goalFilterOf } from '../goals/site-goals.ts';
import { ownerIdOf } from '../segments/owner.ts';
import { withSegmentFilters } from '../segments/segment-filters.ts';
import { goalsReport } from './goals-report.ts';
import { annotationsInRange } from '../annotations/range-annotations.ts';
import { readShareToken, resolveSharedSite } from '../access/share-token.ts';
import { ApiError } from '../http/errors.ts';
import { sourcesReport } from './sources-report.ts';
import { compareModes } from './summary-report.ts';
import { intervals, maxSeriesPoints } from '../vocabulary/periods-interval.ts';
import { parseSummaryOptions, summaryReport } from './summary-report.ts';
import { realtimeReport } from './realtime-report.ts';

const queryOf = (event: H3Event) => getQuery(event) as QueryValues;

/**
 * Access first (401/404/403), then the parameters (400), then the report. A V2 report is the one read a share link
 * reaches (src/ui/share-links.ts): its own site only, never scope=all-sites.
 */
function v2(context: AppContext, event: H3Event) {
  const shareToken = readShareToken(event);
  const reader =
    shareToken === undefined
      ? resolveSite(event, context, siteIdOf(event), { scope: 'query:read', dashboard: true })
      : { caller: undefined, site: resolveSharedSite(event, context, shareToken, siteIdOf(event)) };
  const { site } = reader;
  // A share link's reader owns nothing: it sees the site's segments and annotations only.
  const ownerId = reader.caller ? ownerIdOf(reader.caller) : null;
  const query = withSegmentFilters(context.db, site, ownerId, queryOf(event));
  const params = parseCommonParams(query);
  const goal = single(query, 'goal');
  if (goal !== undefined) params.filters.goal = goalFilterOf(context.db, site.id, goal);
  const segment = single(queryOf(event), 'segment');
  if (segment !== undefined) params.segment = segment;
  if (shareToken !== undefined && params.allSites) throw new ApiError(403, 'forbidden_scope', 'A share link reaches its own site only');
  return { query, params, ownerId, scope: toReportScope(context, site, params.allSites) };
}

/** The V2 reports' parameters: the common ones, a goal (visits that converted on it) and a saved segment. */
const v2Params = [
  ...commonParams,
  { name: 'goal', description: 'Only visits that converted on this goal of the site (its id)' },
  { name: 'segment', description: 'Apply the filters of this saved segment (its id), exactly as if they were sent' },
];

/** summary-v2's parameters (dashboard-v2 takes them too). */
const summaryParams = [
  ...v2Params,
  {
    name: 'interval',
    description: `The series' interval: hour (at most ${maxSeriesPoints / 24} days), day, week (ISO, Monday) or month; default hour for one day, day otherwise`,
    schema: { enum: [...intervals] },
  },
  { name: 'compare', description: 'previous: as many days just before; year: 364 days earlier. A running period is compared with the same part of the other', schema: { enum: [...compareModes] } },
  {
    name: 'since',
    description: 'A whole UTC hour of the range\'s first day (2026-11-26T14:00:00Z): count from it on, by hour (a rolling "last 24 hours": yesterday to today, since the hour 23 hours before this one); the comparison is the window as long just before it',
    schema: { type: 'string' },
  },
];

/** The rows of dashboard-v2's map: every country breakdown-v2 can give (its largest limit). */
const mapCountries = 200;

/** sources-v2's grouped (dashboard-v2's too). */
const groupedParam = {
  name: 'grouped',
  description: 'true: the sources a published referrer list groups (google.com, google.de, google) share one row named by the group (Google), with exact visitors; false (default): one row per stored source',
  schema: { enum: ['true', 'false'] },
};

function legacy(context: AppContext, event: H3Event) {
  const site = resolveReportSite(event, context, { dashboard: true });
  return { site, range: parseDateRange(queryOf(event), maxRangeDays).range };
}

/**
 * Every report asks the read model after access and parameters are checked, so a refusal never waits for the
 * projector (the read model's bounded wait).
 */
export function mountReports(app: H3, context: AppContext, readModel: ReadModel): void {
  prepareCursorSecret(context);
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/pageviews',
    refusals: refusals(reportAccessRefusals, dateRangeRefusals, readStoreRefusals),
    summary: 'Legacy: pageviews of the range, by day',
    query: dateParams,
    answer: LegacyPageviewsAnswer,
    handler: async (event) => {
      const { site, range } = legacy(context, event);
      return legacyPageviews(readModel, site, range);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/events',
    refusals: refusals(reportAccessRefusals, dateRangeRefusals, readStoreRefusals),
    summary: 'Legacy: events of the range by name',
    query: dateParams,
    answer: LegacyEventsAnswer,
    handler: async (event) => {
      const { site, range } = legacy(context, event);
      return legacyEvents(readModel, site, range);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/sessions',
    refusals: refusals(reportAccessRefusals, dateRangeRefusals, readStoreRefusals),
    summary: 'Legacy: visits starting in the range',
    query: dateParams,
    answer: LegacySessionsAnswer,
    handler: async (event) => {
      const { site, range } = legacy(context, event);
      return legacySessions(readModel, site, range);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/summary-v2',
    refusals: v2Refusals,
    summary: 'Visitors, visits, pageviews, events, bounce rate, duration, a series by interval, and optionally a comparison',
    query: summaryParams,
    answer: SummaryAnswer,
    handler: async (event) => {
      const { query, params, scope, ownerId } = v2(context, event);
      const annotations = annotationsInRange(context.db, scope.site.id, ownerId, params.from, params.to);
      return summaryReport(context, readModel, scope, params, parseSummaryOptions(query, params.range), annotations);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/realtime-v2',
    versionedOnly: true,
    refusals: reportAccessRefusals,
    summary: 'The last 5 and 30 minutes by event time: visitors, pageviews and 30 per-minute pageview counts (oldest first)',
    answer: RealtimeAnswer,
    handler: async (event) => {
      const shareToken = readShareToken(event);
      const site = shareToken === undefined ? resolveReportSite(event, context, { dashboard: true }) : resolveSharedSite(event, context, shareToken, siteIdOf(event));
      return realtimeReport(context, readModel, toReportScope(context, site, false));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/pages-v2',
    refusals: v2Refusals,
    summary: 'Pages ranked by pageviews, paged by an opaque cursor',
    query: [...v2Params, { name: 'include_params', description: 'true keeps the query string (utm_* removed)', schema: { enum: ['true', 'false'] } }, limitParam(10), cursorParam, sinceParam],
    answer: PagesAnswer,
    handler: async (event) => {
      const { query, params, scope } = v2(context, event);
      const options = { includeParams: parseBoolean(query, 'include_params'), limit: parseLimit(query, 10), cursor: single(query, 'cursor'), sinceMs: parseSince(query, params.range) };
      return pagesReport(context, readModel, scope, params, options);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/sources-v2',
    refusals: v2Refusals,
    summary: 'Acquisition sources ranked by visits',
    query: [
      ...v2Params,
      groupedParam,
      limitParam(10),
      sinceParam,
    ],
    answer: SourcesAnswer,
    handler: async (event) => {
      const { query, params, scope } = v2(context, event);
      const limit = parseLimit(query, 10);
      return sourcesReport(context, readModel, scope, params, limit, parseBoolean(query, 'grouped'), parseSince(query, params.range));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/campaigns-v2',
    refusals: v2Refusals,
    summary: 'UTM campaigns ranked by visits, with conversions and revenue',
    query: [...v2Params, limitParam(10), sinceParam],
    answer: CampaignsAnswer,
    handler: async (event) => {
      const { query, params, scope } = v2(context, event);
      const limit = parseLimit(query, 10);
      return campaignsReport(context, readModel, scope, params, limit, parseSince(query, params.range));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/breakdown-v2',
    versionedOnly: true,
    refusals: v2Refusals,
    summary: 'Visits by one visit dimension (device, browser, os, country, region or city), ranked by visits',
    query: [{ name: 'by', description: 'The dimension', required: true, schema: { enum: [...breakdownDimensions] } }, ...v2Params, limitParam(10), sinceParam],
    answer: BreakdownAnswer,
    handler: async (event) => {
      const { query, params, scope } = v2(context, event);
      const by = parseBreakdownDimension(query);
      const limit = parseLimit(query, 10);
      return breakdownReport(context, readModel, scope, params, by, limit, parseSince(query, params.range));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/props-v2',
    versionedOnly: true,
    refusals: v2Refusals,
    summary: 'One event type broken down by the values of one of its props: events and visitors per value',
    query: [
      { name: 'type', description: `The event type (1-${maxPropNameLength} characters)`, required: true },
      { name: 'property', description: `A key of the events' props (1-${maxPropNameLength} characters)`, required: true },
      ...v2Params,
      limitParam(10),
    ],
    answer: PropsAnswer,
    handler: async (event) => {
      const { query, params, scope } = v2(context, event);
      const props = parsePropsQuery(query);
      const limit = parseLimit(query, 10);
      return propsReport(context, readModel, scope, params, props, limit);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/goals-v2',
    versionedOnly: true,
    refusals: v2Refusals,
    summary: 'Each goal of the site: unique conversions, conversions, conversion rate and revenue per currency',
    query: [...v2Params, sinceParam],
    answer: GoalsAnswer,
    handler: async (event) => {
      const { query, params, scope } = v2(context, event);
      return goalsReport(context, readModel, scope, params, parseSince(query, params.range));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/dashboard-v2',
    versionedOnly: true,
    refusals: v2Refusals,
    summary: 'Every panel of the dashboard in one answer (one read of the raw events for all the rankings when a filter needs them): summary-v2, pages-v2, sources-v2, campaigns-v2, goals-v2 and breakdown-v2 by country (twice: the table and the map), device, browser and os, each equal to its own endpoint\'s answer',
    query: [...summaryParams, limitParam(10), groupedParam],
    answer: DashboardAnswer,
    handler: async (event) => {
      const { query, params, scope, ownerId } = v2(context, event);
      const summary = parseSummaryOptions(query, params.range);
      const options = { summary, limit: parseLimit(query, 10), mapLimit: mapCountries, grouped: parseBoolean(query, 'grouped') };
      const annotations = annotationsInRange(context.db, scope.site.id, ownerId, params.from, params.to);
      return dashboardReport(context, readModel, scope, params, options, annotations);
    },
  });
}
