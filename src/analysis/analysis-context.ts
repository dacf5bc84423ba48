// What a job on the analysis thread needs, and nothing more: a connection (sites, workspaces and the cursor secret),
// the time, randomness, the caps on events held in memory, and the read model it asks its questions. The HTTP thread
// builds it from its AppContext when jobs run inline; the analysis thread from its own read-only connection
// (src/analysis-thread.ts).
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { maxFunnelEvents } from './population.ts';

export interface AnalysisLimits {
  /** Events a funnel run and its panels may read (default 1,000,000); past it, 400 range_too_large. */
  maxFunnelEvents: number;
}

export const defaultAnalysisLimits: AnalysisLimits = { maxFunnelEvents };

export interface AnalysisContext extends Pick<AppContext, 'db' | 'clock' | 'random'> {
  limits: AnalysisLimits;
  /**
   * The read model of the job's side: its bounded wait for the projector already ran on the HTTP thread before the
   * job was handed over, and its answers report that wait's outcome as freshness.caughtUp.
   */
  readModel: ReadModel;
}
