// The one-click unsubscribe of a report mail (RFC 8058): GET /v1/email-reports/unsubscribe?token= shows a small page
// with one button, POST (a mail client's one-click, or the button) removes the subscription. No session: the token
// is the credential (mail/signed-links.ts); a token that does not verify is 404. Unsubscribing twice is no error.
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { confirmUnsubscribePage, unsubscribedPage } from '../mail/mail-pages.ts';
import { verifyLinkToken } from '../mail/signed-links.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { unsubscribePurpose } from './compose-report.ts';
import { deleteSubscription, findSubscription } from './queries/subscription-rows.ts';

function subscriptionIdOf(context: AppContext, token: string | undefined): string {
  const id = token === undefined ? undefined : verifyLinkToken(context, unsubscribePurpose, token);
  if (id === undefined) throw ApiError.notFound('This unsubscribe link is not valid');
  return id;
}

/** GET: the confirmation page (a link preview or a scanner following the link unsubscribes no one). */
export function unsubscribePage(context: AppContext, token: string | undefined): Response {
  const subscription = findSubscription(context.db, subscriptionIdOf(context, token));
  if (!subscription) return unsubscribedPage('This report');
  const site = findSite(context.db, subscription.site_id);
  return confirmUnsubscribePage(`the ${subscription.frequency} report of ${site?.name ?? subscription.site_id}`, token!);
}

/** POST: removes the subscription (already removed: the same answer). */
export function unsubscribeNow(context: AppContext, token: string | undefined): Response {
  const id = subscriptionIdOf(context, token);
  inWriteTransaction(context.db, () => deleteSubscription(context.db, id));
  return unsubscribedPage('This report');
}
