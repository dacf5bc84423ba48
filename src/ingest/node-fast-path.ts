// POST /events and /s2s/events straight on Node's http objects: the collector's hot path skips the web
// Request/Response wrappers (streams, header objects), which cost more than the whole pipeline.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { readNodeBody } from '../http/body-bytes.ts';
import { closeUnreadConnection } from '../http/close-unread.ts';
import { toErrorParts } from '../http/errors.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { clientIpFrom } from '../http/client-ip.ts';
import { handleIngest } from './handle-ingest.ts';
import type { IngestEndpoint } from './ingest-auth.ts';
import type { IngestService } from './service.ts';

const endpoints = new Map<string, IngestEndpoint>([
  ['/events', 'events'],
  ['/v1/events', 'events'],
  ['/s2s/events', 's2s'],
  ['/v1/s2s/events', 's2s'],
]);

/** Returns a listener that handles ingest requests and says false for everything else (h3 answers those). */
export function createIngestFastPath(context: AppContext, ingest: IngestService, metrics: AppMetrics) {
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.method !== 'POST') return false;
    const url = request.url ?? '';
    const queryAt = url.indexOf('?');
    const endpoint = endpoints.get(queryAt < 0 ? url : url.slice(0, queryAt));
    if (!endpoint) return false;
    const started = performance.now();
    response.once('finish', () => {
      const ms = performance.now() - started;
      metrics.ingestLatencyMs.observe(ms);
      metrics.observeRoute(endpoint === 'events' ? '/events' : '/s2s/events', 'POST', response.statusCode, ms);
    });
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    void handleIngest(context, ingest, {
      endpoint,
      header,
      clientIp: clientIpFrom(header('x-forwarded-for'), request.socket.remoteAddress, context.config.trustProxy),
      readBody: (limit) => readNodeBody(request, limit),
    })
      .catch((error: unknown) => ({ ...toErrorParts(error, 'structured') }))
      .then((answer) => {
        // A refused body may still be arriving: end the connection after the answer rather than drain it.
        closeUnreadConnection(request, response);
        response.writeHead(answer.status, { ...answer.headers, 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(answer.body) });
        response.end(answer.body);
      });
    return true;
  };
}
