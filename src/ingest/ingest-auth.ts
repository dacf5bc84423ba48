// Who may ingest, by REQUIRE_API_KEY (spec, Authentication): the legacy site-id bearer, or an API key with
// ingest:write for a site of its workspace (named by X-Site-Id, or by the events' own site_id). A bearer checked as
// an API key is a secret, its failures throttled per client address (src/access/auth-throttle.ts); the site id is
// public (it sits in every tracked page), so a site bearer is neither counted nor throttled.
import type { RequestHeader } from '../http/content-type.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/open.ts';
import { resolveSiteForCaller } from '../access/resolve-access.ts';
import { authenticateApiKey, bearerOf } from '../access/authenticate.ts';
import type { Caller } from '../access/caller.ts';
import { authRateLimited, authThrottleOf, checkSecret, clientKeyOf, recordAuthFailure } from '../access/auth-throttle.ts';
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
// Per database: two apps in one process (the tests' servers) must not answer for each other's sites.
const siteCaches = new WeakMap<Db, Map<string, { exists: boolean; checkedAt: number }>>();

function siteCacheOf(db: Db): Map<string, { exists: boolean; checkedAt: number }> {
  let cache = siteCaches.get(db);
  if (!cache) siteCaches.set(db, (cache = new Map()));
  return cache;
}

export function forgetCachedSite(db: Db, siteId: string): void {
  siteCacheOf(db).delete(siteId);
}

function legacySite(context: AppContext, token: string): IngestCredential | undefined {
  const now = context.clock.now();
  const siteCache = siteCacheOf(context.db);
  let entry = siteCache.get(token);
  if (!entry || now - entry.checkedAt >= siteCacheTtlMs) {
    if (siteCache.size >= siteCacheLimit) siteCache.clear();
    entry = { exists: findSite(context.db, token) !== undefined, checkedAt: now };
    siteCache.set(token, entry);
  }
  return entry.exists ? { kind: 'site', siteId: token } : undefined;
}

function apiKeyCredential(caller: Caller, header: HeaderReader): IngestCredential {
  return { kind: 'apiKey', caller, siteIdHeader: header('x-site-id') };
}

/** Only an sk_ bearer can be a key: anything else is no guess of one, so it is neither looked up nor counted. */
function apiKey(context: AppContext, header: HeaderReader, token: string, clientIp: string | null): IngestCredential | undefined {
  if (!token.startsWith('sk_')) return undefined;
  const caller = checkSecret(context, clientKeyOf(clientIp), () => authenticateApiKey(context, token));
  return caller && apiKeyCredential(caller, header);
}

/**
 * Where both are taken, an sk_ bearer is tried as a key first, and a site id may start with sk_ too: so a failure
 * counts only when it is no site either, and a throttled address still reaches its site by the (public) site id.
 */
function apiKeyOrSite(context: AppContext, header: HeaderReader, token: string, clientIp: string | null): IngestCredential | undefined {
  if (!token.startsWith('sk_')) return legacySite(context, token);
  const throttleKey = clientKeyOf(clientIp);
  const verdict = authThrottleOf(context).check(throttleKey);
  if (!verdict.allowed) {
    const site = legacySite(context, token);
    if (site) return site;
    throw authRateLimited(verdict.retryAfterSeconds);
  }
  const caller = authenticateApiKey(context, token);
  if (caller) return apiKeyCredential(caller, header);
  const site = legacySite(context, token);
  if (!site) recordAuthFailure(context, throttleKey);
  return site;
}

/**
 * none: /events takes the site bearer only, /s2s/events both; tag: /events both, /s2s/events API keys;
 * require: API keys only. Anything else is a 401.
 */
export function authenticateIngest(header: HeaderReader, context: AppContext, endpoint: IngestEndpoint, clientIp: string | null): IngestCredential {
  const token = bearerOf(header('authorization'));
  if (!token) throw ApiError.unauthorized();
  const mode = context.config.requireApiKey;
  let credential: IngestCredential | undefined;
  if (mode === 'none' && endpoint === 'events') {
    credential = legacySite(context, token);
  } else if ((mode === 'none' && endpoint === 's2s') || (mode === 'tag' && endpoint === 'events')) {
    credential = apiKeyOrSite(context, header, token, clientIp);
  } else {
    credential = apiKey(context, header, token, clientIp);
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
