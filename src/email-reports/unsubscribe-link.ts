// The one-click unsubscribe of a report mail (RFC 8058): GET /v1/email-reports/unsubscribe?token= shows a small page
// with one button, POST (a mail client's one-click, or the button) removes the subscription. No session: the token
// is the credential (mail/signed-links.ts); a token that does not verify is 404. Unsubscribing twice is no error.
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { escapeHtml, mailDocument, mailStyles } from '../mail/mail-html.ts';
import { verifyLinkToken } from '../mail/signed-links.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { unsubscribePurpose } from './compose-report.ts';
import { deleteSubscription, findSubscription } from './queries/subscription-rows.ts';

// The page is ours alone: no script, no remote anything; its one form posts back here.
const pageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

function subscriptionIdOf(context: AppContext, token: string | undefined): string {
  const id = token === undefined ? undefined : verifyLinkToken(context, unsubscribePurpose, token);
  if (id === undefined) throw ApiError.notFound('This unsubscribe link is not valid');
  return id;
}

function page(title: string, content: string): Response {
  return new Response(mailDocument({ title, content, footer: 'Sightline' }), { status: 200, headers: pageHeaders });
}

/** GET: the confirmation page (a link preview or a scanner following the link unsubscribes no one). */
export function unsubscribePage(context: AppContext, token: string | undefined): Response {
  const id = subscriptionIdOf(context, token);
  const subscription = findSubscription(context.db, id);
  if (!subscription) return page('Unsubscribed', `<h1 style="${mailStyles.heading}">You are unsubscribed</h1><p style="${mailStyles.muted}">This report is no longer sent to you.</p>`);
  const site = findSite(context.db, subscription.site_id);
  const what = `the ${subscription.frequency} report of ${site?.name ?? subscription.site_id}`;
  return page(
    'Unsubscribe',
    `<h1 style="${mailStyles.heading}">Unsubscribe?</h1><p style="margin:8px 0 16px 0;font-size:14px;">Stop receiving ${escapeHtml(what)}.</p>` +
      `<form method="post" action="?token=${escapeHtml(encodeURIComponent(token!))}"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
      `<button type="submit" style="padding:8px 16px;font-size:14px;border:1px solid #1f2933;border-radius:4px;background:#1f2933;color:#ffffff;">Unsubscribe</button></form>`,
  );
}

/** POST: removes the subscription (already removed: the same answer). */
export function unsubscribeNow(context: AppContext, token: string | undefined): Response {
  const id = subscriptionIdOf(context, token);
  inWriteTransaction(context.db, () => deleteSubscription(context.db, id));
  return page('Unsubscribed', `<h1 style="${mailStyles.heading}">You are unsubscribed</h1><p style="${mailStyles.muted}">This report is no longer sent to you.</p>`);
}
