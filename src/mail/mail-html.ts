// The HTML of every mail: escaped text in a table layout with inline styles only (no <style>, no remote images, no
// scripts), which the common clients (Gmail, Outlook, Apple Mail) render alike.

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** @example escapeHtml('<b>') // '&lt;b&gt;' */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char]!);
}

export const mailStyles = {
  body: 'margin:0;padding:0;background:#f4f5f7;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2933;',
  card: 'max-width:600px;margin:0 auto;background:#ffffff;border:1px solid #e4e7eb;border-radius:6px;',
  heading: 'margin:0 0 4px 0;font-size:20px;font-weight:600;color:#1f2933;',
  muted: 'margin:0;font-size:13px;color:#616e7c;',
  sectionTitle: 'margin:24px 0 8px 0;font-size:15px;font-weight:600;color:#1f2933;',
  cell: 'padding:6px 8px;border-bottom:1px solid #e4e7eb;font-size:14px;',
  number: 'padding:6px 8px;border-bottom:1px solid #e4e7eb;font-size:14px;text-align:right;white-space:nowrap;',
  link: 'color:#2563eb;',
} as const;

/**
 * A whole document around `content` (already escaped HTML), with a footer line.
 * @example mailDocument({ title: 'Weekly report', content: '<p>…</p>', footer: '<a href="…">Unsubscribe</a>' })
 */
export function mailDocument(parts: { title: string; content: string; footer: string }): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(parts.title)}</title></head>`,
    `<body style="${mailStyles.body}">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="padding:24px 12px;"><tr><td>`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="${mailStyles.card}"><tr><td style="padding:24px;">`,
    parts.content,
    `</td></tr></table>`,
    `<p style="max-width:600px;margin:12px auto;font-size:12px;color:#616e7c;text-align:center;">${parts.footer}</p>`,
    '</td></tr></table></body></html>',
  ].join('\n');
}
