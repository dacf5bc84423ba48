// POST /v1/auth/set-password (structured envelope, no credential: the link's token is one): a one-time set-password
// link of `sightline user create` (password-links.ts).
import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { readJsonBody } from '../http/body.ts';
import { jsonBody, refusals, throttledCredential } from '../http/refusals.ts';
import { noContent } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { SetPasswordBody, usePasswordLink } from './password-links.ts';

const noStore = { 'cache-control': 'no-store' };

export function mountPasswordLinks(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'POST',
    path: '/auth/set-password',
    versionedOnly: true,
    auth: 'none',
    headers: noStore,
    refusals: refusals(jsonBody, throttledCredential, { 404: ['not_found'] }),
    summary: 'Set the password of a new account with its one-time link (sightline user create); an unknown, used or expired link: 404',
    body: SetPasswordBody,
    status: 204,
    handler: async (event) => {
      await usePasswordLink(context, parseBody(SetPasswordBody, await readJsonBody(event, { limitBytes: 8192, accept: ['application/json'] })));
      return noContent();
    },
  });
}
