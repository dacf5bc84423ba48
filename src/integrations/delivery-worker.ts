// The delivery worker, on the HTTP thread: a timer (and a wake after each new outbox row) finds the due deliveries of
// active endpoints, sends at most `concurrency` at once, and records each attempt with the delivery's new state in
// one transaction. 2xx delivers; 410 disables the endpoint; anything else (3xx, 4xx, 5xx, a timeout, a refused
// address) is retried on the schedule of retry-schedule.ts until the last attempt fails it. A failure without an
// answer is recorded as public-failure.ts says (no address, no DNS error) and logged in full.
import { consola } from 'consola';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import type { Counter, Histogram, MetricsRegistry } from '../metrics/registry.ts';
import { openSecret, secretKeyFileName } from '../secrets/secret-box.ts';
import { publicExcerpt, publicOutcome } from './public-failure.ts';
import { type AttemptOutcome, insertAttempt } from './queries/attempt-rows.ts';
import { disableEndpoint, findSealedEndpoint } from './queries/endpoint-rows.ts';
import { countPendingOutboxRows, findOutboxRow, listDueOutboxRows, type OutboxRow, settleOutboxRow } from './queries/outbox-rows.ts';
import { parseRetryAfterMs, retryDelayMs } from './retry-schedule.ts';
import { type SendWebhook, sendWebhook, type WebhookResponse } from './send-webhook.ts';
import { signWebhook } from './signature.ts';

export interface DeliveryWorkerOptions {
  context: AppContext;
  registry: MetricsRegistry;
  send?: SendWebhook;
  /** One delivery's whole request at most (default 10 s). */
  timeoutMs?: number;
  /** Deliveries in flight at most (default 4). */
  concurrency?: number;
  /** How often the timer looks for due deliveries (default 1 s). */
  pollMs?: number;
}

export interface DeliveryWorker {
  /** New outbox rows were committed: look now. */
  wake(): void;
  /** Sends everything due at the clock's now, round after round, until nothing more is due; resolves with attempts made. */
  deliverDue(): Promise<number>;
  /** One attempt of this delivery now, whatever its schedule (the test delivery); resolves with its new row. */
  deliverNow(outboxId: string): Promise<OutboxRow | undefined>;
  close(): Promise<void>;
}

/**
 * @example const worker = startDeliveryWorker({ context, registry }); worker.wake();
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { context } = options;
  const concurrency = options.concurrency ?? 4;
  const inFlight = new Map<string, Promise<void>>();
  let round: Promise<number> | undefined;
  let stopped = false;
  const attempts: AttemptDeps = {
    context,
    send: options.send ?? sendWebhook,
    timeoutMs: options.timeoutMs ?? 10_000,
    outcomes: options.registry.counter('sightline_webhook_deliveries_total', 'Outbound webhook delivery attempts by outcome'),
    latency: options.registry.histogram('sightline_webhook_delivery_latency_ms', 'Outbound webhook delivery attempt duration (ms)', [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]),
    stopped: () => stopped,
  };
  options.registry.gauge('sightline_webhook_outbox_depth', 'Outbound webhook deliveries waiting (pending, due or not)', () =>
    context.db.open ? countPendingOutboxRows(context.db) : 0,
  );

  const start = (row: OutboxRow): Promise<void> => {
    const running = attemptDelivery(attempts, row)
      .catch((error: unknown) => consola.error(`webhook delivery ${row.id}:`, error))
      .finally(() => inFlight.delete(row.id));
    inFlight.set(row.id, running);
    return running;
  };

  const deliverDue = (): Promise<number> => {
    round ??= runRounds({ context, concurrency, inFlight, stopped: () => stopped, start }).finally(() => {
      round = undefined;
    });
    return round;
  };

  const wake = () => {
    if (!stopped) void deliverDue().catch((error: unknown) => consola.error('webhook delivery:', error));
  };
  const ticker = setInterval(wake, options.pollMs ?? 1_000);
  ticker.unref();

  return {
    wake,
    deliverDue,
    deliverNow: async (outboxId) => {
      const row = findOutboxRow(context.db, outboxId);
      if (!row) return undefined;
      await (inFlight.get(outboxId) ?? start(row));
      return findOutboxRow(context.db, outboxId);
    },
    close: async () => {
      stopped = true;
      clearInterval(ticker);
      // An attempt in flight finishes its request (bounded by the timeout) but records nothing: the delivery stays
      // pending and is sent again, with the same webhook-id, after the next start.
      await Promise.all(inFlight.values());
      await round;
    },
  };
}

interface Rounds {
  context: AppContext;
  concurrency: number;
  /** The attempts in flight, by outbox id. */
  inFlight: Map<string, Promise<void>>;
  stopped(): boolean;
  start(row: OutboxRow): Promise<void>;
}

/**
 * Starts due deliveries, at most `concurrency` at a time, round after round until nothing more is due (or the worker
 * stopped); resolves with the attempts started.
 */
