// The one-click "stop these alerts" of an alert mail (RFC 8058), at /v1/alerts/unsubscribe?token=: GET shows the
// confirmation page, POST takes the recipient off the rule. The token (signed for the rule and the user) is the
// credential; one that does not verify is 404.
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { confirmUnsubscribePage, unsubscribedPage } from '../mail/mail-pages.ts';
import { verifyLinkToken } from '../mail/signed-links.ts';
import { alertUnsubscribePurpose } from './check-alerts.ts';
import { findAlertById, setAlertRecipients } from './queries/alert-rows.ts';

function subjectOf(context: AppContext, token: string | undefined): { alertId: string; userId: string } {
  const subject = token === undefined ? undefined : verifyLinkToken(context, alertUnsubscribePurpose, token);
  const [alertId, userId] = subject?.split(':') ?? [];
  if (!alertId || !userId) throw ApiError.notFound('This unsubscribe link is not valid');
  return { alertId, userId };
}

export function alertUnsubscribePage(context: AppContext, token: string | undefined): Response {
  const { alertId, userId } = subjectOf(context, token);
  const alert = findAlertById(context.db, alertId);
  if (!alert || !(JSON.parse(alert.recipients) as string[]).includes(userId)) return unsubscribedPage('This alert');
  return confirmUnsubscribePage(`this ${alert.kind === 'traffic_spike' ? 'traffic spike' : 'traffic drop'} alert`, token!);
}

export function alertUnsubscribeNow(context: AppContext, token: string | undefined): Response {
  const { alertId, userId } = subjectOf(context, token);
  inWriteTransaction(context.db, () => {
    const alert = findAlertById(context.db, alertId);
    if (alert) setAlertRecipients(context.db, alertId, JSON.stringify((JSON.parse(alert.recipients) as string[]).filter((id) => id !== userId)));
  });
  return unsubscribedPage('This alert');
}
