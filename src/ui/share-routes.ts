// /v1/sites/:siteId/share-links: create (the token shown once), list and revoke a site's share links. Creating or
// revoking one needs the admin scope (it opens or closes the site's reports to anyone with the link).
import { type H3 } from 'h3';
import * as v from 'valibot';
import { actorOf } from '../audit/record-audit.ts';
import type { AppContext } from '../context.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { siteIdOf } from '../reading/scope.ts';
import { CreateShareLinkBody, createShareLink, listShareLinks, revokeShareLink } from './share-links.ts';
import { pathParam } from '../http/path-params.ts';
import { readShareToken, resolveSharedSite } from '../access/share-token.ts';
import { ApiError } from '../http/errors.ts';

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

export function mountShareLinks(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/share-links',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Create a read-only share link to the site\'s reports (the token is shown once)',
    body: CreateShareLinkBody,
    status: 201,
    answer: CreatedShareLinkAnswer,
    handler: async (event) => {
      const { caller, site } = resolveSite(event, context, siteIdOf(event), { scope: 'admin' });
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
    summary: 'List the site\'s share links, newest first (at most 100; never their tokens)',
    answer: ShareLinkListAnswer,
    handler: (event) => {
      const { site } = resolveSite(event, context, siteIdOf(event), { scope: 'admin' });
      return { share_links: listShareLinks(context, site) };
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/share-links/:linkId',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Revoke a share link: it stops working at once',
    answer: ShareLinkAnswer,
    handler: (event) => {
      const { caller, site } = resolveSite(event, context, siteIdOf(event), { scope: 'admin' });
      return revokeShareLink(context, actorOf(caller), site, pathParam(event, 'linkId'));
    },
  });
}
