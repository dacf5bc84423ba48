// Attribution's jobs on the analysis thread (src/analysis/analysis-runner.ts): one conversion's journey is a few
// indexed reads, but a range holds thousands of conversions (0.4 s for 6,476 on the 10M-event benchmark), which the
// HTTP thread spends acknowledging ingest. The routes build the jobs; src/analysis-jobs.ts hands these handlers to
// the runner.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { AnalysisJob, AnalysisJobHandler } from '../analysis/analysis-job.ts';
import type { ResultsParams } from './attribution-params.ts';
import { attributionResults } from './attribution-results.ts';
import { roiComparison } from './roi-compare.ts';
import { roiReport, type RoiParams } from './roi.ts';

export interface AttributionResultsJob extends AnalysisJob {
  kind: 'attribution';
  workspace: WorkspaceRow;
  params: ResultsParams;
}

export interface RoiJob extends AnalysisJob {
  kind: 'roi';
  workspace: WorkspaceRow;
  params: RoiParams;
}

export interface RoiCompareJob extends AnalysisJob {
  kind: 'roi-compare';
  workspace: WorkspaceRow;
  current: RoiParams;
  previous: RoiParams;
}

export type AttributionJob = AttributionResultsJob | RoiJob | RoiCompareJob;

const attribution: AnalysisJobHandler<AttributionResultsJob> = (context, job) => attributionResults(context, job.workspace, job.params);
const roi: AnalysisJobHandler<RoiJob> = (context, job) => roiReport(context, job.workspace, job.params);
const roiCompare: AnalysisJobHandler<RoiCompareJob> = (context, job) => roiComparison(context, job.workspace, job.current, job.previous);

/** @example createAnalysisRunner({ …, jobs: { ...funnelJobs, ...attributionJobs } }) */
export const attributionJobs = { attribution, roi, 'roi-compare': roiCompare };
