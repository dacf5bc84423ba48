// An alert as a mail: what happened in one sentence, the figures behind it, a link to the dashboard, and the
// one-click unsubscribe (RFC 8058) that takes the recipient off this rule.
import { escapeHtml, mailDocument, mailStyles } from '../mail/mail-html.ts';
import type { AlertKind } from './queries/alert-rows.ts';

export interface AlertFacts {
  kind: AlertKind;
  siteName: string;
  threshold: number;
  /** Visitors in the hour before the check, and in the same hour a week earlier (drops). */
  visitors: number;
  baseline: number | null;
  windowStartIso: string;
  windowEndIso: string;
}

export function alertSentence(facts: AlertFacts): string {
  return facts.kind === 'traffic_spike'
    ? `Traffic spike on ${facts.siteName}: ${facts.visitors} visitors in the last hour (threshold ${facts.threshold})`
    : `Traffic drop on ${facts.siteName}: ${facts.visitors} visitors in the last hour, against ${facts.baseline} in the same hour last week (alert at ${facts.threshold}% below)`;
}

export function renderAlertMail(facts: AlertFacts, links: { dashboardUrl: string; unsubscribeUrl: string }): { subject: string; text: string; html: string; headers: Record<string, string> } {
  const sentence = alertSentence(facts);
  const window = `${facts.windowStartIso} to ${facts.windowEndIso} (UTC)`;
  const text = [sentence, '', `Hour: ${window}`, `Dashboard: ${links.dashboardUrl}`, `Stop these alerts: ${links.unsubscribeUrl}`].join('\n');
  const content = [
    `<h1 style="${mailStyles.heading}">${escapeHtml(facts.kind === 'traffic_spike' ? 'Traffic spike' : 'Traffic drop')}</h1>`,
    `<p style="margin:8px 0;font-size:14px;">${escapeHtml(sentence)}</p>`,
    `<p style="${mailStyles.muted}">${escapeHtml(window)}</p>`,
    `<p style="margin-top:16px;font-size:14px;"><a href="${escapeHtml(links.dashboardUrl)}" style="${mailStyles.link}">Open the dashboard</a></p>`,
  ].join('\n');
  const footer = `You receive this because an admin of ${escapeHtml(facts.siteName)} named you in an alert. <a href="${escapeHtml(links.unsubscribeUrl)}" style="${mailStyles.link}">Stop these alerts</a>`;
  return {
    subject: sentence,
    text,
    html: mailDocument({ title: sentence, content, footer }),
    headers: { 'List-Unsubscribe': `<${links.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
