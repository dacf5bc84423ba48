// POST /events (browsers, CORS) and POST /s2s/events (servers): authenticate, read the bounded body, run the
// pipeline, answer 202 only after the events are committed.
import { type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { readBodyText } from '../http/body.ts';
import { jsonBody, namedInPath, needsIngestCredential, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { IngestAnswer, IngestBody } from './answers.ts';
import { clientIpFrom } from '../http/client-ip.ts';
import { handleIngest, ingestCorsHeaders, ingestMediaTypes } from './handle-ingest.ts';
import type { IngestEndpoint } from './ingest-auth.ts';
import type { IngestService } from './service.ts';

/** The collector refuses a whole request, before anything is written, with any of these (docs/ingest.md). */
const ingestRefusals = refusals(needsIngestCredential, namedInPath, jsonBody, {
  400: ['schema_validation_failed'],
  429: ['rate_limited'],
  503: ['overloaded'],
});

const preflightHeaders = {
  ...ingestCorsHeaders,
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, X-Site-Id',
  'access-control-max-age': '86400',
};

/** The h3 adapter (app.fetch, and any server without the Node fast path) over the shared ingest handler. */
export function mountIngest(app: H3, context: AppContext, ingest: IngestService, metrics: AppMetrics): void {
  const handle = (endpoint: IngestEndpoint) => async (event: H3Event) => {
    const started = performance.now();
    const answer = await handleIngest(context, ingest, {
      endpoint,
      header: (name) => event.req.headers.get(name) ?? undefined,
      clientIp: clientIpFrom(event.req.headers.get('x-forwarded-for') ?? undefined, event.req.ip, context.config.trustProxy),
      readBody: (limitBytes) => readBodyText(event, { limitBytes, accept: ingestMediaTypes }),
    });
    metrics.ingestLatencyMs.observe(performance.now() - started);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };

  addRoute(app, {
    method: 'POST',
    path: '/events',
    summary: 'Collect events from browsers',
    body: IngestBody,
    status: 202,
    answer: IngestAnswer,
    refusals: ingestRefusals,
    handler: handle('events'),
  });
  addRoute(app, {
    method: 'OPTIONS',
    path: '/events',
    summary: 'CORS preflight for /events',
    auth: 'none',
    status: 204,
    refusals: {},
    handler: () => new Response(null, { status: 204, headers: preflightHeaders }),
  });
  addRoute(app, {
    method: 'POST',
    path: '/s2s/events',
    summary: 'Collect events from servers',
    body: IngestBody,
    status: 202,
    answer: IngestAnswer,
    refusals: ingestRefusals,
    handler: handle('s2s'),
  });
}
