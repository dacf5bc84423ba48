// @ts-check
// A site's dashboard: period, comparison, filters as chips (all in the URL), summary cards, the chart (hours for a
// day), the ranked tables and custom properties. The panels' reports are read in one request (dashboard-v2: one
// scan of the raw events for every ranking when a filter needs them), whose parts each panel takes as the answer
// of its own report's path; a panel read again on its own (an annotation added, a goal created) asks its report.
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { schemaKey } from './api.js';
import { SummaryCards } from './cards.js';
import { VisitsChart } from './chart.js';
import { PageFlowPopover } from './page-flow.js';
import { EmailReports } from './email-reports.js';
import { hasScope } from './api.js';
import { PropsPanel } from './props-panel.js';
import { SnippetLine } from './site-settings.js';
import { session } from './api.js';
import { column, formatNumber, formatPercent, TablePanel } from './table.js';
import { preloadAnswers, useAnswer } from './use-answer.js';
import { api } from './api.js';
import { AnnotationStrip } from './annotations.js';
import { DetailsButton } from './details.js';
import { CountryLabel, MoneyLines, countryName, formatDuration, moneyText } from './format.js';
import { GoalsPanel } from './goals.js';
import { SegmentBar } from './segments.js';
import { SourceLabel } from './source-icon.js';
import { WorldMap } from './world-map.js';
import { compareModes, periods, rangeOf, reportQuery, updateView, view, windowOf } from './view-state.js';
/** @import { Answers, Column, ReportName, Site } from './types.js' */
/** @import { Range, View } from './view-state.js' */

/** @param {string} site @param {ReportName} report */
export const reportPath = (site, report) => `/v1/sites/${encodeURIComponent(site)}/reports/${report}`;
/**
 * @template {ReportName} Name
 * @param {Name} report
 */
export const reportSchema = (report) => schemaKey('GET', `/sites/{siteId}/reports/${report}`);
/**
 * The rows of a ranked report.
 * @template {{ data: { rows: unknown[] } }} Answer
 * @param {Answer} answer
 * @returns {Answer['data']['rows']}
 */
export const reportRows = (answer) => answer.data.rows;

/** @param {{ state: View, range: Range }} props */
export function PeriodPicker({ state, range }) {
  return html`<div class="period" role="group" aria-label="Period">
    <label class="visually-hidden" for="period">Period</label>
    <select id="period" value=${state.period} onChange=${onValue((period) => updateView({ period }))}>
      ${periods.map((period) => html`<option value=${period.id}>${period.label} (${period.key})</option>`)}
    </select>
    ${state.period === 'custom'
      ? html`<span class="custom-range">
          <label>From <input type="date" value=${state.from || range.from} max=${state.to || range.to} onChange=${onValue((from) => updateView({ from }))} /></label>
          <label>To <input type="date" value=${state.to || range.to} min=${state.from || range.from} onChange=${onValue((to) => updateView({ to }))} /></label>
        </span>`
      : html`<span class="range-text">${range.since ? `Since ${range.since.slice(0, 10)} ${range.since.slice(11, 16)} UTC` : range.from === range.to ? range.from : `${range.from} – ${range.to}`}</span>`}
    <label class="compare">Compare with (x)
      <select value=${state.compare} onChange=${onValue((compare) => updateView({ compare }))}>
        ${compareModes.map((mode) => html`<option value=${mode.id}>${mode.label}</option>`)}
      </select>
    </label>
  </div>`;
}

/** @param {{ filters: Record<string, string> }} props */
export function FilterChips({ filters }) {
  const entries = Object.entries(filters);
  if (entries.length === 0) return null;
  /** @param {string} name */
  const remove = (name) => {
    const next = { ...filters };
    delete next[name];
    updateView({ filters: next });
  };
  return html`<ul class="chips" aria-label="Filters">
    ${entries.map(
      ([name, value]) => html`<li class="chip">
        <span>${name} is ${value}</span>
        <button type="button" aria-label=${`Remove filter ${name}`} onClick=${() => remove(name)}>×</button>
      </li>`,
    )}
    ${entries.length > 1 ? html`<li><button type="button" class="link" onClick=${() => updateView({ filters: {} })}>Clear all</button></li>` : null}
  </ul>`;
}

