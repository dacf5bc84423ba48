// Custom properties: one event type broken down by one property's values (props-v2), events and visitors per value.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { schemaKey } from './api.js';
import { formatNumber, TablePanel } from './table.js';
import { reportQuery } from './view-state.js';

export function PropsPanel({ site, range, filters }) {
  const [type, setType] = useState('');
  const [property, setProperty] = useState('');
  const [asked, setAsked] = useState(null);
  const submit = (event) => {
    event.preventDefault();
    if (type.trim() && property.trim()) setAsked({ type: type.trim(), property: property.trim() });
  };
  return html`<section class="panel props">
    <header class="panel-head"><h2>Custom properties</h2></header>
    <form class="props-form" onSubmit=${submit}>
      <label>Event type <input value=${type} onInput=${(event) => setType(event.currentTarget.value)} placeholder="signup" maxlength="200" /></label>
      <label>Property <input value=${property} onInput=${(event) => setProperty(event.currentTarget.value)} placeholder="plan" maxlength="200" /></label>
      <button type="submit">Break down</button>
    </form>
    ${asked
      ? html`<${TablePanel}
          title=${`${asked.type} by ${asked.property}`}
          path=${`/v1/sites/${encodeURIComponent(site)}/reports/props-v2?${reportQuery(range, filters, { type: asked.type, property: asked.property, limit: 10 })}`}
          schema=${schemaKey('GET', '/sites/{siteId}/reports/props-v2')}
          columns=${[
            { label: 'Value', value: (row) => row.value },
            { label: 'Events', value: (row) => row.events, format: formatNumber },
            { label: 'Visitors', value: (row) => row.visitors, format: formatNumber },
          ]}
        />`
      : html`<p class="state">Choose an event type and one of its properties.</p>`}
  </section>`;
}
