// A site's dashboard: period, comparison, filters as chips (all in the URL), summary cards, the chart, the ranked
// tables, custom properties and the realtime panel.
import { useEffect } from 'preact/hooks';
import { html } from './html.js';
import { schemaKey } from './api.js';
import { SummaryCards } from './cards.js';
import { ConsentPanel } from './consent.js';
import { VisitsChart } from './chart.js';
import { DlqPanel } from './dlq.js';
import { EventsSection } from './events.js';
import { FunnelPanel } from './funnel.js';
import { PropsPanel } from './props-panel.js';
import { RealtimePanel } from './realtime.js';
import { SharePanel } from './share-panel.js';
import { SnippetLine } from './site-settings.js';
import { hasScope, session } from './api.js';
import { formatNumber, formatPercent, TablePanel } from './table.js';
import { useAnswer } from './use-answer.js';
import { compareModes, periods, rangeOf, reportQuery, updateView, view } from './view-state.js';

const reportPath = (site, report) => `/v1/sites/${encodeURIComponent(site)}/reports/${report}`;
const reportSchema = (report) => schemaKey('GET', `/sites/{siteId}/reports/${report}`);

function PeriodPicker({ state, range }) {
  return html`<div class="period" role="group" aria-label="Period">
    <label class="visually-hidden" for="period">Period</label>
    <select id="period" value=${state.period} onChange=${(event) => updateView({ period: event.currentTarget.value })}>
      ${periods.map((period) => html`<option value=${period.id}>${period.label} (${period.key})</option>`)}
    </select>
    ${state.period === 'custom'
      ? html`<span class="custom-range">
          <label>From <input type="date" value=${state.from || range.from} max=${state.to || range.to} onChange=${(event) => updateView({ from: event.currentTarget.value })} /></label>
          <label>To <input type="date" value=${state.to || range.to} min=${state.from || range.from} onChange=${(event) => updateView({ to: event.currentTarget.value })} /></label>
        </span>`
      : html`<span class="range-text">${range.from === range.to ? range.from : `${range.from} – ${range.to}`}</span>`}
    <label class="compare">Compare with (x)
      <select value=${state.compare} onChange=${(event) => updateView({ compare: event.currentTarget.value })}>
        ${compareModes.map((mode) => html`<option value=${mode.id}>${mode.label}</option>`)}
      </select>
    </label>
  </div>`;
}

