// POST /events and /s2s/events straight on Node's http objects: the collector's hot path skips the web
// Request/Response wrappers (streams, header objects), which cost more than the whole pipeline.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { ApiError, toErrorParts } from '../http/errors.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { clientIpFrom } from './client-ip.ts';
import { handleIngest } from './handle-ingest.ts';
import type { IngestEndpoint } from './ingest-auth.ts';
import type { IngestService } from './service.ts';

const endpoints = new Map<string, IngestEndpoint>([
  ['/events', 'events'],
  ['/v1/events', 'events'],
  ['/s2s/events', 's2s'],
  ['/v1/s2s/events', 's2s'],
]);

function readNodeBody(request: IncomingMessage, limitBytes: number): Promise<string> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) return Promise.reject(ApiError.payloadTooLarge(limitBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      total += chunk.length;
      if (total > limitBytes) {
        refused = true;
        reject(ApiError.payloadTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!refused) resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

/** Returns a listener that handles ingest requests and says false for everything else (h3 answers those). */
export function createIngestFastPath(context: AppContext, ingest: IngestService, metrics: AppMetrics) {
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.method !== 'POST') return false;
    const url = request.url ?? '';
    const queryAt = url.indexOf('?');
    const endpoint = endpoints.get(queryAt < 0 ? url : url.slice(0, queryAt));
    if (!endpoint) return false;
    const started = performance.now();
    response.once('finish', () => metrics.ingestLatencyMs.observe(performance.now() - started));
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
        response.writeHead(answer.status, { ...answer.headers, 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(answer.body) });
        response.end(answer.body);
        // A refused body may still be arriving: let Node discard it.
        if (!request.complete) request.resume();
      });
    return true;
  };
}
