// Builds the h3 application: every domain mounts its routes once, each at its unprefixed path and under /v1.
import { consola } from 'consola';
import { H3, HTTPError } from 'h3';
import { toNodeHandler } from 'h3/node';
import { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, cryptoRandom, type Random, systemClock } from './clock.ts';
import type { Config } from './config.ts';
import type { AccessLookups } from './access/lookups.ts';
import type { AppContext } from './context.ts';
import type { Db } from './db/open.ts';
import { mountAdmin } from './admin/routes.ts';
import { mountHealth } from './health/routes.ts';
import { createIngestService, type IngestServiceOptions, type IngestService } from './ingest/service.ts';
import { mountIngest } from './ingest/routes.ts';
import { createIngestFastPath } from './ingest/node-fast-path.ts';
import { mountDlq } from './dlq/routes.ts';
import { replayQuarantinedEvent } from './ingest/replay-quarantined.ts';
import { mountGdpr } from './gdpr/routes.ts';
import { shippedSubjectEvents } from './clickhouse/subject-events.ts';
import { type RetentionPurgeOptions, type RetentionPurger, startRetentionPurge } from './retention/purge-runner.ts';
import { createAppMetrics, type AppMetrics } from './metrics/app-metrics.ts';
import { mountMetrics } from './metrics/routes.ts';
import { mountReports } from './reports/routes.ts';
import type { ReadModel } from './read-model/read-model.ts';
import { createSqliteReadModel } from './read-model/sqlite/sqlite-read-model.ts';
import { mountEvents } from './events/routes.ts';
import { mountOpenApi } from './openapi/routes.ts';
import { mountPeople } from './people/routes.ts';
import { mountSpend } from './spend/routes.ts';
import { mountWebhooks } from './webhooks/routes.ts';
import { mountConsent } from './consent/routes.ts';
import { mountGoals } from './goals/routes.ts';
import { mountSegments } from './segments/routes.ts';
import { deleteSegmentsOfSite } from './segments/queries/segment-rows.ts';
import { mountAnnotations } from './annotations/routes.ts';
import { deleteAnnotationsOfSite } from './annotations/queries/annotation-rows.ts';
import { deleteGoalsOfSite } from './goals/queries/goal-rows.ts';
import { mountSourcemaps } from './sourcemaps/routes.ts';
import { mountTracker } from './tracker/routes.ts';
import { mountIntegrations } from './integrations/routes.ts';
import { type DeliveryWorker, type DeliveryWorkerOptions, startDeliveryWorker } from './integrations/delivery-worker.ts';
import { mountAttribution } from './attribution/routes.ts';
import { mountBehaviour } from './behaviour/routes.ts';
import { mountImports } from './imports/routes.ts';
import { createImportRunner, type ImportRunner, type ImportThreadOptions } from './imports/import-runner.ts';
import { failInterruptedImports } from './imports/queries/import-rows.ts';
import { deleteImportsOfSite } from './imports/queries/import-event-ranges.ts';
import { deleteImportedDailyOfSite } from './imports/queries/imported-daily-rows.ts';
import { mountExports } from './exports/routes.ts';
import { mountAnalysis } from './analysis/routes.ts';
import { mountUi } from './ui/routes.ts';
import { mountShareLinks } from './ui/share-routes.ts';
import { type AnalysisLimits, defaultAnalysisLimits } from './analysis/analysis-context.ts';
import type { AnalysisGate } from './analysis/analysis-gate.ts';
import { type AnalysisRunner, type AnalysisRunnerOptions, createAnalysisRunner } from './analysis/analysis-runner.ts';
import { analysisJobs, type AnyAnalysisJob } from './analysis-jobs.ts';
import { type Checkpointer, type CheckpointMode, startCheckpointer } from './db/checkpointer.ts';
import { newestEventSeq } from './event-store/queries/newest-events.ts';
import { builtWorkerFile } from './ingest/committer.ts';
import { type Projection, type ProjectionOptions, startProjection } from './projector/projection.ts';
import { batchSubscribers } from './batch-subscribers.ts';
import { createClickHouse, type ClickHouse, type ClickHouseOptions } from './clickhouse/client.ts';
import { createClickHouseReadModel } from './read-model/clickhouse/clickhouse-read-model.ts';
import { analysisReadModelFor } from './read-model/clickhouse/analysis-read-model.ts';
import { withSourceGroups } from './read-model/source-groups.ts';
import { storedSources } from './read-model/sqlite/stored-sources.ts';
import { forgetDeletionsOfSite, pendingDeletionsOf, recordSiteDeletion } from './clickhouse/deletions.ts';
import { type ShippingLoop, type ShippingLoopOptions, startShippingLoop } from './clickhouse/shipping-loop.ts';
import { type LogTrimming, startLogTrimming, trimmedThroughDayOf } from './clickhouse/log-trimming.ts';
import type { TrimmedThroughDay } from './read-model/clickhouse/trimmed-log.ts';
// The context's parts: who owns each credential the access resolver looks up, and each remover of a site's data.
import type { Scope } from './access/caller.ts';
import type { SiteDataRemover } from './tenants/site-data.ts';
import { findSite } from './tenants/queries/find-site.ts';
import { findWorkspaceBySlug } from './tenants/queries/find-workspace.ts';
import { findKeyByHash } from './tenants/queries/key-credentials.ts';
import { recordKeyUse } from './tenants/key-use.ts';
import { sessionCallerOf } from './ui/session.ts';
import { mountUsers } from './users/routes.ts';
import { userSessionCallerOf } from './users/user-sessions.ts';
import { deleteShareLinksOfSite, findShareLinkByHash } from './ui/queries/share-link-rows.ts';
import { deleteEventKeysOfSite } from './event-store/queries/event-keys.ts';
import { deleteEventsOfSite } from './event-store/queries/event-rows.ts';
import { deleteDlqOfSite } from './event-store/queries/dlq-rows.ts';
import { deleteSiteProjection } from './projector/site-projection.ts';
import { deleteRetentionStateOfSite } from './projector/queries/retention-rows.ts';
import { forgetCachedSite } from './ingest/ingest-auth.ts';
import { forgetCookielessSetting } from './visitors/cookieless-ids.ts';
import { deleteSpendOfSite } from './spend/queries/spend-writes.ts';
import { deleteWebhookSecretsOfSite } from './webhooks/queries/webhook-secret-rows.ts';
import { deleteBannerOfSite } from './consent/queries/banner-rows.ts';
import { deleteSourcemapsOfSite } from './sourcemaps/queries/sourcemap-rows.ts';
import { closeUnreadConnection } from './http/close-unread.ts';
import { type Mailer, type MailerOptions, startMailer } from './mail/mailer.ts';
import { mountEmailReports } from './email-reports/routes.ts';
import { type ReportSchedule, type ReportScheduleOptions, startReportSchedule } from './email-reports/report-schedule.ts';
import { deleteSubscriptionsOfSite } from './email-reports/queries/subscription-rows.ts';
import { mountAlerts } from './alerts/routes.ts';
import { type AlertChecker, type AlertCheckerOptions, startAlertChecker } from './alerts/alert-checker.ts';
import { deleteAlertsOfSite } from './alerts/queries/alert-rows.ts';
import { ApiError, renderError } from './http/errors.ts';
import { finishResponse } from './http/respond.ts';
import { observeRoutes } from './http/routes.ts';

