// The small pages a mail's link opens without signing in (the unsubscribe confirmation): the mail's own inline-styled
// layout, under a policy that allows no script and no remote anything, and forms that post only back here.
import { escapeHtml, mailDocument, mailStyles } from './mail-html.ts';

const pageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

function page(title: string, content: string): Response {
  return new Response(mailDocument({ title, content, footer: 'Sightline' }), { status: 200, headers: pageHeaders });
}

/** "Unsubscribe?" with one button that POSTs the RFC 8058 body back to the same link. */
export function confirmUnsubscribePage(what: string, token: string): Response {
  return page(
    'Unsubscribe',
    `<h1 style="${mailStyles.heading}">Unsubscribe?</h1><p style="margin:8px 0 16px 0;font-size:14px;">Stop receiving ${escapeHtml(what)}.</p>` +
      `<form method="post" action="?token=${escapeHtml(encodeURIComponent(token))}"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
      `<button type="submit" style="padding:8px 16px;font-size:14px;border:1px solid #1f2933;border-radius:4px;background:#1f2933;color:#ffffff;">Unsubscribe</button></form>`,
  );
}

export function unsubscribedPage(what: string): Response {
  return page('Unsubscribed', `<h1 style="${mailStyles.heading}">You are unsubscribed</h1><p style="${mailStyles.muted}">${escapeHtml(what)} is no longer sent to you.</p>`);
}
