// POST /webhooks/:adapter/:siteId (flat envelope): signed events of a payment processor, forwarded into the site's
// analytics. Authenticated by the adapter's signature, not by a bearer credential.
import { type H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { readBodyBytes } from '../http/body.ts';
import { clientIpOf } from '../access/auth-throttle.ts';
import { ApiError } from '../http/errors.ts';
import { throttledCredential } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import type { IngestService } from '../ingest/service.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { receiveWebhook, WebhookAnswer } from './receive-webhook.ts';
import { StripeEventBody } from './stripe-events.ts';
import { isWebhookAdapter } from './webhook-secrets.ts';
import { pathParam } from '../http/path-params.ts';

/** The /metrics outcome of an answer: its error code, or forwarded/unmapped. */
function outcomeOf(error: unknown): string {
  return error instanceof ApiError ? error.code : 'internal_error';
}

export function mountWebhooks(app: H3, context: AppContext, ingest: IngestService, metrics: AppMetrics): void {
  const received = metrics.registry.counter('sightline_webhooks_received_total', 'Inbound webhooks by adapter and outcome (forwarded, unmapped or the error code)');
  addRoute(app, {
    method: 'POST',
    path: '/webhooks/:adapter/:siteId',
    summary: 'Receive a signed event of a payment processor (adapter stripe) and forward what it maps to',
    auth: 'none',
    body: StripeEventBody,
    answer: WebhookAnswer,
    refusals: {
      400: ['invalid_signature', 'invalid_json', 'invalid_payload'],
      401: ['unauthorized'],
      404: ['not_found'],
      413: ['payload_too_large'],
      ...throttledCredential,
    },
    handler: async (event) => {
      const adapter = pathParam(event, 'adapter');
      // Counted under "unknown" rather than a name the caller chose: the label set stays bounded.
      const label = isWebhookAdapter(adapter) ? adapter : 'unknown';
      try {
        const answer = await receiveWebhook(context, ingest, {
          adapter,
          siteId: pathParam(event, 'siteId'),
          header: (name) => event.req.headers.get(name) ?? undefined,
          clientIp: clientIpOf(event, context),
          readBody: (limitBytes) => readBodyBytes(event, limitBytes),
        });
        received.inc({ adapter: label, outcome: answer.forwarded > 0 ? 'forwarded' : 'unmapped' });
        return answer;
      } catch (error) {
        received.inc({ adapter: label, outcome: outcomeOf(error) });
        throw error;
      }
    },
  });
}