export interface CreateAppOptions {
  db: Db;
  config: Config;
  adminToken: string;
  clock?: Clock;
  random?: Random;
  /** Lets a test add routes (e.g. a deprecated one) before the app serves. */
  extend?: (app: H3, context: AppContext) => void;
  ingest?: IngestServiceOptions;
  /**
   * Where periodic WAL checkpoints run: on the projector thread (the server; background priority, off the HTTP
   * thread) when it runs on one, else on this thread (default, tests).
   */
  checkpoint?: CheckpointMode;
  /**
   * Where the projector runs: its own thread (default when dist/projector-thread.mjs exists), on this thread, or
   * only when a test calls app.projection.projectNow ('manual').
   */
  projector?: 'thread' | 'inline' | 'manual';
  /** How long reads of derived data wait for the projector (default: READ_WAIT_MS, 2 s). */
  projectionWaitMs?: number;
  /**
   * Funnels, correlation and explanation: on the analysis thread (default when dist/analysis-thread.mjs exists; it
   * starts on the first analysis request) or on this thread; the caps on events read, the queue's length, and for
   * tests a gate that holds jobs on the thread (src/analysis/analysis-gate.ts).
   */
  analysis?: { mode?: 'thread' | 'inline'; limits?: Partial<AnalysisLimits>; maxWaiting?: number; gate?: AnalysisGate };
  /** The retention purge's timer and batch size (src/retention/purge-runner.ts); tests call app.retention.runNow(). */
  retentionPurge?: Partial<RetentionPurgeOptions>;
  /** Outbound webhooks: the sender, the timeout, concurrency and polling of the delivery worker (tests shorten them). */
  deliveries?: Omit<DeliveryWorkerOptions, 'context' | 'registry'>;
  /** The ClickHouse shipper's batch size, timer and backoff (tests shorten them); used when CLICKHOUSE_URL is set. */
  clickhouseShipping?: Pick<ShippingLoopOptions, 'batchSize' | 'intervalMs' | 'backoffMs' | 'maxBackoffMs'>;
  /** Outbound mail (SMTP_URL): the transport's bounds, the outbox's polling, the report schedule's timer (docs/email.md). */
  mail?: MailerOptions & { reportSchedule?: Partial<ReportScheduleOptions>; alerts?: Partial<AlertCheckerOptions> };
}

