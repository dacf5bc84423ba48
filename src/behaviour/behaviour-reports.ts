// The behaviour reports' answers: the read model's figures shaped into { meta, data }. They run on the analysis thread
// (behaviour-jobs.ts) or inline, with the clock of the request that asked (the meta is as of it).
import type { AnalysisContext } from '../analysis/analysis-context.ts';
import type { RetentionPeriod } from '../read-model/behaviour-questions.ts';
import type { Answer } from '../read-model/questions.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { buildMeta } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import { toDateText } from '../vocabulary/periods.ts';
import type { JourneysAnswer, PageFlowAnswer, RetentionAnswer } from './answers.ts';
import type { JourneysParams } from './behaviour-params.ts';

export type ReportContext = Pick<AnalysisContext, 'clock' | 'readModel'>;

const measures = {
  journeys: {
    visits: 'visits starting in the range whose pageview paths, in time order with consecutive repeats collapsed, follow the steps (from the anchor, or from the entry page)',
    visitors: 'distinct anon_ids of those visits',
  },
  pageFlow: {
    previous: 'visits starting in the range in which the page was viewed just after this page (a visit counts once per page)',
    next: 'visits starting in the range in which this page was viewed just after the page (a visit counts once per page)',
    exits: 'visits starting in the range whose last pageview is on the page',
  },
  retention: {
    size: 'people (anon_ids merged through user_id) whose first event ever on the scope falls in the period, within the range',
    returning: 'of them, people with an event in each following period up to the end of the range',
  },
  retentionOnGoal: {
    size: 'people (anon_ids merged through user_id) whose first conversion ever on the goal falls in the period, within the range',
    returning: 'of them, people with an event (any visit) in each following period up to the end of the range',
  },
};

function metaOf(context: ReportContext, scope: ReportScope, params: CommonParams, answer: Answer<object>, shape: { measures: Record<string, string>; limit: number | null; truncated: boolean }) {
  return buildMeta({
    scope,
    params,
    measures: shape.measures,
    freshness: answer.freshness,
    caughtUp: answer.freshness.caughtUp,
    computedFrom: answer.computedFrom,
    truncated: shape.truncated,
    nextCursor: null,
    limit: shape.limit,
    now: context.clock.now(),
  });
}

/** @example await journeysReport(context, scope, params, { anchor: null, steps: 3, limit: 10 }) */
export async function journeysReport(context: ReportContext, scope: ReportScope, params: CommonParams, options: JourneysParams): Promise<JourneysAnswer> {
  // One more than the limit tells whether journeys were left out.
  const answer = await context.readModel.journeys({ scope, range: params.range, filters: params.filters, withInternal: params.withInternal, ...options, limit: options.limit + 1 });
  return {
    meta: metaOf(context, scope, params, answer, { measures: measures.journeys, limit: options.limit, truncated: answer.paths.length > options.limit }),
    data: { paths: answer.paths.slice(0, options.limit) },
  };
}

/** @example await pageFlowReport(context, scope, params, { path: '/pricing', limit: 10 }) */
export async function pageFlowReport(context: ReportContext, scope: ReportScope, params: CommonParams, options: { path: string; limit: number }): Promise<PageFlowAnswer> {
  const answer = await context.readModel.pageFlow({ scope, range: params.range, filters: params.filters, withInternal: params.withInternal, path: options.path, limit: options.limit + 1 });
  const truncated = answer.previous.length > options.limit || answer.next.length > options.limit;
  return {
    meta: metaOf(context, scope, params, answer, { measures: measures.pageFlow, limit: options.limit, truncated }),
    data: { previous: answer.previous.slice(0, options.limit), next: answer.next.slice(0, options.limit), exits: answer.exits },
  };
}

/** @example await retentionReport(context, scope, params, 'week') */
export async function retentionReport(context: ReportContext, scope: ReportScope, params: CommonParams, period: RetentionPeriod): Promise<RetentionAnswer> {
  const goal = params.filters.goal?.rule ?? null;
  const answer = await context.readModel.retention({ scope, range: params.range, withInternal: params.withInternal, period, goal });
  return {
    meta: metaOf(context, scope, params, answer, { measures: goal ? measures.retentionOnGoal : measures.retention, limit: null, truncated: false }),
    data: { cohorts: answer.cohorts.map((cohort) => ({ start: toDateText(cohort.startDay), size: cohort.size, returning: cohort.returning })) },
  };
}
