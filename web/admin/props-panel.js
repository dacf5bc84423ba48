// @ts-check
// Custom properties: one event type broken down by one property's values (props-v2), events and visitors per value.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { schemaKey } from './api.js';
import { column, formatNumber, TablePanel } from './table.js';
import { reportQuery } from './view-state.js';
/** @import { Answers, Column } from './types.js' */
/** @import { Range } from './view-state.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/reports/props-v2']} PropsAnswer */

/** @type {Column<PropsAnswer['data']['rows'][number]>[]} */
const propsColumns = [
  column('Value', (row) => row.value),
  column('Events', (row) => row.events, formatNumber),
  column('Visitors', (row) => row.visitors, formatNumber),
];

/** @param {{ site: string, range: Range, filters: Record<string, string> }} props */
export function PropsPanel({ site, range, filters }) {
  const [type, setType] = useState('');
  const [property, setProperty] = useState('');
  const [asked, setAsked] = useState(/** @type {{ type: string, property: string } | null} */ (null));
  /** @param {Event} event */
  const submit = (event) => {
    event.preventDefault();
    if (type.trim() && property.trim()) setAsked({ type: type.trim(), property: property.trim() });
  };
  return html`<section class="panel props">
    <header class="panel-head"><h2>Custom properties</h2></header>
    <form class="props-form" onSubmit=${submit}>
      <label>Event type <input value=${type} onInput=${onValue(setType)} placeholder="signup" maxlength="200" /></label>
      <label>Property <input value=${property} onInput=${onValue(setProperty)} placeholder="plan" maxlength="200" /></label>
      <button type="submit">Break down</button>
    </form>
    ${asked
      ? html`<${TablePanel}
          title=${`${asked.type} by ${asked.property}`}
          path=${`/v1/sites/${encodeURIComponent(site)}/reports/props-v2?${reportQuery(range, filters, { type: asked.type, property: asked.property, limit: 10 })}`}
          schema=${schemaKey('GET', '/sites/{siteId}/reports/props-v2')}
          rowsOf=${(/** @type {PropsAnswer} */ answer) => answer.data.rows}
          columns=${propsColumns}
        />`
      : html`<p class="state">Choose an event type and one of its properties.</p>`}
  </section>`;
}