export interface SightlineApp {
  h3: H3;
  context: AppContext;
  metrics: AppMetrics;
  ingest: IngestService;
  projection: Projection;
  /** Answers every analytical question (src/read-model/). */
  readModel: ReadModel;
  analysis: AnalysisRunner<AnyAnalysisJob>;
  /** The retention purge on its timer; runNow() runs a pass at once. */
  retention: RetentionPurger;
  /** The outbound webhook delivery worker (tests drive it with deliverDue after moving the clock). */
  deliveries: DeliveryWorker;
  /** The background shipper to ClickHouse, when CLICKHOUSE_URL is set (src/clickhouse/shipping-loop.ts). */
  clickhouseShipping: ShippingLoop | undefined;
  /** Trimming the SQLite log of what ClickHouse holds (LOG_RETAIN_DAYS, src/clickhouse/log-trimming.ts); tests run trimNow. */
  logTrimming: LogTrimming | undefined;
  /** Outbound mail: the outbox worker (tests drive it with sendDue after moving the clock) and whether SMTP is set. */
  mailer: Mailer;
  /** The e-mail report schedule; runDue() runs a pass now. */
  reportSchedule: ReportSchedule;
  /** The traffic alert checker; checkNow() checks every rule at the clock's now. */
  alerts: AlertChecker;
  /** The import jobs (src/imports/): tests await imports.idle() before reading what a job stored. */
  imports: ImportRunner;
  fetch(request: Request): Promise<Response>;
  /** The Node listener a server uses: ingest on its fast path, everything else through h3. */
  nodeListener(request: IncomingMessage, response: ServerResponse): void;
  /** Stops background work and flushes what was accepted; the caller closes the database afterwards. */
  close(): Promise<void>;
}

/**
 * What deleting a site removes, whatever modules a process loaded: one list, which the HTTP route and the CLI both
 * run through their context (createAppContext). The 'derived' phase runs first: its removers find their rows through
 * the site's events. A table with a site_id column that no entry names fails test/admin/site-data-removers.test.ts.
 */
