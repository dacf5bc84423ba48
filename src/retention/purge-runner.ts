// When the retention purge runs: a pass over every site with a retention period, on a timer on the HTTP thread
// (hourly, the first a minute after start), batch after batch with a turn of the event loop between them, so
// requests and ingest commits interleave with it; time comes from the app's clock, so tests drive it. Each site's
// pass that deleted something is audited (retention.purge, actor system) with its counts.
import type { AppContext } from '../context.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { listSitesWithRetention } from '../tenants/queries/site-writes.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { toDateText } from '../vocabulary/periods.ts';
import { firstKeptDay, type PurgeCounts, purgeSiteBatch } from '../projector/retention-purge.ts';
import { listExpiredEvents } from '../projector/queries/retention-rows.ts';
import { recordRetentionDeletion } from '../clickhouse/deletions.ts';
import { dayMs } from '../vocabulary/periods.ts';

export interface RetentionPurgeOptions {
  /** Between passes (default one hour). */
  intervalMs: number;
  /** From the start to the first pass (default one minute). */
  firstAfterMs: number;
  /** Events per batch: one transaction holding both files' write locks (default 1,000). */
  maxEventsPerBatch: number;
}

export const defaultRetentionPurge: RetentionPurgeOptions = { intervalMs: 3_600_000, firstAfterMs: 60_000, maxEventsPerBatch: 1_000 };

export interface SitePurge extends PurgeCounts {
  site_id: string;
  /** The first day kept (YYYY-MM-DD): events of earlier days were deleted. */
  kept_from: string;
}

/** One pass, yielding after each batch (the timer resumes it on a later turn of the event loop). */
function* purgePass(context: AppContext, maxEventsPerBatch: number): Generator<void, SitePurge[]> {
  const report: SitePurge[] = [];
  for (const site of listSitesWithRetention(context.db)) {
    const now = context.clock.now();
    const total: PurgeCounts = { events: 0, visits: 0, dlq: 0 };
    // ClickHouse's copies stop counting before the embedded ones go (docs/clickhouse.md, "Deletion").
    const beforeMs = firstKeptDay(now, site.retention_days!) * dayMs;
    if (context.config.clickhouse && listExpiredEvents(context.db, site.id, beforeMs, 1).length > 0) {
      inWriteTransaction(context.db, () => recordRetentionDeletion(context.db, site.id, beforeMs, now));
    }
    for (;;) {
      const batch = purgeSiteBatch(context.db, site, now, maxEventsPerBatch);
      total.events += batch.events;
      total.visits += batch.visits;
      total.dlq += batch.dlq;
      if (batch.done) break;
      yield;
    }
    if (total.events + total.visits + total.dlq === 0) continue;
    const purge: SitePurge = { site_id: site.id, kept_from: toDateText(firstKeptDay(now, site.retention_days!)), ...total };
    inWriteTransaction(context.db, () =>
      recordAudit(context, {
        workspaceId: site.workspace_id,
        actor: { kind: 'system' },
        action: 'retention.purge',
        target: site.id,
        metadata: { retention_days: site.retention_days, kept_from: purge.kept_from, events: total.events, visits: total.visits, dlq: total.dlq },
      }),
    );
    report.push(purge);
    yield;
  }
  return report;
}

/** One whole pass at once (tests and the CLI); returns what each site lost. */
export function purgeExpiredEvents(context: AppContext, maxEventsPerBatch = defaultRetentionPurge.maxEventsPerBatch): SitePurge[] {
  const pass = purgePass(context, maxEventsPerBatch);
  for (;;) {
    const step = pass.next();
    if (step.done) return step.value;
  }
}

export interface RetentionPurger {
  /** A pass now (after the one running, if any). */
  runNow(): Promise<SitePurge[]>;
  /** No further batch starts; a batch in progress has committed (batches are synchronous). */
  stop(): void;
}

export function startRetentionPurge(context: AppContext, options: Partial<RetentionPurgeOptions> = {}, onError: (error: unknown) => void = () => undefined): RetentionPurger {
  const settings = { ...defaultRetentionPurge, ...options };
  let stopped = false;
  let running: Promise<SitePurge[]> = Promise.resolve([]);
  const run = async (): Promise<SitePurge[]> => {
    const pass = purgePass(context, settings.maxEventsPerBatch);
    for (;;) {
      if (stopped || !context.db.open) return [];
      const step = pass.next();
      if (step.done) return step.value;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const runNow = () => (running = running.then(run, run));
  const tick = () => void runNow().catch(onError);
  const first = setTimeout(() => {
    tick();
    interval.refresh();
  }, settings.firstAfterMs);
  const interval = setInterval(tick, settings.intervalMs);
  first.unref();
  interval.unref();
  return {
    runNow,
    stop: () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(interval);
    },
  };
}
