// Everything the collector needs, built once per app: the tracking plan, geo database, IP matcher, rate limits,
// the group-commit write queue and the pipeline over them.
import type { AppContext } from '../context.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { loadTrackingPlan, type TrackingPlan } from '../plan/tracking-plan.ts';
import { openDatabase } from '../db/open.ts';
import { indexKeysAtStart } from '../event-store/queries/event-keys.ts';
import { createGeoLookup, defaultGeoDatabasePath, type GeoLookup } from './geo.ts';
import { createInternalIpMatcher } from './internal-ips.ts';
import { createIngestPipeline, type IngestPipeline } from './pipeline.ts';
import { TokenBuckets } from './rate-limit.ts';
import { WriteQueue, type WriteQueueOptions } from './write-queue.ts';
import { type Committer, createInlineCommitter, createThreadCommitter, writerThreadFile } from './committer.ts';
import { type CookielessVisitors, createCookielessVisitors } from '../visitors/cookieless-ids.ts';

export interface IngestService {
  pipeline: IngestPipeline;
  writeQueue: WriteQueue;
  plan: TrackingPlan | undefined;
  cookieless: CookielessVisitors;
}

export interface IngestServiceOptions {
  writeQueue?: WriteQueueOptions;
  /** The geo database (a path or the file's bytes); defaults to GEOIP_DB or the bundled country database. */
  geoDatabase?: string | Buffer;
  /** Where group commits run; defaults to the INGEST_WRITER setting (inline). */
  writer?: 'thread' | 'inline';
}

/**
 * Inline by default: measured on 2 cores, a commit of the event rows alone costs less than the hand-off to a thread
 * and back (docs/ingest.md, "Where commits run"). A thread keeps long commits (large batches, synchronous=FULL's
 * fsync) off the HTTP thread where cores are plenty.
 */
function createCommitter(context: AppContext, choice: 'thread' | 'inline'): Committer {
  const options = { databasePath: context.db.name, synchronous: context.config.synchronous };
  if (choice === 'inline' || context.db.memory) return createInlineCommitter(options);
  const file = writerThreadFile();
  if (!file) throw new Error('the writer thread bundle (dist/writer-thread.mjs) is missing: run npm run build');
  return createThreadCommitter(file, options);
}

/** Throws at start on a broken tracking plan, geo database or INTERNAL_IPS entry, so nothing half-works. */
export function createIngestService(context: AppContext, metrics: AppMetrics, options: IngestServiceOptions = {}): IngestService {
  const plan = context.config.schemaBundlePath ? loadTrackingPlan(context.config.schemaBundlePath) : undefined;
  const geo: GeoLookup = createGeoLookup(options.geoDatabase ?? context.config.geoipDb ?? defaultGeoDatabasePath());
  if (!context.db.memory) {
    // On a connection of its own, closed after: its page cache goes with it.
    const once = openDatabase(context.db.name, { cacheMiB: 2 });
    try {
      indexKeysAtStart(once);
    } finally {
      once.close();
    }
  }
  const writeQueue = new WriteQueue(createCommitter(context, options.writer ?? context.config.ingestWriter), context.clock, metrics, options.writeQueue);
  const cookieless = createCookielessVisitors(context.db, context.clock, context.random);
  const pipeline = createIngestPipeline({
    clock: context.clock,
    random: context.random,
    metrics,
    writeQueue,
    plan,
    schemaMode: context.config.schemaMode,
    geo,
    internalIps: createInternalIpMatcher(context.config.internalIps),
    siteLimits: new TokenBuckets(context.config.rateLimitSite, context.clock),
    ipLimits: new TokenBuckets(context.config.rateLimitIp, context.clock),
    cookieless,
  });
  return { pipeline, writeQueue, plan, cookieless };
}
