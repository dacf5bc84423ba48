// The jobs the analysis thread runs, by kind: each domain that hands it work exports its handlers, and they are
// composed here, once, for the thread's bundle (src/analysis-thread.ts) and for jobs run inline (src/app.ts). The
// runner (src/analysis/analysis-runner.ts) knows none of them.
import type { JobOf } from './analysis/analysis-job.ts';
import { funnelJobs } from './analysis/funnel-jobs.ts';
import { attributionJobs } from './attribution/attribution-jobs.ts';
import { behaviourJobs } from './behaviour/behaviour-jobs.ts';

export const analysisJobs = { ...funnelJobs, ...attributionJobs, ...behaviourJobs };

/** Every job the analysis thread runs. */
export type AnyAnalysisJob = JobOf<typeof analysisJobs>;
