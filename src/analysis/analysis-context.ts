// What an analysis computation needs, and nothing more: a connection, the time, the cursor secret's source and the
// caps on events held in memory. The HTTP thread builds it from its AppContext; the analysis thread from its own
// read-only connection (src/analysis/analysis-thread.ts).
import type { AppContext } from '../context.ts';
import { maxFunnelEvents } from '../read-model/sqlite/funnel-population.ts';

export interface AnalysisLimits {
  /** Events a funnel run and its panels may read (default 1,000,000); past it, 400 range_too_large. */
  maxFunnelEvents: number;
}

export const defaultAnalysisLimits: AnalysisLimits = { maxFunnelEvents };

export interface AnalysisContext extends Pick<AppContext, 'db' | 'clock' | 'random'> {
  limits: AnalysisLimits;
}
