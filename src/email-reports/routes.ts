// E-mail reports over HTTP (CONTRACT 13, docs/email.md): a member's own subscriptions of a site under
// /v1/sites/:siteId/email-reports (structured envelope; any role that reads the dashboards, viewers included), the
// test send, and the one-click unsubscribe at /v1/email-reports/unsubscribe (no credential: the token is one).
import type { H3 } from 'h3';
import * as v from 'valibot';
import { resolveSite } from '../access/resolve-access.ts';
import type { AppContext } from '../context.ts';
import { readJsonBody } from '../http/body.ts';
import { pathParam } from '../http/path-params.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { json, noContent } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { type Mailer, requireSmtp } from '../mail/mailer.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { sendTestReport } from './send-test-report.ts';
import {
  changeFrequency,
  CreateSubscriptionBody,
  findOwnSubscription,
  listSubscriptions,
  subscribe,
  subscriberOf,
  unsubscribe,
  UpdateSubscriptionBody,
} from './subscriptions.ts';
import { unsubscribeNow, unsubscribePage } from './unsubscribe-link.ts';

const SubscriptionAnswer = v.strictObject({
  id: v.string(),
  user_id: v.string(),
  frequency: v.picklist(['weekly', 'monthly']),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
});
const noSmtp = { 409: ['smtp_not_configured'] };
const dashboardRead = { scope: 'query:read', dashboard: true } as const;

export function mountEmailReports(app: H3, context: AppContext, readModel: ReadModel, mailer: Mailer): void {
  /** The site (404 when the caller cannot see it) and the caller's account; then, SMTP must be configured. */
  const memberOf = (event: Parameters<typeof pathParam>[0], options: { needsSmtp: boolean } = { needsSmtp: true }) => {
    const { caller, site } = resolveSite(event, context, pathParam(event, 'siteId'), dashboardRead);
    const userId = subscriberOf(caller);
    if (options.needsSmtp) requireSmtp(mailer);
    return { site, userId };
  };

  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/email-reports',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, noSmtp),
    summary: "The caller's own e-mail report subscriptions of the site (a signed-in member; 409 without SMTP_URL)",
    answer: v.strictObject({ email_reports: v.array(SubscriptionAnswer) }),
    handler: (event) => {
      const { site, userId } = memberOf(event);
      return { email_reports: listSubscriptions(context, site, userId) };
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/email-reports',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, jsonBody, noSmtp, { 409: ['already_subscribed'] }),
    summary: 'Subscribe to the site\'s weekly (Monday) or monthly (the 1st) report, UTC',
    body: CreateSubscriptionBody,
    status: 201,
    answer: SubscriptionAnswer,
    handler: async (event) => {
      const { site, userId } = memberOf(event);
      const input = parseBody(CreateSubscriptionBody, await readJsonBody(event));
      return json(subscribe(context, site, userId, input.frequency), 201);
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/sites/:siteId/email-reports/:id',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, jsonBody, noSmtp, { 409: ['already_subscribed'] }),
    summary: "Change the frequency of the caller's subscription (another member's: 404)",
    body: UpdateSubscriptionBody,
    answer: SubscriptionAnswer,
    handler: async (event) => {
      const { site, userId } = memberOf(event);
      const input = parseBody(UpdateSubscriptionBody, await readJsonBody(event));
      return changeFrequency(context, site, userId, pathParam(event, 'id'), input.frequency);
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/email-reports/:id',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath),
    summary: "Unsubscribe (the caller's own; works without SMTP_URL too)",
    status: 204,
    handler: (event) => {
      const { site, userId } = memberOf(event, { needsSmtp: false });
      unsubscribe(context, site, userId, pathParam(event, 'id'));
      return noContent();
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/email-reports/:id/test',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, noSmtp),
    summary: 'Send a test now: the report of the most recent complete period, to the caller, attempted at once',
    answer: v.strictObject({ id: v.string(), to: v.string(), status: v.picklist(['sent', 'pending', 'failed']) }),
    handler: async (event) => {
      const { site, userId } = memberOf(event);
      return sendTestReport(context, readModel, mailer, site, findOwnSubscription(context, site, userId, pathParam(event, 'id')));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/email-reports/unsubscribe',
    versionedOnly: true,
    auth: 'none',
    produces: 'text/html',
    refusals: namedInPath,
    query: [{ name: 'token', description: 'The signed token of the mail\'s unsubscribe link', required: true }],
    summary: 'The unsubscribe link of a report mail: a confirmation page with one button (no sign-in)',
    handler: (event) => unsubscribePage(context, new URL(event.req.url).searchParams.get('token') ?? undefined),
  });
  addRoute(app, {
    method: 'POST',
    path: '/email-reports/unsubscribe',
    versionedOnly: true,
    auth: 'none',
    produces: 'text/html',
    refusals: namedInPath,
    query: [{ name: 'token', description: 'The signed token of the mail\'s unsubscribe link', required: true }],
    summary: 'RFC 8058 one-click unsubscribe (body List-Unsubscribe=One-Click; no sign-in): removes the subscription',
    handler: (event) => unsubscribeNow(context, new URL(event.req.url).searchParams.get('token') ?? undefined),
  });
}
