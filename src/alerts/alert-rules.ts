// Traffic alert rules of a site (CONTRACT 13, docs/email.md "Alerts"): create, list, change, delete, for owners and
// admins. A spike's threshold is visitors in the last hour (1 to 1,000,000); a drop's is the percent below the same
// hour last week (1-100). Recipients are members of the site's workspace (anyone else: 400 naming which); the
// optional endpoint is an outbound webhook endpoint of the workspace. A rule needs somewhere to go: a recipient or
// an endpoint. Mailing recipients needs SMTP (409 smtp_not_configured).
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import { findEndpointInWorkspace } from '../integrations/queries/endpoint-rows.ts';
import { type Mailer, requireSmtp } from '../mail/mailer.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { findMembership } from '../users/queries/membership-rows.ts';
import { type AlertKind, type AlertRow, countAlertsOfSite, deleteAlert, findAlert, insertAlert, listAlertsOfSite, updateAlert } from './queries/alert-rows.ts';

export const alertKinds = ['traffic_spike', 'traffic_drop'] as const;
export const maxSpikeThreshold = 1_000_000;
export const maxRecipients = 20;
export const maxAlertsPerSite = 20;

const Threshold = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.maxValue(maxSpikeThreshold, `must be at most ${maxSpikeThreshold}`));
const Recipients = v.pipe(
  v.array(v.pipe(v.string('must be a user id'), v.minLength(1, 'must be a user id'), v.maxLength(64, 'must be a user id')), 'must be an array of user ids'),
  v.maxLength(maxRecipients, `must list at most ${maxRecipients} recipients`),
  v.check((ids) => new Set(ids).size === ids.length, 'must not repeat a recipient'),
);
const EndpointId = v.nullable(v.pipe(v.string('must be an endpoint id'), v.minLength(1, 'must be an endpoint id'), v.maxLength(64, 'must be an endpoint id')));

export const CreateAlertBody = v.strictObject({
  kind: v.picklist(alertKinds, `must be one of ${alertKinds.join(', ')}`),
  threshold: Threshold,
  recipients: v.optional(Recipients, []),
  endpoint_id: v.optional(EndpointId, null),
});
export const UpdateAlertBody = v.strictObject({
  threshold: v.optional(Threshold),
  recipients: v.optional(Recipients),
  endpoint_id: v.optional(EndpointId),
});

export interface Alert {
  id: string;
  site_id: string;
  kind: AlertKind;
  threshold: number;
  recipients: string[];
  endpoint_id: string | null;
  created_at: string;
  last_fired_at: string | null;
}

const toAlert = (row: AlertRow): Alert => ({
  id: row.id,
  site_id: row.site_id,
  kind: row.kind,
  threshold: row.threshold,
  recipients: JSON.parse(row.recipients) as string[],
  endpoint_id: row.endpoint_id,
  created_at: row.created_at,
  last_fired_at: row.last_fired_at === null ? null : toIso(row.last_fired_at),
});

/** Every refusal of the rule as a whole, named by the field it concerns. */
function checkRule(context: AppContext, mailer: Mailer, site: SiteRow, rule: { kind: AlertKind; threshold: number; recipients: string[]; endpoint_id: string | null }): void {
  const details: ErrorDetail[] = [];
  if (rule.kind === 'traffic_drop' && rule.threshold > 100) details.push({ path: '/threshold', message: 'must be at most 100 (percent below the same hour last week)' });
  rule.recipients.forEach((userId, index) => {
    if (!findMembership(context.db, site.workspace_id, userId)) details.push({ path: `/recipients/${index}`, message: `${userId} is not a member of the workspace` });
  });
  if (rule.endpoint_id !== null && !findEndpointInWorkspace(context.db, site.workspace_id, rule.endpoint_id)) {
    details.push({ path: '/endpoint_id', message: 'is not a webhook endpoint of the workspace' });
  }
  if (rule.recipients.length === 0 && rule.endpoint_id === null) details.push({ path: '/recipients', message: 'must name a recipient, or give an endpoint_id' });
  if (details.length > 0) throw ApiError.invalidPayload(details, 'The alert rule is invalid');
  if (rule.recipients.length > 0) requireSmtp(mailer);
}

export function listAlerts(context: AppContext, site: SiteRow): Alert[] {
  return listAlertsOfSite(context.db, site.id).map(toAlert);
}

export function createAlert(context: AppContext, mailer: Mailer, site: SiteRow, input: v.InferOutput<typeof CreateAlertBody>): Alert {
  const row: AlertRow = {
    id: context.random.uuid(),
    site_id: site.id,
    kind: input.kind,
    threshold: input.threshold,
    recipients: JSON.stringify(input.recipients),
    endpoint_id: input.endpoint_id,
    created_at: toIso(context.clock.now()),
    last_fired_at: null,
  };
  return inWriteTransaction(context.db, () => {
    checkRule(context, mailer, site, { ...input });
    if (countAlertsOfSite(context.db, site.id) >= maxAlertsPerSite) throw ApiError.conflict('too_many_alerts', `A site has at most ${maxAlertsPerSite} alert rules: delete one first`);
    insertAlert(context.db, row);
    return toAlert(row);
  });
}

export function changeAlert(context: AppContext, mailer: Mailer, site: SiteRow, id: string, input: v.InferOutput<typeof UpdateAlertBody>): Alert {
  return inWriteTransaction(context.db, () => {
    const row = findAlert(context.db, site.id, id);
    if (!row) throw ApiError.notFound('No such alert');
    const next = {
      kind: row.kind,
      threshold: input.threshold ?? row.threshold,
      recipients: input.recipients ?? (JSON.parse(row.recipients) as string[]),
      endpoint_id: input.endpoint_id === undefined ? row.endpoint_id : input.endpoint_id,
    };
    checkRule(context, mailer, site, next);
    const updated = { ...row, threshold: next.threshold, recipients: JSON.stringify(next.recipients), endpoint_id: next.endpoint_id };
    updateAlert(context.db, updated);
    return toAlert(updated);
  });
}

export function removeAlert(context: AppContext, site: SiteRow, id: string): void {
  if (!inWriteTransaction(context.db, () => deleteAlert(context.db, site.id, id))) throw ApiError.notFound('No such alert');
}
