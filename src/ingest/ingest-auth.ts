// Who may ingest, by REQUIRE_API_KEY (spec, Authentication): the legacy site-id bearer, or an API key with
// ingest:write for a site of its workspace (named by X-Site-Id, or by the events' own site_id).
import type { H3Event } from 'h3';
import { findSite } from '../admin/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import { resolveSiteForCaller } from '../http/access.ts';
import { authenticateApiKey, type Caller, readBearer } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';

export type IngestEndpoint = 'events' | 's2s';

/** The credential, before the body says which site an API key means. */
export type IngestCredential = { kind: 'site'; siteId: string } | { kind: 'apiKey'; caller: Caller; siteIdHeader: string | undefined };

function legacySite(context: AppContext, token: string): IngestCredential | undefined {
  const site = findSite(context.db, token);
  return site ? { kind: 'site', siteId: site.id } : undefined;
}

function apiKey(context: AppContext, event: H3Event, token: string): IngestCredential | undefined {
  const caller = authenticateApiKey(context, token);
  if (!caller) return undefined;
  return { kind: 'apiKey', caller, siteIdHeader: event.req.headers.get('x-site-id') ?? undefined };
}

/**
 * none: /events takes the site bearer only, /s2s/events both; tag: /events both, /s2s/events API keys;
 * require: API keys only. Anything else is a 401.
 */
export function authenticateIngest(event: H3Event, context: AppContext, endpoint: IngestEndpoint): IngestCredential {
  const token = readBearer(event);
  if (!token) throw ApiError.unauthorized();
  const mode = context.config.requireApiKey;
  let credential: IngestCredential | undefined;
  if (mode === 'none' && endpoint === 'events') {
    credential = legacySite(context, token);
  } else if ((mode === 'none' && endpoint === 's2s') || (mode === 'tag' && endpoint === 'events')) {
    credential = (token.startsWith('sk_') ? apiKey(context, event, token) : undefined) ?? legacySite(context, token);
  } else {
    credential = apiKey(context, event, token);
  }
  if (!credential) throw ApiError.unauthorized();
  return credential;
}

/**
 * The site the request writes to. An API key names it with X-Site-Id or, without the header, by the events'
 * site_id (which must then be one site); a site outside the key's workspace is a 404.
 */
export function resolveIngestSite(context: AppContext, credential: IngestCredential, bodySiteIds: () => string[]): string {
  if (credential.kind === 'site') return credential.siteId;
  let siteId = credential.siteIdHeader;
  if (siteId === undefined) {
    const distinct = [...new Set(bodySiteIds())];
    if (distinct.length !== 1) {
      throw ApiError.invalidPayload([{ path: '', message: 'events of one request must share one site_id (or send X-Site-Id)' }]);
    }
    siteId = distinct[0]!;
  }
  return resolveSiteForCaller(context, credential.caller, siteId, { scope: 'ingest:write' }).id;
}