export const siteDataRemovers: readonly SiteDataRemover[] = [
  // Pending ClickHouse deletions of the site (with CLICKHOUSE_URL set, removersFor records the site's own instead).
  { name: 'clickhouse', phase: 'derived', tables: ['clickhouse_deletions'], remove: forgetDeletionsOfSite },
  // Before the events: it finds the site's keys through them.
  { name: 'event-keys', phase: 'derived', tables: ['event_keys'], remove: deleteEventKeysOfSite },
  { name: 'retention', phase: 'derived', tables: ['retention_state'], remove: deleteRetentionStateOfSite },
  {
    name: 'projection',
    phase: 'derived',
    tables: ['sessions', 'visit_sequences', 'visit_sequences_longest', 'identities', 'report_counters', 'report_visitor_sets', 'report_revenue', 'report_values', 'visitor_events', 'event_visitors', 'report_visitors'],
    remove: deleteSiteProjection,
  },
  { name: 'events', phase: 'stored', tables: ['events'], remove: deleteEventsOfSite },
  { name: 'dlq', phase: 'stored', tables: ['dlq'], remove: deleteDlqOfSite },
  // In-memory caches of this process (another process, the CLI, forgets within a second).
  { name: 'ingest-site-cache', phase: 'stored', tables: [], remove: (db, siteId) => forgetCachedSite(db, siteId) },
  { name: 'cookieless-setting-cache', phase: 'stored', tables: [], remove: forgetCookielessSetting },
  { name: 'ui-share-links', phase: 'stored', tables: ['ui_share_links'], remove: deleteShareLinksOfSite },
  { name: 'spend', phase: 'stored', tables: ['spend'], remove: deleteSpendOfSite },
  { name: 'webhook-secrets', phase: 'stored', tables: ['webhook_secrets'], remove: deleteWebhookSecretsOfSite },
  { name: 'consent-banner', phase: 'stored', tables: ['consent_banners', 'consent_banner_saves'], remove: deleteBannerOfSite },
  { name: 'sourcemaps', phase: 'stored', tables: ['sourcemaps'], remove: deleteSourcemapsOfSite },
  { name: 'goals', phase: 'stored', tables: ['goals'], remove: deleteGoalsOfSite },
  { name: 'segments', phase: 'stored', tables: ['segments'], remove: deleteSegmentsOfSite },
  { name: 'annotations', phase: 'stored', tables: ['annotations'], remove: deleteAnnotationsOfSite },
  { name: 'email-reports', phase: 'stored', tables: ['email_report_subscriptions'], remove: deleteSubscriptionsOfSite },
  { name: 'alerts', phase: 'stored', tables: ['alerts'], remove: deleteAlertsOfSite },
  { name: 'imported-daily', phase: 'stored', tables: ['imported_daily'], remove: deleteImportedDailyOfSite },
  { name: 'imports', phase: 'stored', tables: ['imports', 'import_event_ranges'], remove: deleteImportsOfSite },
];

/**
 * The context every action receives, for the server and for each CLI command alike: the access resolver's lookups
 * (keys, sessions, share links, sites, workspaces, from their owners) and the site data removers above.
 * @example const context = createAppContext({ db, config, clock: systemClock, random: cryptoRandom, adminToken });
 */
export function createAppContext(parts: Omit<AppContext, 'access' | 'siteDataRemovers'>): AppContext {
  const context: AppContext = {
    ...parts,
    access: accessLookupsOf(parts, { sessionCallerOf: (event) => sessionCallerOf(event, context), userSessionCallerOf: (event) => userSessionCallerOf(event, context) }),
    siteDataRemovers: removersFor(parts.config),
  };
  return context;
}

/**
 * With CLICKHOUSE_URL set, deleting a site also records what ClickHouse must stop counting at once and delete later
 * (docs/clickhouse.md, "Deletion"); it runs first, while the log's counter still covers the site's events.
 */
function removersFor(config: Config): readonly SiteDataRemover[] {
  if (!config.clickhouse) return siteDataRemovers;
  return siteDataRemovers.map((remover) => (remover.name === 'clickhouse' ? { ...remover, remove: (db: Db, siteId: string) => recordSiteDeletion(db, siteId, Date.now()) } : remover));
}