async function runRounds({ context, concurrency, inFlight, stopped, start }: Rounds): Promise<number> {
  let made = 0;
  // A delivery whose attempt threw (and so stayed due) is not tried again in the same round.
  const tried = new Set<string>();
  for (;;) {
    if (stopped() || !context.db.open) return made;
    const free = concurrency - inFlight.size;
    if (free <= 0) {
      await Promise.race(inFlight.values());
      continue;
    }
    const due = listDueOutboxRows(context.db, context.clock.now(), free + inFlight.size + tried.size).filter((row) => !inFlight.has(row.id) && !tried.has(row.id)).slice(0, free);
    if (due.length === 0) {
      await Promise.all(inFlight.values());
      if (stopped() || !listDueOutboxRows(context.db, context.clock.now(), tried.size + 1).some((row) => !tried.has(row.id))) return made;
      continue;
    }
    made += due.length;
    for (const row of due) {
      tried.add(row.id);
      void start(row);
    }
    await Promise.race(inFlight.values());
  }
}

/** What one attempt needs: the app's context, the sender and its timeout, the metrics, and whether the worker stopped. */
interface AttemptDeps {
  context: AppContext;
  send: SendWebhook;
  timeoutMs: number;
  outcomes: Counter;
  latency: Histogram;
  stopped(): boolean;
}

/** One attempt of a delivery: signed and sent, then recorded with the delivery's new state (unless the worker stopped). */
async function attemptDelivery(deps: AttemptDeps, row: OutboxRow): Promise<void> {
  const { context } = deps;
  const endpoint = findSealedEndpoint(context.db, row.endpoint_id);
  if (!endpoint) return;
  const now = context.clock.now();
  const secret = openEndpointSecret(context, endpoint.secret_sealed, endpoint.id);
  const started = performance.now();
  const response: WebhookResponse = secret
    ? await deps.send({ url: endpoint.url, headers: { ...signWebhook(secret, row.id, Math.floor(now / 1000), row.body) }, body: row.body, timeoutMs: deps.timeoutMs, allowPrivate: context.config.allowPrivateWebhookTargets })
    : { kind: 'failed', reason: 'secret_unavailable', detail: `the signing secret could not be opened: DATA_DIR/${secretKeyFileName} is missing or changed` };
  const latencyMs = Math.round(performance.now() - started);
  // The operator's log has the whole reason (the address a name resolved to, the DNS error); the history does not.
  if (response.kind === 'failed') consola.warn(`webhook delivery ${row.id} to endpoint ${endpoint.id}: ${response.reason}: ${response.detail}`);
  if (deps.stopped() || !context.db.open) return;
  const outcome = publicOutcome(outcomeOf(response));
  recordAttempt(context, { row, endpointId: endpoint.id, response, outcome, attemptedAt: now, latencyMs });
  deps.outcomes.inc({ outcome });
  deps.latency.observe(latencyMs);
}

/** Undefined when the sealing key cannot open it (the key file was lost or replaced): nothing is sent unsigned. */
function openEndpointSecret(context: AppContext, sealed: Buffer, endpointId: string): Buffer | undefined {
  try {
    return openSecret(context.config.dataDir, sealed, endpointId);
  } catch (error) {
    // The attempt's history says only that the secret was unavailable; the operator's log says why.
    consola.error(`webhook endpoint ${endpointId}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

interface AttemptMade {
  row: OutboxRow;
  endpointId: string;
  response: WebhookResponse;
  outcome: AttemptOutcome;
  /** When the attempt started (epoch ms). */
  attemptedAt: number;
  latencyMs: number;
}

/**
 * The attempt and the delivery's new state, in one transaction: delivered; failed (410 also disables the endpoint;
 * or the last attempt); else pending again, at Retry-After (429, 503) or the next step of the schedule.
 */
function recordAttempt(context: AppContext, { row, endpointId, response, outcome, attemptedAt, latencyMs }: AttemptMade): void {
  const settledAt = context.clock.now();
  inWriteTransaction(context.db, () => {
    // The endpoint was deleted while the request was out: its deliveries went with it.
    if (!findOutboxRow(context.db, row.id)) return;
    const attempts = row.attempts + 1;
    let status: OutboxRow['status'] = 'pending';
    let next = row.next_attempt_at;
    if (outcome === 'delivered') status = 'delivered';
    else if (outcome === 'gone') {
      status = 'failed';
      disableEndpoint(context.db, endpointId, 'gone', toIso(settledAt));
    } else if (attempts >= row.max_attempts) status = 'failed';
    else {
      const retryAfter = response.kind === 'answered' && (response.statusCode === 429 || response.statusCode === 503) ? parseRetryAfterMs(response.retryAfter, settledAt) : undefined;
      next = settledAt + (retryAfter ?? retryDelayMs(attempts, context.random));
    }
    insertAttempt(context.db, {
      outbox_id: row.id,
      attempted_at: toIso(attemptedAt),
      outcome,
      status_code: response.kind === 'answered' ? response.statusCode : null,
      latency_ms: latencyMs,
      response_excerpt: response.kind === 'answered' ? response.excerpt : publicExcerpt(outcome, response.detail.slice(0, 1024)),
    });
    settleOutboxRow(context.db, row.id, status, next);
  });
}

function outcomeOf(response: WebhookResponse): AttemptOutcome {
  if (response.kind === 'failed') return response.reason;
  const status = response.statusCode;
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  if (status >= 300 && status < 400) return 'redirect';
  return 'http_error';
}
