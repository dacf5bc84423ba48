// The behaviour reports' jobs on the analysis thread (src/analysis/analysis-runner.ts): journeys and page flow cut a
// range's visits out of the event log (a month of a busy site is hundreds of thousands of events), which the HTTP
// thread would otherwise spend instead of acknowledging ingest. Retention reads a few hundred visitor sets, cheaper,
// but unions every visitor the site ever had: it runs there too. src/analysis-jobs.ts hands these to the runner.
import type { AnalysisJob, AnalysisJobHandler } from '../analysis/analysis-job.ts';
import type { RetentionPeriod } from '../read-model/behaviour-questions.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { JourneysParams } from './behaviour-params.ts';
import { journeysReport, pageFlowReport, retentionReport } from './behaviour-reports.ts';

interface BehaviourJob extends AnalysisJob {
  scope: ReportScope;
  params: CommonParams;
}

export interface JourneysJob extends BehaviourJob {
  kind: 'journeys';
  options: JourneysParams;
}

export interface PageFlowJob extends BehaviourJob {
  kind: 'page-flow';
  options: { path: string; limit: number };
}

export interface RetentionJob extends BehaviourJob {
  kind: 'retention';
  period: RetentionPeriod;
}

export type AnyBehaviourJob = JourneysJob | PageFlowJob | RetentionJob;

const journeys: AnalysisJobHandler<JourneysJob> = (context, job) => journeysReport(context, job.scope, job.params, job.options);
const pageFlow: AnalysisJobHandler<PageFlowJob> = (context, job) => pageFlowReport(context, job.scope, job.params, job.options);
const retention: AnalysisJobHandler<RetentionJob> = (context, job) => retentionReport(context, job.scope, job.params, job.period);

/** @example createAnalysisRunner({ …, jobs: { ...funnelJobs, ...attributionJobs, ...behaviourJobs } }) */
export const behaviourJobs = { journeys, 'page-flow': pageFlow, retention };