/**
 * What the access resolver looks up, each from its owner: keys and tenants (tenants/), sessions and share links (ui/),
 * users' sessions with their roles (users/).
 */
function accessLookupsOf({ db, clock }: Pick<AppContext, 'db' | 'clock'>, sessions: Pick<AccessLookups, 'sessionCallerOf' | 'userSessionCallerOf'>): AccessLookups {
  return {
    findKeyByHash: (keyHash) => {
      const row = findKeyByHash(db, keyHash);
      return row && { id: row.id, workspaceId: row.workspace_id, scopes: JSON.parse(row.scopes) as Scope[], revoked: row.revoked_at !== null };
    },
    recordKeyUse: (keyId) => recordKeyUse(db, keyId, clock.now()),
    ...sessions,
    findShareLinkByHash: (tokenHash) => {
      const row = findShareLinkByHash(db, tokenHash);
      return row && { siteId: row.site_id, workspaceId: row.workspace_id, revoked: row.revoked_at !== null };
    },
    findSite: (siteId) => findSite(db, siteId),
    findWorkspaceBySlug: (slug) => findWorkspaceBySlug(db, slug),
  };
}

/**
 * @example const app = createApp({ db, config, adminToken }); const response = await app.fetch(new Request(url));
 */
export function createApp(options: CreateAppOptions): SightlineApp {
  const context = createAppContext({
    db: options.db,
    config: options.config,
    clock: options.clock ?? systemClock,
    random: options.random ?? cryptoRandom,
    adminToken: options.adminToken,
  });
  const h3 = createRouter();
  const metrics = createAppMetrics(context.db);
  observeRoutes(h3, metrics.observeRoute);
  const ingest = createIngestService(context, metrics, options.ingest);
  // The highest seq an import thread committed: reads wait for the projector to pass it too.
  const importedSeq = { value: 0 };
  const projection = startAppProjection(options, context, metrics, ingest, importedSeq);
  const clickhouseShipping = startClickHouseShipping(options, context, metrics, projection);
  const readModel = createAppReadModel(context, projection, clickhouseShipping, options.projectionWaitMs ?? context.config.readWaitMs);
  mountHealth(h3, context);
  mountAdmin(h3, context);
  mountIngest(h3, context, ingest, metrics);
  mountDlq(h3, context, (row) => replayQuarantinedEvent(ingest.pipeline, row));
  mountGdpr(h3, context, clickhouseShipping && shippedSubjectEvents(clickhouseShipping.clickhouse, context.db));
  mountMetrics(h3, context, metrics);
  mountReports(h3, context, readModel);
  mountEvents(h3, context, readModel, ingest, projection, metrics.registry);
  mountPeople(h3, context, readModel);
  mountSpend(h3, context);
  mountWebhooks(h3, context, ingest, metrics);
  mountConsent(h3, context);
  mountGoals(h3, context);
  mountSegments(h3, context);
  mountAnnotations(h3, context);
  mountSourcemaps(h3, context);
  mountTracker(h3);
  // Imports left unfinished by a stopped process never finish: they are marked failed (docs/import-export.md).
  failInterruptedImports(context.db, new Date(context.clock.now()).toISOString());
  const imports = createImportRunner({ context, writeQueue: ingest.writeQueue }, importThread(context, projection, importedSeq));
  mountImports(h3, context, imports);
  mountExports(h3, context, readModel);
  const deliveries = startDeliveryWorker({ context, registry: metrics.registry, ...options.deliveries });
  // A projector batch may have announced purchases: the worker looks at once instead of at its next tick.
  projection.watchProgress(() => deliveries.wake());
  mountIntegrations(h3, context, deliveries);
  const analysisJobCount = metrics.registry.counter('sightline_analysis_jobs_total', 'Analysis jobs (funnels, correlation, explanation, attribution, ROI, journeys, page flow, retention) by outcome');
  // Inline, a job's read model answers with the outcome of the wait its route already ran; with ClickHouse, history
  // is read there (on the thread too: it gets the connection).
  const readModelFor = analysisReadModelFor(context.db, clickhouseShipping && { clickhouse: clickhouseShipping.clickhouse, trimmedThroughDay: clickhouseShipping.trimmedThroughDay });
  const analysis = createAnalysisRunner<AnyAnalysisJob>({
    context,
    mode: analysisMode(options.analysis?.mode, context.db, { kind: 'inline', jobs: analysisJobs, readModelFor }),
    limits: { ...defaultAnalysisLimits, ...options.analysis?.limits },
    maxWaiting: options.analysis?.maxWaiting,
    gate: options.analysis?.gate,
    clickhouse: clickhouseShipping && { connection: clickhouseShipping.connection, logRetainDays: context.config.clickhouse!.logRetainDays },
    count: (outcome) => analysisJobCount.inc({ outcome }),
  });
  metrics.registry.gauge('sightline_analysis_queue_depth', 'Analysis jobs waiting behind the running one', () => analysis.waiting());
  // A job reads ClickHouse when it is configured: its route waits for the shipper too, as the read model's reads do.
  const waitForProjection = clickhouseShipping ? () => waitForShippedRead(projection, clickhouseShipping.loop, options.projectionWaitMs ?? context.config.readWaitMs) : () => projection.catchUp();
  mountAnalysis(h3, context, waitForProjection, analysis);
  mountAttribution(h3, context, waitForProjection, analysis);
  mountBehaviour(h3, context, waitForProjection, analysis);
  mountUi(h3, context);
  mountShareLinks(h3, context);
  const mailer = startMailer(context, options.mail);
  metrics.registry.gauge('sightline_mail_outbox_depth', 'Mails waiting to be sent (pending, due or not)', () => mailer.outbox.pending());
  mountUsers(h3, context, mailer);
  mountEmailReports(h3, context, readModel, mailer);
  mountAlerts(h3, context, mailer);
  options.extend?.(h3, context);
  // Last: the published documents describe every route mounted before it.
  mountOpenApi(h3, context);
  const checkpointer = startCheckpointer(context.db, options.checkpoint === 'projector-thread' && projection.kind === 'thread' ? 'projector-thread' : 'here');
  const retention = startRetentionPurge(context, options.retentionPurge, (error) => consola.error('retention purge failed:', error));
  const reportSchedule = startReportSchedule(context, readModel, mailer, options.mail?.reportSchedule);
  const alerts = startAlertChecker(context, readModel, mailer, () => deliveries.wake(), options.mail?.alerts);
  return assembleApp(
    { h3, context, metrics, ingest, projection, readModel, analysis, retention, deliveries, clickhouseShipping: clickhouseShipping?.loop, logTrimming: clickhouseShipping?.trimming, mailer, reportSchedule, alerts, imports },
    checkpointer,
  );
}

