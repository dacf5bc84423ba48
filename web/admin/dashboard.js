// @ts-check
// A site's dashboard: period, comparison, filters as chips (all in the URL), summary cards, the chart, the ranked
// tables, custom properties and the realtime panel.
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { schemaKey } from './api.js';
import { SummaryCards } from './cards.js';
import { ConsentPanel } from './consent.js';
import { VisitsChart } from './chart.js';
import { DlqPanel } from './dlq.js';
import { EventsSection } from './events.js';
import { FunnelPanel } from './funnel.js';
import { JourneysPanel } from './journeys.js';
import { PageFlowPopover } from './page-flow.js';
import { RetentionPanel } from './retention.js';
import { PropsPanel } from './props-panel.js';
import { RealtimePanel } from './realtime.js';
import { SharePanel } from './share-panel.js';
import { SnippetLine } from './site-settings.js';
import { hasScope, session } from './api.js';
import { column, formatNumber, formatPercent, TablePanel } from './table.js';
import { useAnswer } from './use-answer.js';
import { AnnotationStrip } from './annotations.js';
import { DetailsButton } from './details.js';
import { CountryLabel, MoneyLines, countryName, formatDuration, moneyText } from './format.js';
import { GoalSettings, GoalsPanel } from './goals.js';
import { SegmentBar } from './segments.js';
import { SourceLabel } from './source-icon.js';
import { WorldMap } from './world-map.js';
import { compareModes, periods, rangeOf, reportQuery, updateView, view } from './view-state.js';
/** @import { Answers, Column, ReportName, Site, WorkspaceRef } from './types.js' */
/** @import { Range, View } from './view-state.js' */

/** @param {string} site @param {ReportName} report */
const reportPath = (site, report) => `/v1/sites/${encodeURIComponent(site)}/reports/${report}`;
/**
 * @template {ReportName} Name
 * @param {Name} report
 */
const reportSchema = (report) => schemaKey('GET', `/sites/{siteId}/reports/${report}`);
/**
 * The rows of a ranked report.
 * @template {{ data: { rows: unknown[] } }} Answer
 * @param {Answer} answer
 * @returns {Answer['data']['rows']}
 */
const reportRows = (answer) => answer.data.rows;

/** @param {{ state: View, range: Range }} props */
function PeriodPicker({ state, range }) {
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
      : html`<span class="range-text">${range.from === range.to ? range.from : `${range.from} – ${range.to}`}</span>`}
    <label class="compare">Compare with (x)
      <select value=${state.compare} onChange=${onValue((compare) => updateView({ compare }))}>
        ${compareModes.map((mode) => html`<option value=${mode.id}>${mode.label}</option>`)}
      </select>
    </label>
  </div>`;
}

/** @param {{ filters: Record<string, string> }} props */
function FilterChips({ filters }) {
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
 * @param {{ site: string, range: Range, filters: Record<string, string>, compare: boolean, compareLabel: string,
 *   theme: string, siteInfo?: Site }} props
 */
function Overview({ site, range, filters, compare, compareLabel, theme, siteInfo }) {
  // Read again after an annotation is added (its meta lists them).
  const [version, setVersion] = useState(0);
  const current = useAnswer(`${reportPath(site, 'summary-v2')}?${reportQuery(range, filters)}${version ? `&_=${version}` : ''}`, reportSchema('summary-v2'));
  const previous = useAnswer(compare ? `${reportPath(site, 'summary-v2')}?${reportQuery(range.previous, filters)}` : '', reportSchema('summary-v2'));
  if (current.status === 'loading') return html`<section class="panel overview"><p class="state">Loading…</p></section>`;
  if (current.status === 'error') return html`<section class="panel overview"><p class="state error" role="alert">${current.error}</p></section>`;
  if (compare && previous.status === 'error') return html`<section class="panel overview"><p class="state error" role="alert">${previous.error}</p></section>`;
  const before = compare && previous.status === 'ready' ? previous.data.data : undefined;
  const shared = session.value?.kind === 'share';
  const data = current.data.data;
  const warnings = current.data.meta.warnings;
  return html`<section class="panel overview">
    <${SummaryCards} data=${data} previous=${before} previousLabel=${compareLabel} />
    ${data.events === 0 && data.visits === 0 ? html`<p class="state">No visits in this period yet.</p>` : null}
    ${data.events === 0 && data.visits === 0 && !shared ? html`<${SnippetLine} site=${siteInfo ?? { id: site, cookieless: true }} known=${siteInfo !== undefined} />` : null}
    <${VisitsChart} series=${data.series} previous=${before?.series} previousLabel=${`Visitors, ${compareLabel.toLowerCase()}`} theme=${theme} />
    ${shared ? null : html`<${AnnotationStrip} site=${site} days=${data.series.map((day) => day.date)} annotations=${current.data.meta.annotations} onAdded=${() => setVersion(version + 1)} />`}
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
 * workspace: the site's, when the session can see it (the funnel and consent panels need it); siteInfo: the listed
 * site, when the session can read it.
 * @param {{ state: View, theme: string, workspace?: WorkspaceRef | null, siteInfo?: Site }} props
 */
