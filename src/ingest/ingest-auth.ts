// Who may ingest, by REQUIRE_API_KEY (spec, Authentication): the legacy site-id bearer, or an API key with
// ingest:write for a site of its workspace (named by X-Site-Id, or by the events' own site_id).
import type { RequestHeader } from '../http/content-type.ts';
import { findSite } from '../admin/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import { resolveSiteForCaller } from '../http/access.ts';
import { authenticateApiKey, bearerOf, type Caller } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';

export type IngestEndpoint = 'events' | 's2s';

/** Request headers by lower-case name, from a web Request or a Node IncomingMessage alike. */
export type HeaderReader = RequestHeader;

/** The credential, before the body says which site an API key means. */
export type IngestCredential = { kind: 'site'; siteId: string } | { kind: 'apiKey'; caller: Caller; siteIdHeader: string | undefined };

/**
 * Site-id bearers seen in the last second. The collector's hot path then reads nothing from the database on the
 * HTTP thread (a read there can wait on the writer's WAL bookkeeping); a site deleted by this process leaves the
 * cache at once, one deleted by another process (the CLI) at most a second later.
 */
const siteCacheTtlMs = 1000;
const siteCacheLimit = 10_000;
const siteCache = new Map<string, { exists: boolean; checkedAt: number }>();

export function forgetCachedSite(siteId: string): void {
  siteCache.delete(siteId);
}

function legacySite(context: AppContext, token: string): IngestCredential | undefined {
  const now = context.clock.now();
  let entry = siteCache.get(token);
  if (!entry || now - entry.checkedAt >= siteCacheTtlMs) {
    if (siteCache.size >= siteCacheLimit) siteCache.clear();
    entry = { exists: findSite(context.db, token) !== undefined, checkedAt: now };
    siteCache.set(token, entry);
  }
  return entry.exists ? { kind: 'site', siteId: token } : undefined;
}

function apiKey(context: AppContext, header: HeaderReader, token: string): IngestCredential | undefined {
  const caller = authenticateApiKey(context, token);
  if (!caller) return undefined;
  return { kind: 'apiKey', caller, siteIdHeader: header('x-site-id') };
}

/**
 * none: /events takes the site bearer only, /s2s/events both; tag: /events both, /s2s/events API keys;
 * require: API keys only. Anything else is a 401.
 */
export function authenticateIngest(header: HeaderReader, context: AppContext, endpoint: IngestEndpoint): IngestCredential {
  const token = bearerOf(header('authorization'));
  if (!token) throw ApiError.unauthorized();
  const mode = context.config.requireApiKey;
  let credential: IngestCredential | undefined;
  if (mode === 'none' && endpoint === 'events') {
    credential = legacySite(context, token);
  } else if ((mode === 'none' && endpoint === 's2s') || (mode === 'tag' && endpoint === 'events')) {
    credential = (token.startsWith('sk_') ? apiKey(context, header, token) : undefined) ?? legacySite(context, token);
  } else {
    credential = apiKey(context, header, token);
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