function FilterChips({ filters }) {
  const entries = Object.entries(filters);
  if (entries.length === 0) return null;
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

function Overview({ site, range, filters, compare, compareLabel, theme, siteInfo }) {
  const current = useAnswer(`${reportPath(site, 'summary-v2')}?${reportQuery(range, filters)}`, reportSchema('summary-v2'));
  const previous = useAnswer(compare ? `${reportPath(site, 'summary-v2')}?${reportQuery(range.previous, filters)}` : '', reportSchema('summary-v2'));
  if (current.status === 'loading') return html`<section class="panel overview"><p class="state">Loading…</p></section>`;
  if (current.status === 'error') return html`<section class="panel overview"><p class="state error" role="alert">${current.error}</p></section>`;
  if (compare && previous.status === 'error') return html`<section class="panel overview"><p class="state error" role="alert">${previous.error}</p></section>`;
  const before = compare && previous.status === 'ready' ? previous.data.data : undefined;
  const data = current.data.data;
  const warnings = current.data.meta.warnings;
  return html`<section class="panel overview">
    <${SummaryCards} data=${data} previous=${before} previousLabel=${compareLabel} />
    ${data.events === 0 && data.visits === 0 ? html`<p class="state">No visits in this period yet.</p>` : null}
    ${data.events === 0 && data.visits === 0 && session.value.kind !== 'share' ? html`<${SnippetLine} site=${siteInfo ?? { id: site, cookieless: true }} known=${siteInfo !== undefined} />` : null}
    <${VisitsChart} series=${data.series} previous=${before?.series} previousLabel=${`Visitors, ${compareLabel.toLowerCase()}`} theme=${theme} />
    ${warnings.length > 0 ? html`<ul class="warnings">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : null}
  </section>`;
}

const visitColumns = (label, key) => [
  { label, value: (row) => row[key] },
  { label: 'Visitors', value: (row) => row.visitors, format: formatNumber },
  { label: 'Visits', value: (row) => row.visits, format: formatNumber },
  { label: 'Bounce', value: (row) => row.bounce_rate, format: formatPercent },
];

export function Dashboard({ state, theme, workspace, siteInfo }) {
  const { site, filters } = state;
  const compare = state.compare !== 'off';
  const range = rangeOf(state);
  const onFilter = (name, value) => updateView({ filters: { ...filters, [name]: value } });
  // A shared dashboard reads the reports alone: no stream, no share links.
  const shared = session.value.kind === 'share';
  const canShare = hasScope('admin');
  useEffect(() => {
    const onKey = (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest?.('input, select, textarea, [contenteditable]')) return;
      const period = periods.find((item) => item.key === event.key);
      if (period) updateView({ period: period.id });
      // The view as it is now (keys pressed faster than a render read the current one, not this render's).
      else if (event.key === 'x') updateView({ compare: compareModes[(compareModes.findIndex((mode) => mode.id === view.value.compare) + 1) % compareModes.length].id });
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  const query = (extra) => reportQuery(range, filters, extra);
  const breakdown = (by, title, label) => html`<${TablePanel}
    title=${title}
    path=${`${reportPath(site, 'breakdown-v2')}?${query({ by, limit: 10 })}`}
    schema=${reportSchema('breakdown-v2')}
    columns=${visitColumns(label, 'value')}
    filter=${by}
    onFilter=${onFilter}
  />`;
  return html`<div class="dashboard">
    <${PeriodPicker} state=${state} range=${range} />
    <${FilterChips} filters=${filters} />
    <${Overview} site=${site} range=${range} filters=${filters} compare=${compare} compareLabel=${compareModes.find((mode) => mode.id === state.compare).label} theme=${theme} siteInfo=${siteInfo} />
    <div class="grid">
      <${TablePanel}
        title="Pages"
        path=${`${reportPath(site, 'pages-v2')}?${query({ limit: 10 })}`}
        schema=${reportSchema('pages-v2')}
        columns=${[
          { label: 'Page', value: (row) => row.path },
          { label: 'Visitors', value: (row) => row.visitors, format: formatNumber },
          { label: 'Views', value: (row) => row.pageviews, format: formatNumber },
          { label: 'Entries', value: (row) => row.entries, format: formatNumber },
          { label: 'Exits', value: (row) => row.exits, format: formatNumber },
        ]}
        filter="path"
        onFilter=${onFilter}
      />
      <${TablePanel}
        title="Sources"
        path=${`${reportPath(site, 'sources-v2')}?${query({ limit: 10 })}`}
        schema=${reportSchema('sources-v2')}
        columns=${visitColumns('Source', 'source')}
        filter="source"
        onFilter=${onFilter}
      />
      <${TablePanel}
        title="Campaigns"
        path=${`${reportPath(site, 'campaigns-v2')}?${query({ limit: 10 })}`}
        schema=${reportSchema('campaigns-v2')}
        columns=${[
          { label: 'Campaign', value: (row) => [row.utm_source, row.utm_medium, row.utm_campaign].map((part) => part ?? '–').join(' / ') },
          { label: 'Visitors', value: (row) => row.visitors, format: formatNumber },
          { label: 'Visits', value: (row) => row.visits, format: formatNumber },
          { label: 'Conversions', value: (row) => row.conversions, format: formatNumber },
          { label: 'Revenue', value: (row) => row.revenue.map((money) => `${money.amount} ${money.currency}`).join(', ') || '–', format: (value) => value },
        ]}
      />
      ${breakdown('country', 'Countries', 'Country')}
      ${breakdown('device', 'Devices', 'Device')}
      ${breakdown('browser', 'Browsers', 'Browser')}
      ${breakdown('os', 'Operating systems', 'Operating system')}
      <${PropsPanel} site=${site} range=${range} filters=${filters} />
      ${shared ? null : html`<${RealtimePanel} site=${site} />`}
      ${canShare ? html`<${SharePanel} site=${site} />` : null}
      ${canShare ? html`<${DlqPanel} site=${site} />` : null}
    </div>
    ${shared || !workspace ? null : html`<${FunnelPanel} site=${site} workspace=${workspace} range=${range} filters=${filters} />`}
    ${shared ? null : html`<${EventsSection} site=${site} range=${range} filters=${filters} />`}
    ${session.value.kind === 'api_key' && canShare && workspace
      ? html`<section class="panel"><header class="panel-head"><h2>Consent banner</h2></header><${ConsentPanel} workspace=${workspace} site=${{ id: site }} /></section>`
      : null}
  </div>`;
}
