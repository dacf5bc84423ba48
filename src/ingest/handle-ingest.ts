// One ingest request, independent of the HTTP layer: the h3 route (app.fetch) and the Node fast path
// (src/ingest/node-fast-path.ts) are thin adapters over it, so both answer exactly alike.
import type { AppContext } from '../context.ts';
import { checkBodyDeclaration } from '../http/content-type.ts';
import { toErrorParts } from '../http/errors.ts';
import { authenticateIngest, type HeaderReader, type IngestEndpoint, resolveIngestSite } from './ingest-auth.ts';
import type { IngestService } from './service.ts';

export const ingestCorsHeaders = { 'access-control-allow-origin': '*' };
/** application/json, and text/plain for browsers' beacon and keepalive requests (no CORS preflight). */
export const ingestMediaTypes = ['application/json', 'text/plain'];

export interface IngestHttpRequest {
  endpoint: IngestEndpoint;
  header: HeaderReader;
  /** The client's address as the adapter sees it (socket peer or trusted X-Forwarded-For): the browser's on /events. */
  clientIp: string | null;
  /** Reads the body, refusing with 413 past `limitBytes` and with 400 invalid_json unless it is UTF-8. */
  readBody(limitBytes: number): Promise<string>;
}

export interface IngestHttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Authenticate → media type, charset and content coding → bounded UTF-8 body → pipeline → 202 after commit; every
 * refusal in the structured envelope.
 */
export async function handleIngest(context: AppContext, ingest: IngestService, request: IngestHttpRequest): Promise<IngestHttpAnswer> {
  try {
    const credential = authenticateIngest(request.header, context, request.endpoint, request.clientIp);
    checkBodyDeclaration(request.header, ingestMediaTypes);
    const bodyText = await request.readBody(context.config.maxBodyBytes);
    const outcome = await ingest.pipeline.ingest({
      siteId: credential.kind === 'site' ? credential.siteId : (bodySiteIds) => resolveIngestSite(context, credential, () => bodySiteIds),
      bodyText,
      channel: request.endpoint === 'events' ? 'browser' : 's2s',
      clientIp: request.endpoint === 'events' ? request.clientIp : null,
      userAgent: request.header('user-agent') ?? null,
    });
    return { status: 202, headers: { 'content-type': 'application/json; charset=utf-8', ...ingestCorsHeaders }, body: JSON.stringify(outcome) };
  } catch (error) {
    const parts = toErrorParts(error, 'structured');
    return { ...parts, headers: { ...parts.headers, ...ingestCorsHeaders } };
  }
}
