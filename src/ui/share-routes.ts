// /v1/sites/:siteId/share-links: create (the token shown once), list and revoke a site's share links. The admin
// scope manages every link of the site (it opens or closes the site's reports to anyone with the link); an analyst
// (CONTRACT 9) makes links and lists and revokes its own only; anyone else gets 403.
import { type H3, type H3Event } from 'h3';
import * as v from 'valibot';
import { actorOf } from '../audit/record-audit.ts';
import type { AppContext } from '../context.ts';
import { type Caller, hasScope, managesOwnOnly } from '../access/caller.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { readJsonBody } from '../http/body.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { siteIdOf } from '../reading/scope.ts';
import { CreateShareLinkBody, createShareLink, creatorOf, listShareLinks, revokeShareLink } from './share-links.ts';
import { pathParam } from '../http/path-params.ts';
import { readShareToken, resolveSharedSite } from '../access/share-token.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const ShareLinkAnswer = v.strictObject({
  id: v.string(),
  site_id: v.string(),
  label: v.string(),
  created_at: IsoTime,
  revoked_at: v.nullable(IsoTime),
  embed_origins: v.array(v.string()),
});
/** What a shared dashboard shows of its site: its name, not only its id. */
const ShareInfoAnswer = v.strictObject({ site_id: v.string(), site_name: v.string() });
const CreatedShareLinkAnswer = v.strictObject({ ...ShareLinkAnswer.entries, token: v.pipe(v.string(), v.regex(/^shr_[A-Za-z0-9_-]{43}$/)), warning: v.string() });
const ShareLinkListAnswer = v.strictObject({ share_links: v.array(ShareLinkAnswer) });
const noStore = { 'cache-control': 'no-store' };

/** The site and whose links the caller manages: every link (admin scope), or its own (an analyst: `onlyOf`). */
function resolveShareSite(event: H3Event, context: AppContext): { caller: Caller; site: SiteRow; onlyOf: string | undefined } {
  const { caller, site } = resolveSite(event, context, siteIdOf(event), { scope: 'query:read' });
  if (hasScope(caller, 'admin', site.workspace_id)) return { caller, site, onlyOf: undefined };
  if (managesOwnOnly(caller, site.workspace_id)) return { caller, site, onlyOf: creatorOf(actorOf(caller)) };
  throw ApiError.forbiddenScope('admin');
}

export function mountShareLinks(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/share-links',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Create a read-only share link to the site\'s reports (the token is shown once; admin scope or an analyst)',
    body: CreateShareLinkBody,
    status: 201,
    answer: CreatedShareLinkAnswer,
    handler: async (event) => {
      const { caller, site } = resolveShareSite(event, context);
      const input = parseBody(CreateShareLinkBody, await readJsonBody(event));
      return createShareLink(context, actorOf(caller), site, input);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/share-info',
    versionedOnly: true,
    auth: 'none',
    headers: noStore,
    refusals: { 401: ['unauthorized'], 404: ['not_found'], 429: ['rate_limited'] },
    summary: 'A share link\'s site, as its dashboard shows it (Authorization: Share <token>; its own site only)',
    answer: ShareInfoAnswer,
    handler: (event) => {
      const token = readShareToken(event);
      if (token === undefined) throw ApiError.unauthorized();
      const site = resolveSharedSite(event, context, token, siteIdOf(event));
      return { site_id: site.id, site_name: site.name };
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/share-links',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'List the site\'s share links, newest first (at most 100; never their tokens); an analyst lists its own',
    answer: ShareLinkListAnswer,
    handler: (event) => {
      const { site, onlyOf } = resolveShareSite(event, context);
      return { share_links: listShareLinks(context, site, onlyOf) };
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/share-links/:linkId',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Revoke a share link: it stops working at once (an analyst revokes its own only)',
    answer: ShareLinkAnswer,
    handler: (event) => {
      const { caller, site, onlyOf } = resolveShareSite(event, context);
      return revokeShareLink(context, actorOf(caller), site, pathParam(event, 'linkId'), onlyOf);
    },
  });
}