/**
 * The embedded read model, or with CLICKHOUSE_URL set the one that reads history from ClickHouse: its reads wait
 * (bounded, as the projector's wait is) until the projector and then the shipper have passed every event committed
 * before the read, so a read right after a 202 counts the event there too.
 */
function createAppReadModel(context: AppContext, projection: Projection, shipping: { loop: ShippingLoop; clickhouse: ClickHouse; trimmedThroughDay: TrimmedThroughDay } | undefined, waitMs: number): ReadModel {
  const embedded = createSqliteReadModel({ db: context.db, waitForProjection: () => projection.catchUp() });
  if (!shipping) return embedded;
  const waitForShipping = () => waitForShippedRead(projection, shipping.loop, waitMs);
  // source=<group> on what ClickHouse answers too: the group's stored sources, from the embedded dictionary.
  const clickhouse = createClickHouseReadModel({
    clickhouse: shipping.clickhouse,
    waitForShipping,
    deletionsOf: (siteIds) => pendingDeletionsOf(context.db, siteIds),
    embedded,
    db: context.db,
    trimmedThroughDay: shipping.trimmedThroughDay,
  });
  return withSourceGroups(clickhouse, (siteIds) => storedSources(context.db, siteIds));
}

/** Waits, bounded by waitMs in all, for the projector and then the shipper to pass every event committed before the call. */
async function waitForShippedRead(projection: Projection, loop: ShippingLoop, waitMs: number): Promise<boolean> {
  const started = performance.now();
  const projected = await projection.catchUp();
  const shipped = await loop.waitForShipped(projection.position(), Math.max(0, waitMs - (performance.now() - started)));
  return projected && shipped;
}

