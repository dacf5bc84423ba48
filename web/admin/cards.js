// @ts-check
// The summary cards: each measure of the period, and its change from the previous period (when comparing).
import { html } from './html.js';
import { formatNumber, formatPercent } from './table.js';
/** @import { SummaryData } from './types.js' */

/** @param {number} seconds */
const formatDuration = (seconds) => {
  const whole = Math.round(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
};

/**
 * @type {{ key: 'visitors' | 'visits' | 'pageviews' | 'views_per_visit' | 'bounce_rate' | 'avg_visit_duration_s',
 *   label: string, format: (value: number) => string, lowerIsBetter?: boolean }[]}
 */
export const cardMeasures = [
  { key: 'visitors', label: 'Visitors', format: formatNumber },
  { key: 'visits', label: 'Visits', format: formatNumber },
  { key: 'pageviews', label: 'Pageviews', format: formatNumber },
  { key: 'views_per_visit', label: 'Views per visit', format: (value) => value.toFixed(2) },
  { key: 'bounce_rate', label: 'Bounce rate', format: formatPercent, lowerIsBetter: true },
  { key: 'avg_visit_duration_s', label: 'Visit duration', format: formatDuration },
];

/** @param {{ current: number, previous: number, lowerIsBetter?: boolean, label: string }} props */
function Delta({ current, previous, lowerIsBetter, label }) {
  if (previous === 0) return html`<span class="delta none" title=${`No data in the comparison (${label.toLowerCase()})`}>—</span>`;
  // Rounded first: a change that shows as 0% is flat, never "−0%" in red.
  const percent = Math.round(((current - previous) / previous) * 100);
  const better = lowerIsBetter ? percent < 0 : percent > 0;
  const tone = percent === 0 ? 'flat' : better ? 'up' : 'down';
  const sign = percent > 0 ? '+' : percent < 0 ? '−' : '';
  return html`<span class=${`delta ${tone}`} title=${`Change from: ${label.toLowerCase()}`}>${sign}${Math.abs(percent)}%</span>`;
}

/** @param {{ data: SummaryData, previous?: SummaryData, previousLabel: string }} props */
export function SummaryCards({ data, previous, previousLabel }) {
  return html`<div class="cards">
    ${cardMeasures.map(
      (measure) => html`<div class="card" data-measure=${measure.key}>
        <div class="card-label">${measure.label}</div>
        <div class="card-value">${measure.format(data[measure.key])}</div>
        ${previous ? html`<${Delta} current=${data[measure.key]} previous=${previous[measure.key]} lowerIsBetter=${measure.lowerIsBetter} label=${previousLabel} />` : null}
      </div>`,
    )}
  </div>`;
}