export function Dashboard({ state, theme, workspace, siteInfo }) {
  const { site, filters } = state;
  const compare = state.compare !== 'off';
  const range = rangeOf(state);
  /** @param {string} name @param {string} value */
  const onFilter = (name, value) => updateView({ filters: { ...filters, [name]: value } });
  // A shared dashboard reads the reports alone: no stream, no share links.
  const kind = session.value?.kind;
  const shared = kind === 'share';
  const canShare = hasScope('admin');
  // A viewer (a person's role) reads the reports only: no stream, no events, no funnels.
  const readsBeyondReports = !shared && hasScope('query:read');
  // The page whose flow is shown (from a row of Pages); journeys, page flow and retention are not shared.
  const [flowPath, setFlowPath] = useState('');
  // The Goals panel reads goals-v2 again after the settings change a goal.
  const [goalsVersion, setGoalsVersion] = useState(0);
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
  /** @param {Record<string, string | number>} [extra] */
  const query = (extra) => reportQuery(range, filters, extra);
  // The events endpoints refuse goal= (a V2 report's filter): they get the other filters.
  const { goal: _goal, ...eventFilters } = filters;
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
    <${Overview} site=${site} range=${range} filters=${filters} compare=${compare} compareLabel=${compareModes.find((mode) => mode.id === state.compare)?.label ?? ''} theme=${theme} siteInfo=${siteInfo} />
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
        path=${`${reportPath(site, 'sources-v2')}?${query({ limit: 10 })}`}
        schema=${reportSchema('sources-v2')}
        rowsOf=${reportRows}
        columns=${visitColumns('Source', 'source')}
        filter="source"
        onFilter=${onFilter}
        details=${html`<${DetailsButton} title="Sources" path=${`${reportPath(site, 'sources-v2')}?${query()}`} schema=${reportSchema('sources-v2')} rowsOf=${reportRows} columns=${visitColumns('Source', 'source')} />`}
      />
      <${TablePanel}
        title="Campaigns"
        path=${`${reportPath(site, 'campaigns-v2')}?${query({ limit: 10 })}`}
        schema=${reportSchema('campaigns-v2')}
        rowsOf=${reportRows}
        columns=${campaignColumns}
        details=${html`<${DetailsButton} title="Campaigns" path=${`${reportPath(site, 'campaigns-v2')}?${query()}`} schema=${reportSchema('campaigns-v2')} rowsOf=${reportRows} columns=${campaignColumns} />`}
      />
      <${GoalsPanel} site=${site} range=${range} filters=${filters} onFilter=${onFilter} version=${goalsVersion} />
      ${breakdown('country', 'Countries', 'Country')}
      <${WorldMap} site=${site} range=${range} filters=${filters} onFilter=${onFilter} />
      ${breakdown('device', 'Devices', 'Device')}
      ${breakdown('browser', 'Browsers', 'Browser')}
      ${breakdown('os', 'Operating systems', 'Operating system')}
      <${PropsPanel} site=${site} range=${range} filters=${filters} />
      ${readsBeyondReports ? html`<${RealtimePanel} site=${site} />` : null}
      ${canShare ? html`<${SharePanel} site=${site} />` : null}
      ${canShare ? html`<${DlqPanel} site=${site} />` : null}
    </div>
    ${shared ? null : html`<${GoalSettings} site=${site} range=${range} onChanged=${() => setGoalsVersion(goalsVersion + 1)} />`}
    ${!readsBeyondReports || !workspace ? null : html`<${FunnelPanel} site=${site} workspace=${workspace} range=${range} filters=${filters} />`}
    ${shared ? null : html`<div class="grid"><${JourneysPanel} site=${site} range=${range} filters=${filters} /><${RetentionPanel} site=${site} range=${range} /></div>`}
    ${readsBeyondReports ? html`<${EventsSection} site=${site} range=${range} filters=${eventFilters} />` : null}
    ${!readsBeyondReports || !filters.goal ? null : html`<p class="hint">The events below are not filtered by the goal (the events endpoints do not take it yet).</p>`}
    ${kind === 'api_key' && canShare && workspace
      ? html`<section class="panel"><header class="panel-head"><h2>Consent banner</h2></header><${ConsentPanel} workspace=${workspace} site=${{ id: site }} /></section>`
      : null}
  </div>`;
}
