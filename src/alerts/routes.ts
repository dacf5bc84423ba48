// Traffic alerts over HTTP (CONTRACT 13, docs/email.md "Alerts"): /v1/sites/:siteId/alerts (structured envelope;
// owners and admins: the admin scope) and the one-click "stop these alerts" at /v1/alerts/unsubscribe.
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
import type { Mailer } from '../mail/mailer.ts';
import { alertKinds, changeAlert, createAlert, CreateAlertBody, listAlerts, removeAlert, UpdateAlertBody } from './alert-rules.ts';
import { alertUnsubscribeNow, alertUnsubscribePage } from './unsubscribe-link.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const AlertAnswer = v.strictObject({
  id: v.string(),
  site_id: v.string(),
  kind: v.picklist(alertKinds),
  threshold: v.pipe(v.number(), v.integer()),
  recipients: v.array(v.string()),
  endpoint_id: v.nullable(v.string()),
  created_at: IsoTime,
  last_fired_at: v.nullable(IsoTime),
});
const adminOnly = { scope: 'admin' } as const;
const tokenQuery = [{ name: 'token', description: "The signed token of the mail's unsubscribe link", required: true }] as const;

export function mountAlerts(app: H3, context: AppContext, mailer: Mailer): void {
  const siteOf = (event: Parameters<typeof pathParam>[0]) => resolveSite(event, context, pathParam(event, 'siteId'), adminOnly).site;
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/alerts',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath),
    summary: "The site's traffic alert rules (owners and admins)",
    answer: v.strictObject({ alerts: v.array(AlertAnswer) }),
    handler: (event) => ({ alerts: listAlerts(context, siteOf(event)) }),
  });
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/alerts',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, jsonBody, { 409: ['smtp_not_configured', 'too_many_alerts'] }),
    summary: 'Add a traffic_spike (visitors in the last hour ≥ threshold) or traffic_drop (threshold percent below the same hour last week) alert',
    body: CreateAlertBody,
    status: 201,
    answer: AlertAnswer,
    handler: async (event) => {
      const site = siteOf(event);
      return json(createAlert(context, mailer, site, parseBody(CreateAlertBody, await readJsonBody(event))), 201);
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/sites/:siteId/alerts/:id',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, jsonBody, { 409: ['smtp_not_configured'] }),
    summary: "Change an alert's threshold, recipients or endpoint (its kind stays)",
    body: UpdateAlertBody,
    answer: AlertAnswer,
    handler: async (event) => {
      const site = siteOf(event);
      return changeAlert(context, mailer, site, pathParam(event, 'id'), parseBody(UpdateAlertBody, await readJsonBody(event)));
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/alerts/:id',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Delete an alert rule',
    status: 204,
    handler: (event) => {
      removeAlert(context, siteOf(event), pathParam(event, 'id'));
      return noContent();
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/alerts/unsubscribe',
    versionedOnly: true,
    auth: 'none',
    produces: 'text/html',
    refusals: namedInPath,
    query: tokenQuery,
    summary: "The \"stop these alerts\" link of an alert mail: a confirmation page with one button (no sign-in)",
    handler: (event) => alertUnsubscribePage(context, new URL(event.req.url).searchParams.get('token') ?? undefined),
  });
  addRoute(app, {
    method: 'POST',
    path: '/alerts/unsubscribe',
    versionedOnly: true,
    auth: 'none',
    produces: 'text/html',
    refusals: namedInPath,
    query: tokenQuery,
    summary: 'RFC 8058 one-click unsubscribe of an alert mail (no sign-in): takes the recipient off the rule',
    handler: (event) => alertUnsubscribeNow(context, new URL(event.req.url).searchParams.get('token') ?? undefined),
  });
}
