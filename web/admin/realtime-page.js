// @ts-check
// The Realtime page: visitors in the last 5 and 30 minutes and the pageviews of each of the last 30 minutes
// (realtime-v2, read every 5 seconds while the tab is visible, counted from stored events by event time), the pages
// of the last 30 minutes (activity-v2's last six 5-minute buckets), today's sources and countries, and the live
// events as they arrive (stream-v2; each one read again realtime-v2 at once, so the counts follow within a second).
import { html } from './html.js';
import { schemaKey } from './api.js';
import { reportPath, reportRows, reportSchema } from './dashboard.js';
import { RealtimePanel } from './realtime.js';
import { useRealtime } from './realtime-figures.js';
import { SparkBars } from './spark-bars.js';
import { column, formatNumber, TablePanel } from './table.js';
import { isoDay } from './view-state.js';
import { SourceLabel } from './source-icon.js';
import { CountryLabel, countryName } from './format.js';
/** @import { Answers, Column } from './types.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/events/activity-v2']} ActivityAnswer */
/** @typedef {{ path: string, views: number }} PageNow */

/** @param {ActivityAnswer} answer the last hour in 5-minute buckets: the last six are the last 30 minutes */
const pagesNow = (answer) =>
  answer.data.paths
    .map((path) => ({ path: path.path, views: path.buckets.slice(-6).reduce((sum, count) => sum + count, 0) }))
    .filter((row) => row.views > 0)
    .sort((a, b) => b.views - a.views);

/** @type {Column<PageNow>[]} */
const pageNowColumns = [column('Page', (row) => row.path), column('Events', (row) => row.views, formatNumber)];

/** @param {{ site: string }} props */
export function RealtimePage({ site }) {
  const figures = useRealtime(site, 5_000);
  const today = isoDay(Date.now());
  const day = `from=${today}&to=${today}&limit=10`;
  const ready = figures.status === 'ready' ? figures.data : undefined;
  return html`<div class="realtime-page">
    <section class="panel realtime-now" aria-busy=${figures.status === 'loading'}>
      <header class="panel-head"><h2>Right now</h2><span class="hint">by event time, from stored events</span></header>
      ${figures.status === 'error' ? html`<p class="state error" role="alert">${figures.error}</p>` : null}
      ${ready
        ? html`<div class="cards">
              <div class="card"><div class="card-label">Visitors, last 5 minutes</div><div class="card-value" data-testid="visitors-5m">${formatNumber(ready.visitors_last_5m)}</div></div>
              <div class="card"><div class="card-label">Visitors, last 30 minutes</div><div class="card-value" data-testid="visitors-30m">${formatNumber(ready.visitors_last_30m)}</div></div>
              <div class="card"><div class="card-label">Pageviews, last 30 minutes</div><div class="card-value" data-testid="pageviews-30m">${formatNumber(ready.pageviews_last_30m)}</div></div>
            </div>
            <${SparkBars} values=${ready.series} height=${80} className="minutes" label="Pageviews in each of the last 30 minutes, oldest first" />
            <p class="axis-note"><span>30 minutes ago</span><span>now</span></p>`
        : null}
      ${figures.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    </section>
    <div class="grid">
      <${TablePanel}
        key=${`pages-${Math.floor(figures.readAt / 30_000)}`}
        title="Pages, last 30 minutes"
        path=${`/v1/sites/${encodeURIComponent(site)}/events/activity-v2?limit=50`}
        schema=${schemaKey('GET', '/sites/{siteId}/events/activity-v2')}
        rowsOf=${pagesNow}
        columns=${pageNowColumns}
      />
      <${TablePanel}
        title="Sources, today"
        path=${`${reportPath(site, 'sources-v2')}?${day}&grouped=true`}
        schema=${reportSchema('sources-v2')}
        rowsOf=${reportRows}
        columns=${[
          { label: 'Source', value: (/** @type {{ source: string }} */ row) => row.source, render: (/** @type {{ source: string }} */ row) => html`<${SourceLabel} source=${row.source} />` },
          column('Visitors', (/** @type {{ visitors: number }} */ row) => row.visitors, formatNumber),
        ]}
      />
      <${TablePanel}
        title="Countries, today"
        path=${`${reportPath(site, 'breakdown-v2')}?${day}&by=country`}
        schema=${reportSchema('breakdown-v2')}
        rowsOf=${reportRows}
        columns=${[
          {
            label: 'Country',
            value: (/** @type {{ value: string }} */ row) => row.value,
            text: (/** @type {{ value: string }} */ row) => countryName(row.value),
            render: (/** @type {{ value: string }} */ row) => html`<${CountryLabel} code=${row.value} />`,
          },
          column('Visitors', (/** @type {{ visitors: number }} */ row) => row.visitors, formatNumber),
        ]}
      />
    </div>
    <${RealtimePanel} site=${site} onEvent=${figures.refresh} />
  </div>`;
}