/** With CLICKHOUSE_URL set, ships in the background, woken by each projector batch (docs/clickhouse.md). */
function startClickHouseShipping(options: CreateAppOptions, context: AppContext, metrics: AppMetrics, projection: Projection): { loop: ShippingLoop; clickhouse: ClickHouse; connection: ClickHouseOptions; trimming: LogTrimming | undefined; trimmedThroughDay: TrimmedThroughDay } | undefined {
  const settings = context.config.clickhouse;
  if (!settings) return undefined;
  const connection = { url: settings.url, database: settings.database, user: settings.user, password: settings.password, cluster: settings.cluster };
  const clickhouse = createClickHouse(connection);
  // On its own thread when its bundle is there (the server, tests after a build), so batches never hold this one.
  const file = context.db.memory ? undefined : builtWorkerFile('clickhouse-shipping-thread.mjs');
  // While ClickHouse is down the backoff (up to 30 s) bounds these lines to a few a minute.
  const loop = startShippingLoop({
    db: context.db,
    clickhouse,
    thread: file ? { file, connection } : undefined,
    registry: metrics.registry,
    ...options.clickhouseShipping,
    onError: (error) => consola.warn('shipping to ClickHouse failed (retrying with backoff):', error instanceof Error ? error.message : error),
  });
  projection.watchProgress(() => loop.wake());
  // Trimming is opt-in: without LOG_RETAIN_DAYS the log keeps every event (docs/clickhouse.md says what trimming gives up).
  const retainDays = settings.logRetainDays;
  const trimming = retainDays === undefined ? undefined : startLogTrimming({
    db: context.db,
    retainDays,
    now: () => context.clock.now(),
    heldPosition: () => loop.heldPosition(),
    registry: metrics.registry,
    onError: (error) => consola.warn('trimming the SQLite log failed (retried next round):', error instanceof Error ? error.message : error),
  });
  const trimmedThroughDay = trimmedThroughDayOf(() => context.clock.now(), retainDays);
  return { loop, clickhouse, connection, trimming, trimmedThroughDay };
}

/** The h3 app before any route: how what no route handled is answered, and how an unread body ends the connection. */
function createRouter(): H3 {
  return new H3({
    // Reached only by what no route handled (unknown paths and methods, malformed URLs): structured envelope.
    onError: (error) => finishResponse(renderError(fromFrameworkError(error), 'structured')),
    // Any answer given before its body was read to the end (a 413, a refusal before reading) closes the
    // connection instead of draining the rest, as on the ingest fast path.
    onResponse: (_response, event) => {
      const node = event.runtime?.node;
      if (node?.req instanceof IncomingMessage && node.res instanceof ServerResponse) closeUnreadConnection(node.req, node.res);
    },
  });
}

/** The projector, woken by every group commit; what it projects is announced to the app's batch subscribers. */
function startAppProjection(options: CreateAppOptions, context: AppContext, metrics: AppMetrics, ingest: IngestService, importedSeq: { value: number }): Projection {
  // Events stored before this start count as committed: reads wait for the projector to pass them too.
  const storedAtStart = newestEventSeq(context.db);
  const projection = startProjection({
    db: context.db,
    mode: projectorMode(options.projector, context.db),
    waitMs: options.projectionWaitMs ?? context.config.readWaitMs,
    committedSeq: () => Math.max(ingest.writeQueue.committedSeq(storedAtStart), importedSeq.value),
    clock: context.clock,
    metrics,
    checkpoints: options.checkpoint === 'projector-thread',
    onEventLogBacklog: () => ingest.writeQueue.finishCheckpoint(),
    subscribers: batchSubscribers,
  });
  ingest.writeQueue.watchCommits({ committed: (seq) => projection.committed(seq), closed: () => undefined });
  return projection;
}

