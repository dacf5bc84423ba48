// One check of every alert rule, asked of the read model (visitors with an event in the last hour; a drop also the
// same hour a week earlier). A spike fires when the hour's visitors reach the threshold; a drop when they are at least
// threshold percent below last week's hour (which must have had visitors). A rule fires at most once per hour: the
// firing is claimed by setting its last_fired_at in the transaction that also queues its mails and its webhook
// delivery, so a second check, or a restart, within the hour fires nothing (docs/email.md "Alerts").
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { mailableUser } from '../email-reports/recipients.ts';
import { alertTriggered } from '../integrations/event-types.ts';
import { announceToEndpoint } from '../integrations/outbox.ts';
import type { Mailer } from '../mail/mailer.ts';
import { queueMail } from '../mail/queries/mail-outbox-rows.ts';
import { signLinkToken } from '../mail/signed-links.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import { type AlertFacts, renderAlertMail } from './alert-mail.ts';
import { type AlertRow, claimAlertFiring, listAllAlerts } from './queries/alert-rows.ts';

export const hourMs = 3_600_000;
const weekMs = 7 * 24 * hourMs;
export const alertUnsubscribePurpose = 'alert-unsubscribe';

/** Whether the rule's condition holds, and the figures that say so. */
async function evaluate(readModel: ReadModel, site: SiteRow, alert: AlertRow, now: number): Promise<AlertFacts | undefined> {
  const scope = { siteIds: [site.id], workspaceId: site.workspace_id };
  const base = { kind: alert.kind, siteName: site.name, threshold: alert.threshold, windowStartIso: toIso(now - hourMs), windowEndIso: toIso(now) };
  const { visitors } = await readModel.visitorsInWindow({ scope, startMs: now - hourMs, endMs: now, withInternal: false });
  if (alert.kind === 'traffic_spike') return visitors >= alert.threshold ? { ...base, visitors, baseline: null } : undefined;
  const { visitors: baseline } = await readModel.visitorsInWindow({ scope, startMs: now - hourMs - weekMs, endMs: now - weekMs, withInternal: false });
  // Integer arithmetic: (baseline − visitors) / baseline ≥ threshold / 100.
  return baseline > 0 && (baseline - visitors) * 100 >= alert.threshold * baseline ? { ...base, visitors, baseline } : undefined;
}

/** Queues the firing's mails and webhook delivery, once per hour per rule; false when it fired within the hour. */
function fire(context: AppContext, mailer: Mailer, site: SiteRow, alert: AlertRow, facts: AlertFacts, now: number): boolean {
  return inWriteTransaction(context.db, () => {
    if (!claimAlertFiring(context.db, alert.id, now, hourMs)) return false;
    const firing = `alert:${alert.id}:${now}`;
    const dashboardUrl = `${context.config.mailLinkBase}/?site=${encodeURIComponent(site.id)}`;
    for (const userId of mailer.configured ? (JSON.parse(alert.recipients) as string[]) : []) {
      const user = mailableUser(context.db, userId, site.workspace_id);
      if (!user) continue;
      const token = signLinkToken(context, alertUnsubscribePurpose, `${alert.id}:${userId}`);
      const mail = renderAlertMail(facts, { dashboardUrl, unsubscribeUrl: `${context.config.mailLinkBase}/v1/alerts/unsubscribe?token=${encodeURIComponent(token)}` });
      queueMail(context.db, { id: `${firing}:${userId}`, kind: 'alert', recipient: user.email, mail, nowMs: now });
    }
    if (alert.endpoint_id !== null) {
      announceToEndpoint(context.db, {
        endpointId: alert.endpoint_id,
        workspaceId: site.workspace_id,
        type: alertTriggered,
        changeKey: firing,
        now,
        data: { alert_id: alert.id, site_id: site.id, kind: alert.kind, threshold: alert.threshold, visitors: facts.visitors, baseline: facts.baseline, window: { from: facts.windowStartIso, to: facts.windowEndIso } },
      });
    }
    return true;
  });
}

/**
 * One check of every rule at the clock's now; resolves with the rules that fired.
 * @example const fired = await checkAlerts(context, readModel, mailer, () => deliveries.wake());
 */
export async function checkAlerts(context: AppContext, readModel: ReadModel, mailer: Mailer, wakeDeliveries: () => void): Promise<string[]> {
  const fired: string[] = [];
  for (const alert of listAllAlerts(context.db)) {
    const now = context.clock.now();
    // Quiet within the hour: nothing to ask.
    if (alert.last_fired_at !== null && alert.last_fired_at > now - hourMs) continue;
    const site = findSite(context.db, alert.site_id);
    if (!site) continue;
    const facts = await evaluate(readModel, site, alert, now);
    if (!facts || !context.db.open) continue;
    if (fire(context, mailer, site, alert, facts, now)) fired.push(alert.id);
  }
  if (fired.length > 0) {
    mailer.outbox.wake();
    wakeDeliveries();
  }
  return fired;
}
