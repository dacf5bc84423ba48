// Who may upload a source map (CONTRACT section 8): the site-id bearer while REQUIRE_API_KEY is none (it is public:
// it sits in every tracked page), an API key of the site's workspace with ingest:write or admin, and the admin
// token, in every mode. Every other caller, a key of another workspace included, is a 401 (spec, Authentication 5).
import type { H3Event } from 'h3';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import { callerOfSecret, readBearer } from '../access/authenticate.ts';
import { hasScope } from '../access/caller.ts';
import { checkSecret, clientIpOf, clientKeyOf } from '../access/auth-throttle.ts';
import { ApiError } from '../http/errors.ts';

/**
 * The site the caller may upload to. The admin token sees every site, so only it learns that a site does not
 * exist (404); anyone else gets the same 401 for a missing site and for one it may not write to.
 * @example const site = resolveUploadSite(event, context, 'blog');
 */
export function resolveUploadSite(event: H3Event, context: AppContext, siteId: string): SiteRow {
  const token = readBearer(event);
  if (!token) throw ApiError.unauthorized();
  // The legacy site bearer is the site id itself, which is public: nothing secret to compare in constant time, and
  // nothing to throttle. (A site id may itself start with sk_, as at ingest: it is tried first.)
  if (context.config.requireApiKey === 'none' && token === siteId) {
    const site = findSite(context.db, siteId);
    if (site) return site;
    throw ApiError.unauthorized();
  }
  // Anything else is a guess of the admin token or a key: throttled per client address (src/access/auth-throttle.ts).
  const caller = checkSecret(context, clientKeyOf(clientIpOf(event, context)), () => callerOfSecret(context, token));
  if (caller?.kind === 'admin') {
    const site = findSite(context.db, siteId);
    if (!site) throw ApiError.notFound();
    return site;
  }
  if (caller?.kind === 'apiKey') {
    const site = findSite(context.db, siteId);
    if (site && site.workspace_id === caller.workspaceId && hasScope(caller, 'ingest:write', site.workspace_id)) return site;
  }
  throw ApiError.unauthorized();
}
