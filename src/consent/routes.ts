// The consent banner configuration (structured envelope): read with query:read, save with admin; the admin token
// also names the site's workspace in X-Workspace-Id. The path carries its own version (/v2), and like every route
// it is also served under /v1 (spec, Versioning).
import type { H3 } from 'h3';
import { actorOf } from '../audit/record-audit.ts';
import type { AppContext } from '../context.ts';
import { readJsonBody } from '../http/body.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { siteIdOf } from '../reading/scope.ts';
import { BannerAnswer } from './answers.ts';
import { resolveBannerSite } from './banner-access.ts';
import { SaveBannerBody } from './banner-config.ts';
import { readBanner } from './read-banner.ts';
import { saveBanner } from './save-banner.ts';

/** The largest banner save is about 60 KB of JSON (every field at its limit, all escaped): 256 KiB is ample. */
const maxSaveBytes = 256 * 1024;

const path = '/v2/sites/:siteId/consent-banner/config';

export function mountConsent(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'The consent banner of a site (before the first save: a default at config_version 0). Admin token: send X-Workspace-Id',
    answer: BannerAnswer,
    handler: (event) => readBanner(context, resolveBannerSite(event, context, siteIdOf(event), 'query:read').site),
  });
  addRoute(app, {
    method: 'PUT',
    path,
    refusals: refusals(needsCredential, namedInPath, jsonBody, { 409: ['stale_config_version', 'idempotency_key_reused'] }),
    summary: 'Save the consent banner: config_version is the last one read (0 at first); the same idempotency_key and body replay the answer',
    body: SaveBannerBody,
    answer: BannerAnswer,
    handler: async (event) => {
      const { caller, site } = resolveBannerSite(event, context, siteIdOf(event), 'admin');
      const body = parseBody(SaveBannerBody, await readJsonBody(event, { limitBytes: maxSaveBytes, accept: ['application/json'] }));
      return saveBanner(context, actorOf(caller), site, body);
    },
  });
}
