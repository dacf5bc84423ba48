// The funnel's jobs on the analysis thread: a run, and its correlation and explanation panels. The routes build
// them on the HTTP thread (access, body, execution check, the wait for the projector); src/analysis-jobs.ts hands
// these handlers to the runner.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { AnalysisJob, AnalysisJobHandler } from './analysis-job.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { runFunnel } from './run-funnel.ts';
import { type PreparedTransition, runCorrelation, runExplanation, type TransitionRequest } from './run-transition.ts';

export interface FunnelRunJob extends AnalysisJob {
  kind: 'funnel';
  workspace: WorkspaceRow;
  query: FunnelQuery;
}

export interface TransitionJob<Kind extends 'correlation' | 'explanation'> extends AnalysisJob {
  kind: Kind;
  prepared: PreparedTransition;
  request: TransitionRequest;
}

export type FunnelJob = FunnelRunJob | TransitionJob<'correlation'> | TransitionJob<'explanation'>;

const funnel: AnalysisJobHandler<FunnelRunJob> = (context, job) => runFunnel(context, job.workspace, job.query);
const correlation: AnalysisJobHandler<TransitionJob<'correlation'>> = (context, job) => runCorrelation(context, job.prepared, job.request);
const explanation: AnalysisJobHandler<TransitionJob<'explanation'>> = (context, job) => runExplanation(context, job.prepared, job.request);

/** @example createAnalysisRunner({ …, jobs: { ...funnelJobs, ...attributionJobs } }) */
export const funnelJobs = { funnel, correlation, explanation };
