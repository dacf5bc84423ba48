// POST /events (browsers, CORS) and POST /s2s/events (servers): authenticate, read the bounded body, run the
// pipeline, answer 202 only after the events are committed.
import { type H3, type H3Event } from 'h3';
import { isIP } from 'node:net';
import type { AppContext } from '../context.ts';
import { readBodyText } from '../http/body.ts';
import { json } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { authenticateIngest, type IngestEndpoint, resolveIngestSite } from './ingest-auth.ts';
import type { IngestService } from './service.ts';

const corsHeaders = { 'access-control-allow-origin': '*' };
const preflightHeaders = {
  ...corsHeaders,
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, X-Site-Id',
  'access-control-max-age': '86400',
};
const acceptedMediaTypes = ['application/json', 'text/plain'];

/** The client's address: the socket peer, or the first X-Forwarded-For hop when TRUST_PROXY is on. */
export function clientIpOf(event: H3Event, trustProxy: boolean): string | null {
  if (trustProxy) {
    const forwarded = event.req.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded && isIP(forwarded)) return forwarded;
  }
  const ip = event.req.ip?.replace(/^::ffff:/, '');
  return ip && isIP(ip) ? ip : null;
}

/** Observes request-received → response-written on the Node response when there is one. */
function observeLatency(event: H3Event, metrics: AppMetrics, started: number): void {
  const response = event.req.runtime?.node?.res;
  if (response && 'once' in response) response.once('finish', () => metrics.ingestLatencyMs.observe(performance.now() - started));
  else metrics.ingestLatencyMs.observe(performance.now() - started);
}

export function mountIngest(app: H3, context: AppContext, ingest: IngestService, metrics: AppMetrics): void {
  const handle = (endpoint: IngestEndpoint) => async (event: H3Event) => {
    const started = performance.now();
    observeLatency(event, metrics, started);
    const credential = authenticateIngest(event, context, endpoint);
    const bodyText = await readBodyText(event, { limitBytes: context.config.maxBodyBytes, accept: acceptedMediaTypes });
    const outcome = await ingest.pipeline.ingest({
      siteId: credential.kind === 'site' ? credential.siteId : (bodySiteIds) => resolveIngestSite(context, credential, () => bodySiteIds),
      bodyText,
      channel: endpoint === 'events' ? 'browser' : 's2s',
      clientIp: endpoint === 'events' ? clientIpOf(event, context.config.trustProxy) : null,
      userAgent: event.req.headers.get('user-agent'),
    });
    return json(outcome, 202);
  };

  addRoute(app, { method: 'POST', path: '/events', summary: 'Collect events from browsers', headers: corsHeaders, handler: handle('events') });
  addRoute(app, {
    method: 'OPTIONS',
    path: '/events',
    summary: 'CORS preflight for /events',
    handler: () => new Response(null, { status: 204, headers: preflightHeaders }),
  });
  addRoute(app, { method: 'POST', path: '/s2s/events', summary: 'Collect events from servers', handler: handle('s2s') });
}