/**
 * What a comparison compares, in words: a running period against the same part of the other one.
 * @param {{ from: string, to: string, partial: boolean, until: string | null, since?: string }} comparison
 * @param {string} label
 */
export function comparisonText(comparison, label) {
  // A rolling window: the one as long just before it (or a year earlier), as far as this one has run.
  const at = (/** @type {string} */ iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  if (comparison.since) return `Compared with ${at(comparison.since)} – ${comparison.until ? at(comparison.until) : comparison.to} UTC (${label.toLowerCase()}, the same length)`;
  const days = comparison.from === comparison.to ? comparison.from : `${comparison.from} – ${comparison.to}`;
  if (!comparison.partial || !comparison.until) return `Compared with ${days} (${label.toLowerCase()})`;
  return `Compared with ${days} until ${comparison.until.slice(11, 16)} UTC: the same part of the period, since this one is still running`;
}

/**
 * @param {{ site: string, range: Range, filters: Record<string, string>, compare: string, compareLabel: string,
 *   theme: string, siteInfo?: Site }} props
 *   compare: previous, year or off
 */
function Overview({ site, range, filters, compare, compareLabel, theme, siteInfo }) {
  // Read again after an annotation is added (its meta lists them).
  const [version, setVersion] = useState(0);
  /** @type {Record<string, string>} */
  const window = range.since ? { since: range.since } : {};
  const current = useAnswer(`${reportPath(site, 'summary-v2')}?${reportQuery(range, filters, compare === 'off' ? window : { ...window, compare })}${version ? `&_=${version}` : ''}`, reportSchema('summary-v2'));
  if (current.status === 'loading') return html`<section class="panel overview" aria-busy="true"><p class="state">Loading…</p></section>`;
  if (current.status === 'error') return html`<section class="panel overview"><p class="state error" role="alert">${current.error}</p></section>`;
  const shared = session.value?.kind === 'share';
  const data = current.data.data;
  const { warnings, comparison } = current.data.meta;
  const before = data.comparison;
  // A rolling window's series runs to the end of today: its points are the hours up to now (24 of them).
  const now = Date.now();
  const series = range.since ? data.series.filter((point) => Date.parse(point.date) <= now) : data.series;
  const previousSeries = before && range.since ? before.series.slice(0, series.length) : before?.series;
  return html`<section class="panel overview">
    <${SummaryCards} data=${data} previous=${before} previousLabel=${compareLabel} />
    ${comparison ? html`<p class="hint comparison-note">${comparisonText(comparison, compareLabel)}</p>` : null}
    ${data.events === 0 && data.visits === 0 ? html`<p class="state">No visits in this period yet.</p>` : null}
    ${data.events === 0 && data.visits === 0 && !shared ? html`<${SnippetLine} site=${siteInfo ?? { id: site, cookieless: true }} known=${siteInfo !== undefined} />` : null}
    <${VisitsChart} series=${series} interval=${current.data.meta.interval} previous=${previousSeries} previousLabel=${`Visitors, ${compareLabel.toLowerCase()}`} theme=${theme} />
    ${shared ? null : html`<${AnnotationStrip} site=${site} days=${[...new Set(series.map((point) => point.date.slice(0, 10)))]} annotations=${current.data.meta.annotations} onAdded=${() => setVersion(version + 1)} />`}
    ${warnings.length > 0 ? html`<ul class="warnings">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : null}
  </section>`;
}

/**
 * The columns of a report ranked by visits: the row's `key` (its label), visitors, visits and bounce rate.
 * @template {string} Key
 * @param {string} label
 * @param {Key} key
 * @returns {Column<Record<Key, string> & { visitors: number, visits: number, bounce_rate: number }>[]}
 */
const visitColumns = (label, key) => [
  // Countries by name and flag, sources with their avatar: the filter still takes the code or host.
  key === 'value' && label === 'Country'
    ? { label, value: (row) => row[key], text: (row) => countryName(row[key]), render: (row) => html`<${CountryLabel} code=${row[key]} />` }
    : key === 'source'
      ? { label, value: (row) => row[key], render: (row) => html`<${SourceLabel} source=${row[key]} />` }
      : column(label, (row) => row[key]),
  column('Visitors', (row) => row.visitors, formatNumber),
  column('Visits', (row) => row.visits, formatNumber),
  column('Bounce', (row) => row.bounce_rate, formatPercent),
];

/** @type {Column<Answers['GET /v1/sites/{siteId}/reports/pages-v2']['data']['rows'][number]>[]} */
const pageColumns = [
  column('Page', (row) => row.path),
  column('Visitors', (row) => row.visitors, formatNumber),
  column('Views', (row) => row.pageviews, formatNumber),
  column('Entries', (row) => row.entries, formatNumber),
  column('Exits', (row) => row.exits, formatNumber),
  column('Scroll', (row) => row.scroll_depth ?? null, (value) => (value === null ? '–' : `${Math.round(value)}%`)),
  column('Time', (row) => row.time_on_page_s ?? null, (value) => (value === null ? '–' : formatDuration(value))),
];

/** @type {Column<Answers['GET /v1/sites/{siteId}/reports/campaigns-v2']['data']['rows'][number]>[]} */
const campaignColumns = [
  column('Campaign', (row) => [row.utm_source, row.utm_medium, row.utm_campaign].map((part) => part ?? '–').join(' / ')),
  column('Visitors', (row) => row.visitors, formatNumber),
  column('Visits', (row) => row.visits, formatNumber),
  column('Conversions', (row) => row.conversions, formatNumber),
  // One line per currency: never "502.00 EUR, 319.00 USD" wrapped over four lines.
  { label: 'Revenue', value: (row) => row.revenue.map((money) => `${money.amount} ${money.currency}`).join('; '), text: (row) => moneyText(row.revenue), render: (row) => html`<${MoneyLines} list=${row.revenue} />` },
];

/**
 * The period keys (t, w, d, m, y, c) and x (the comparison), on every page with a period picker.
 */
export function usePeriodKeys() {
  useEffect(() => {
    /** @param {KeyboardEvent} event */
    const onKey = (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || (event.target instanceof Element && event.target.closest('input, select, textarea, [contenteditable]'))) return;
      const period = periods.find((item) => item.key === event.key);
      if (period) updateView({ period: period.id });
      // The view as it is now (keys pressed faster than a render read the current one, not this render's).
      else if (event.key === 'x') updateView({ compare: compareModes[(compareModes.findIndex((mode) => mode.id === view.value.compare) + 1) % compareModes.length]?.id });
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

/** The batched read the panels of the view shown last were preloaded from (a render of the same view reads nothing). */
let preloadedView = '';

/**
 * Reads every panel's report in one dashboard-v2 request and hands each panel its part, under the exact path the
 * panel asks for (use-answer.js). Called while rendering, so the answers are waiting before any panel's effect asks.
 * If the batch fails, each panel asks its own report (its own error then shows where it belongs).
 * @param {string} site @param {Range} range @param {Record<string, string>} filters @param {string} compare
 * @param {string} grouped
 */
function preloadDashboard(site, range, filters, compare, grouped) {
  const window = windowOf(range);
  const path = `${reportPath(site, 'dashboard-v2')}?${reportQuery(range, filters, { ...window, ...(compare === 'off' ? {} : { compare }), limit: 10, grouped })}`;
  if (path === preloadedView) return;
  preloadedView = path;
  const batch = api(path, { schema: reportSchema('dashboard-v2') });
  /** @type {[string, ReportName, (answer: Answers['GET /v1/sites/{siteId}/reports/dashboard-v2']) => unknown][]} */
  const parts = [
    [`${reportPath(site, 'summary-v2')}?${reportQuery(range, filters, compare === 'off' ? window : { ...window, compare })}`, 'summary-v2', (answer) => answer.data.summary],
    [`${reportPath(site, 'pages-v2')}?${reportQuery(range, filters, { limit: 10, ...window })}`, 'pages-v2', (answer) => answer.data.pages],
    [`${reportPath(site, 'sources-v2')}?${reportQuery(range, filters, { limit: 10, grouped, ...window })}`, 'sources-v2', (answer) => answer.data.sources],
    [`${reportPath(site, 'campaigns-v2')}?${reportQuery(range, filters, { limit: 10, ...window })}`, 'campaigns-v2', (answer) => answer.data.campaigns],
    [`${reportPath(site, 'goals-v2')}?${reportQuery(range, filters, { v: 0, ...window })}`, 'goals-v2', (answer) => answer.data.goals],
    [`${reportPath(site, 'breakdown-v2')}?${reportQuery(range, filters, { by: 'country', limit: 10, ...window })}`, 'breakdown-v2', (answer) => answer.data.countries],
    [`${reportPath(site, 'breakdown-v2')}?${reportQuery(range, filters, { by: 'device', limit: 10, ...window })}`, 'breakdown-v2', (answer) => answer.data.devices],
    [`${reportPath(site, 'breakdown-v2')}?${reportQuery(range, filters, { by: 'browser', limit: 10, ...window })}`, 'breakdown-v2', (answer) => answer.data.browsers],
    [`${reportPath(site, 'breakdown-v2')}?${reportQuery(range, filters, { by: 'os', limit: 10, ...window })}`, 'breakdown-v2', (answer) => answer.data.operating_systems],
    [`${reportPath(site, 'breakdown-v2')}?${reportQuery(range, filters, { by: 'country', limit: 200, ...window })}`, 'breakdown-v2', (answer) => answer.data.map],
  ];
  preloadAnswers(new Map(parts.map(([part, report, pick]) => [part, batch.then(pick, () => api(part, { schema: reportSchema(report) }))])));
}

/**
 * siteInfo: the listed site, when the session can read it.
 * @param {{ state: View, theme: string, siteInfo?: Site }} props
 */
export function Dashboard({ state, theme, siteInfo }) {
  const { site, filters } = state;
  const range = rangeOf(state);
  /** @param {string} name @param {string} value */
  const onFilter = (name, value) => updateView({ filters: { ...filters, [name]: value } });
  usePeriodKeys();
  /** @param {Record<string, string | number>} [extra] */
  const query = (extra) => reportQuery(range, filters, { ...extra, ...windowOf(range) });
  const shared = session.value?.kind === 'share';
  // Sources by group (Google, Twitter: docs/reports.md); filtered by a source, its own sources (a group's members).
  const sourcesGrouped = filters.source ? 'false' : 'true';
  // The page whose flow is shown (from a row of Pages); page flow is not shared.
  const [flowPath, setFlowPath] = useState('');
  preloadDashboard(site, range, filters, state.compare, sourcesGrouped);
  // Left and opened again (another page changed goals, say): the same view is read again, in one batch.
  useEffect(() => () => {
    preloadedView = '';
  }, []);
  /** @param {string} by @param {string} title @param {string} label */
  const breakdown = (by, title, label) => html`<${TablePanel}
    title=${title}
    path=${`${reportPath(site, 'breakdown-v2')}?${query({ by, limit: 10 })}`}
    schema=${reportSchema('breakdown-v2')}
    rowsOf=${reportRows}
    columns=${visitColumns(label, 'value')}
    filter=${by}
    onFilter=${onFilter}
    details=${html`<${DetailsButton} title=${title} path=${`${reportPath(site, 'breakdown-v2')}?${query({ by })}`} schema=${reportSchema('breakdown-v2')} rowsOf=${reportRows} columns=${visitColumns(label, 'value')} />`}
  />`;
  return html`<div class="dashboard">
    <${PeriodPicker} state=${state} range=${range} />
    <div class="filter-bar">
      <${FilterChips} filters=${filters} />
      ${shared ? null : html`<${SegmentBar} site=${site} filters=${filters} onApply=${(/** @type {Record<string, string>} */ next) => updateView({ filters: next })} />`}
    </div>
    <${Overview} site=${site} range=${range} filters=${filters} compare=${state.compare} compareLabel=${compareModes.find((mode) => mode.id === state.compare)?.label ?? ''} theme=${theme} siteInfo=${siteInfo} />
    <div class="grid">
      <${TablePanel}
        title="Pages"
        path=${`${reportPath(site, 'pages-v2')}?${query({ limit: 10 })}`}
        schema=${reportSchema('pages-v2')}
        rowsOf=${reportRows}
        columns=${pageColumns}
        filter="path"
        onFilter=${onFilter}
        rowAction=${shared ? undefined : { label: 'Flow', describe: (/** @type {{ path: string }} */ row) => `Flow of ${row.path}`, act: (/** @type {{ path: string }} */ row) => setFlowPath(row.path) }}
        details=${html`<${DetailsButton} title="Pages" path=${`${reportPath(site, 'pages-v2')}?${query()}`} schema=${reportSchema('pages-v2')} rowsOf=${reportRows} columns=${pageColumns} />`}
      />
      ${flowPath && !shared
        ? html`<section class="panel"><${PageFlowPopover} site=${site} range=${range} filters=${filters} path=${flowPath} onClose=${() => setFlowPath('')} /></section>`
        : null}
      <${TablePanel}
        title="Sources"
        path=${`${reportPath(site, 'sources-v2')}?${query({ limit: 10, grouped: sourcesGrouped })}`}
        schema=${reportSchema('sources-v2')}
        rowsOf=${reportRows}
        columns=${visitColumns('Source', 'source')}
        filter="source"
        onFilter=${onFilter}
        details=${html`<${DetailsButton} title="Sources" path=${`${reportPath(site, 'sources-v2')}?${query({ grouped: sourcesGrouped })}`} schema=${reportSchema('sources-v2')} rowsOf=${reportRows} columns=${visitColumns('Source', 'source')} />`}
      />
      <${TablePanel}
        title="Campaigns"
        path=${`${reportPath(site, 'campaigns-v2')}?${query({ limit: 10 })}`}
        schema=${reportSchema('campaigns-v2')}
        rowsOf=${reportRows}
        columns=${campaignColumns}
        details=${html`<${DetailsButton} title="Campaigns" path=${`${reportPath(site, 'campaigns-v2')}?${query()}`} schema=${reportSchema('campaigns-v2')} rowsOf=${reportRows} columns=${campaignColumns} />`}
      />
      <${GoalsPanel} site=${site} range=${range} filters=${filters} onFilter=${onFilter} version=${0} />
      ${breakdown('country', 'Countries', 'Country')}
      <${WorldMap} site=${site} range=${range} filters=${filters} onFilter=${onFilter} />
      ${breakdown('device', 'Devices', 'Device')}
      ${breakdown('browser', 'Browsers', 'Browser')}
      ${breakdown('os', 'Operating systems', 'Operating system')}
      <${PropsPanel} site=${site} range=${range} filters=${filters} />
    </div>
    ${session.value?.kind === 'user' && !hasScope('admin') ? html`<${YourEmailReports} site=${site} />` : null}
  </div>`;
}

/**
 * A member who cannot open Settings subscribes here. Asked for on a click only: without SMTP the subscriptions'
 * read is a 409 (shown in the panel then), not a failed request on every dashboard.
 * @param {{ site: string }} props
 */
function YourEmailReports({ site }) {
  const [open, setOpen] = useState(false);
  return html`<section class="panel"><header class="panel-head"><h2>Your e-mail reports</h2></header>
    ${open ? html`<${EmailReports} siteId=${site} />` : html`<button type="button" class="link" onClick=${() => setOpen(true)}>Manage your e-mail reports</button>`}
  </section>`;
}
