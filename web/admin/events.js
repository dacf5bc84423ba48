// @ts-check
// The events explorer: overview-v2 (the period's total and its event types), the activity-v2 heat strip (the last
// hour per path in 5-minute buckets), list-v2 (the period's events newest first, a page at a time) and the
// per-user timeline.
import { html } from './html.js';
import { schemaKey } from './api.js';
import { PageState, usePages } from './use-pages.js';
import { column, DataTable, formatNumber, TablePanel } from './table.js';
import { TimelinePanel } from './timeline.js';
import { useAnswer } from './use-answer.js';
import { reportQuery } from './view-state.js';
/** @import { Answers, Column, EventsEndpoint, ListedEvent } from './types.js' */
/** @import { Range } from './view-state.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/events/overview-v2']} OverviewAnswer */

/** @param {string} site @param {EventsEndpoint} endpoint */
const eventsPath = (site, endpoint) => `/v1/sites/${encodeURIComponent(site)}/events/${endpoint}`;
/**
 * @template {EventsEndpoint} Endpoint
 * @param {Endpoint} endpoint
 */
const eventsSchema = (endpoint) => schemaKey('GET', `/sites/{siteId}/events/${endpoint}`);

/**
 * The heat of a bucket: 0 (none) to 4 (the busiest bucket of the strip).
 * @param {number} count
 * @param {number} max
 */
const levelOf = (count, max) => (count === 0 ? 0 : Math.min(4, Math.ceil((count / max) * 4)));

/** @type {Column<ListedEvent>[]} */
const eventColumns = [
  { label: 'Time (UTC)', value: (event) => event.ts.slice(0, 19).replace('T', ' '), className: 'time' },
  { label: 'Type', value: (event) => event.type },
  { label: 'Path', value: (event) => event.path, className: 'cut' },
  { label: 'Source', value: (event) => event.source },
  { label: 'Country', value: (event) => event.country },
  { label: 'Browser', value: (event) => event.browser },
  { label: 'Visitor', value: (event) => event.anon_id, className: 'cut' },
];

/** @type {Column<OverviewAnswer['data']['types'][number]>[]} */
const typeColumns = [column('Type', (row) => row.type), column('Events', (row) => row.count, formatNumber)];

/** @param {{ site: string, filters: Record<string, string> }} props */
function ActivityStrip({ site, filters }) {
  const answer = useAnswer(`${eventsPath(site, 'activity-v2')}?${new URLSearchParams({ ...filters, limit: '10' })}`, eventsSchema('activity-v2'));
  const paths = answer.status === 'ready' ? answer.data.data.paths : [];
  const max = Math.max(1, ...paths.flatMap((path) => path.buckets));
  return html`<section class="panel activity">
    <header class="panel-head"><h2>Last hour by path</h2></header>
    ${answer.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${answer.status === 'error' ? html`<p class="state error" role="alert">${answer.error}</p>` : null}
    ${answer.status === 'ready' && paths.length === 0 ? html`<p class="state">No events in the last hour.</p>` : null}
    ${answer.status === 'ready' && paths.length > 0
      ? html`<table class="heat">
          <thead><tr><th scope="col">Path</th><th scope="col" class="number">Events</th><th scope="col">${answer.data.data.window.start.slice(11, 16)} → ${answer.data.data.window.end.slice(11, 16)} UTC, 5-minute buckets</th></tr></thead>
          <tbody>
            ${paths.map(
              (path) => html`<tr>
                <th scope="row" class="label">${path.path}</th>
                <td class="number">${formatNumber(path.total)}</td>
                <td><span class="strip">${path.buckets.map((count, index) => html`<span class=${`cell level-${levelOf(count, max)}`} title=${`${count} in bucket ${index + 1}`}></span>`)}</span></td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : null}
  </section>`;
}

/** @param {{ site: string, range: Range, filters: Record<string, string> }} props */
function EventList({ site, range, filters }) {
  /** @param {string} [cursor] */
  const pathOf = (cursor) => `${eventsPath(site, 'list-v2')}?${reportQuery(range, filters, { limit: 50, order: 'newest', ...(cursor ? { cursor } : {}) })}`;
  const pages = usePages(pathOf(), pathOf, { schema: eventsSchema('list-v2'), itemsOf: (answer) => answer.data.events, nextOf: (answer) => answer.meta.cursor.next });
  return html`<section class="panel event-list">
    <header class="panel-head"><h2>Events of the period</h2><span class="hint">newest received first</span></header>
    ${pages.status === 'ready' && pages.items.length === 0 ? html`<p class="state">No events in this period.</p>` : null}
    ${pages.items.length > 0
      ? html`<${DataTable}
          rows=${pages.items}
          columns=${eventColumns}
        />`
      : null}
    <${PageState} pages=${pages} label="Load more" />
  </section>`;
}

/** @param {{ site: string, range: Range, filters: Record<string, string> }} props */
export function EventsSection({ site, range, filters }) {
  return html`<div class="events-section">
    <h2 class="section-title">Events</h2>
    <div class="grid">
      <${TablePanel}
        title="Event types"
        path=${`${eventsPath(site, 'overview-v2')}?${reportQuery(range, filters)}`}
        schema=${eventsSchema('overview-v2')}
        rowsOf=${(/** @type {OverviewAnswer} */ answer) => answer.data.types}
        columns=${typeColumns}
      />
      <${ActivityStrip} site=${site} filters=${filters} />
    </div>
    <${EventList} site=${site} range=${range} filters=${filters} />
    <${TimelinePanel} site=${site} />
  </div>`;
}
