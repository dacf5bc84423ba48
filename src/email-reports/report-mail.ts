// A report as a mail: a subject, a plain-text part, an HTML part (inline styles, no remote images, every value
// escaped) and the RFC 8058 one-click unsubscribe headers pointing at a signed link that works without signing in.
import { escapeHtml, mailDocument, mailStyles } from '../mail/mail-html.ts';
import { toDateText } from '../vocabulary/periods.ts';
import type { Measure, ReportFigures } from './report-figures.ts';
import type { ReportPeriod } from './report-periods.ts';

export interface ReportMail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

const headline: { key: 'visitors' | 'pageviews' | 'bounce_rate' | 'avg_visit_duration_s'; label: string; show: (value: number) => string }[] = [
  { key: 'visitors', label: 'Visitors', show: (value) => value.toLocaleString('en-US') },
  { key: 'pageviews', label: 'Pageviews', show: (value) => value.toLocaleString('en-US') },
  { key: 'bounce_rate', label: 'Bounce rate', show: (value) => `${Math.round(value * 1000) / 10}%` },
  { key: 'avg_visit_duration_s', label: 'Visit duration', show: formatDuration },
];

function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  return whole < 60 ? `${whole}s` : `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s`;
}

function formatChange(measure: Measure): string {
  if (measure.change === null) return 'new';
  const percent = Math.round(measure.change * 1000) / 10;
  return `${percent > 0 ? '+' : ''}${percent}%`;
}

/**
 * @example renderReportMail({ siteName, period, figures, unsubscribeUrl, dashboardUrl, test: false })
 */
export function renderReportMail(input: { siteName: string; period: ReportPeriod; figures: ReportFigures; unsubscribeUrl: string | undefined; dashboardUrl: string; test: boolean }): ReportMail {
  const { siteName, period, figures } = input;
  const kind = period.frequency === 'weekly' ? 'Weekly' : 'Monthly';
  const span = `${toDateText(period.range.fromDay)} to ${toDateText(period.range.toDay)}`;
  const subject = `${input.test ? '[Test] ' : ''}${kind} report for ${siteName}: ${span}`;
  const previous = `${toDateText(period.previous.fromDay)} to ${toDateText(period.previous.toDay)}`;

  const text = [
    `${kind} report for ${siteName}`,
    `${span} (UTC), compared with ${previous}`,
    '',
    ...headline.map(({ key, label, show }) => `${label}: ${show(figures[key].current)} (${formatChange(figures[key])}; before: ${show(figures[key].previous)})`),
    ...figures.sections.flatMap((section) => [
      '',
      `${section.title} (${section.columns[1]}, ${section.columns[2]})`,
      ...(section.rows.length === 0 ? ['  none'] : section.rows.map((row) => `  ${row.label}: ${row.figures[0].toLocaleString('en-US')}, ${row.figures[1].toLocaleString('en-US')}`)),
    ]),
    '',
    `Dashboard: ${input.dashboardUrl}`,
    ...(input.unsubscribeUrl === undefined ? [] : [`Unsubscribe: ${input.unsubscribeUrl}`]),
  ].join('\n');

  const cells = headline
    .map(
      ({ key, label, show }) =>
        `<td style="padding:8px;vertical-align:top;"><p style="${mailStyles.muted}">${label}</p>` +
        `<p style="margin:2px 0;font-size:20px;font-weight:600;">${escapeHtml(show(figures[key].current))}</p>` +
        `<p style="${mailStyles.muted}">${escapeHtml(formatChange(figures[key]))}</p></td>`,
    )
    .join('');
  const sections = figures.sections
    .map((section) => {
      const head = `<tr><th align="left" style="${mailStyles.cell}">${escapeHtml(section.columns[0])}</th><th align="right" style="${mailStyles.number}">${escapeHtml(section.columns[1])}</th><th align="right" style="${mailStyles.number}">${escapeHtml(section.columns[2])}</th></tr>`;
      const rows =
        section.rows.length === 0
          ? `<tr><td colspan="3" style="${mailStyles.cell}">none</td></tr>`
          : section.rows
              .map((row) => `<tr><td style="${mailStyles.cell}">${escapeHtml(row.label)}</td><td style="${mailStyles.number}">${row.figures[0].toLocaleString('en-US')}</td><td style="${mailStyles.number}">${row.figures[1].toLocaleString('en-US')}</td></tr>`)
              .join('');
      return `<h2 style="${mailStyles.sectionTitle}">${escapeHtml(section.title)}</h2><table role="presentation" width="100%" cellpadding="0" cellspacing="0">${head}${rows}</table>`;
    })
    .join('\n');
  const content = [
    `<h1 style="${mailStyles.heading}">${escapeHtml(`${kind} report for ${siteName}`)}</h1>`,
    `<p style="${mailStyles.muted}">${escapeHtml(`${span} (UTC), compared with ${previous}`)}</p>`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="margin-top:16px;"><tr>${cells}</tr></table>`,
    sections,
    `<p style="margin-top:24px;font-size:14px;"><a href="${escapeHtml(input.dashboardUrl)}" style="${mailStyles.link}">Open the dashboard</a></p>`,
  ].join('\n');
  const footer =
    input.unsubscribeUrl === undefined
      ? `Sent once by the operator of this Sightline server; you are not subscribed to anything.`
      : `You receive this because you subscribed to ${escapeHtml(siteName)}'s ${kind.toLowerCase()} report. <a href="${escapeHtml(input.unsubscribeUrl)}" style="${mailStyles.link}">Unsubscribe</a>`;
  return {
    subject,
    text,
    html: mailDocument({ title: subject, content, footer }),
    // RFC 8058: a client's "unsubscribe" button POSTs List-Unsubscribe=One-Click to the link, no sign-in needed.
    headers: input.unsubscribeUrl === undefined ? {} : { 'List-Unsubscribe': `<${input.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