type AppParts = Omit<SightlineApp, 'fetch' | 'nodeListener' | 'close'>;

/** The app's ways in (fetch; the Node listener with the ingest fast path) and its orderly stop. */
function assembleApp(parts: AppParts, checkpointer: Checkpointer): SightlineApp {
  const { h3, context, metrics, ingest, projection, analysis, retention, deliveries, clickhouseShipping, logTrimming, mailer, reportSchedule, alerts, imports } = parts;
  const ingestFastPath = createIngestFastPath(context, ingest, metrics);
  const h3Listener = toNodeHandler(h3);
  return {
    ...parts,
    fetch: async (request) => h3.fetch(request),
    nodeListener: (request, response) => {
      if (!ingestFastPath(request, response)) void h3Listener(request, response);
    },
    close: async () => {
      retention.stop();
      // A pass claiming reports finishes its read (bounded by the projection wait) before the projector stops.
      await reportSchedule.stop();
      await alerts.stop();
      // Before the write queue drains: a running import stops at its next batch.
      await imports.close();
      // First: its read connection must be closed before the last checkpoint truncates the WALs.
      await analysis.close();
      await ingest.writeQueue.drain();
      // A batch in progress finishes (or rolls back); the next start resumes from the saved position.
      await projection.close();
      // Its last try at storing the day's salts, now that the projector no longer holds sightline.db's write lock.
      ingest.cookieless.stop();
      await deliveries.close();
      await mailer.outbox.close();
      // After the projector: what it projected last may still go out in the batch in flight.
      logTrimming?.close();
      await clickhouseShipping?.close();
      await checkpointer.stop();
    },
  };
}

/** Import jobs on a thread of their own when its bundle is built and the database is on disk (src/imports/import-runner.ts). */
function importThread(context: AppContext, projection: Projection, importedSeq: { value: number }): ImportThreadOptions | undefined {
  const file = context.db.memory ? undefined : builtWorkerFile('import-thread.mjs');
  if (!file) return undefined;
  return {
    file,
    databasePath: context.db.name,
    synchronous: context.config.synchronous,
    onCommitted: (seq) => {
      importedSeq.value = Math.max(importedSeq.value, seq);
      projection.committed(seq);
    },
  };
}

function projectorMode(choice: CreateAppOptions['projector'], db: Db): ProjectionOptions['mode'] {
  if (choice === 'manual' || choice === 'inline') return { kind: choice };
  const file = db.memory ? undefined : builtWorkerFile('projector-thread.mjs');
  if (file) return { kind: 'thread', file };
  if (choice === 'thread') throw new Error('the projector thread bundle (dist/projector-thread.mjs) is missing: run npm run build');
  return { kind: 'inline' };
}

function analysisMode(choice: 'thread' | 'inline' | undefined, db: Db, inline: AnalysisRunnerOptions['mode'] & { kind: 'inline' }): AnalysisRunnerOptions['mode'] {
  if (choice === 'inline') return inline;
  const file = db.memory ? undefined : builtWorkerFile('analysis-thread.mjs');
  if (file) return { kind: 'thread', file };
  if (choice === 'thread') throw new Error('the analysis thread bundle (dist/analysis-thread.mjs) is missing: run npm run build');
  return inline;
}

function fromFrameworkError(error: HTTPError): unknown {
  if (error.cause instanceof ApiError) return error.cause;
  if (error.status === 404 || error.status === 405) return ApiError.notFound('No such route');
  if (error.status >= 400 && error.status < 500) return new ApiError(error.status, 'invalid_request', 'The request could not be read');
  // Anything else is unexpected: renderError logs it and hides its message.
  return error.cause ?? error;
}
