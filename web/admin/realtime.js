// @ts-check
// The live events panel of the realtime page: stream-v2 (Server-Sent Events, authenticated by the session cookie)
// tailed while the panel is open; each event is checked against list-v2's published event schema before it is
// shown. The counts (visitors now) are realtime-v2's, from the stored events (realtime-page.js), not this stream's.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { publishedSchema, schemaKey } from './api.js';
import { mismatchOf } from './validate.js';
/** @import { JsonSchema, ListedEvent } from './types.js' */

const shown = 20;

/**
 * The schema of a property of an object's schema.
 * @param {JsonSchema | undefined} schema
 * @param {string} name
 */
const propertyOf = (schema, name) => (typeof schema === 'object' ? schema.properties?.[name] : undefined);

/** The schema of one event of list-v2 (a streamed event has the same shape), from the catalog api.js reads. */
async function eventSchema() {
  const events = propertyOf(propertyOf(await publishedSchema(schemaKey('GET', '/sites/{siteId}/events/list-v2')), 'data'), 'events');
  return typeof events === 'object' ? events.items : undefined;
}

/** @param {{ site: string, onEvent?: () => void }} props onEvent: called for each event shown */
export function RealtimePanel({ site, onEvent }) {
  const [events, setEvents] = useState(/** @type {(ListedEvent & { seenAt: number })[]} */ ([]));
  const [status, setStatus] = useState('connecting');
  const [problem, setProblem] = useState('');
  useEffect(() => {
    /** @type {EventSource | undefined} */
    let source;
    let closed = false;
    setEvents([]);
    eventSchema().then((schema) => {
      if (closed) return;
      const stream = new EventSource(`/v1/sites/${encodeURIComponent(site)}/events/stream-v2`);
      source = stream;
      stream.addEventListener('open', () => setStatus('live'));
      stream.addEventListener('error', () => setStatus(stream.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting'));
      stream.addEventListener('event', (message) => {
        /** @type {unknown} */
        let item;
        try {
          item = JSON.parse(message.data);
        } catch {
          setProblem('A streamed event was not JSON: not shown');
          return;
        }
        const mismatch = schema ? mismatchOf(schema, item) : 'no published event schema';
        if (mismatch) {
          setProblem(`A streamed event does not match the published schema (${mismatch}): not shown`);
          return;
        }
        // The schema check just passed: the item has list-v2's event shape.
        const event = /** @type {ListedEvent} */ (item);
        setEvents((list) => [{ ...event, seenAt: Date.now() }, ...list].slice(0, 200));
        onEvent?.();
      });
    }, () => setStatus('closed'));
    return () => {
      closed = true;
      source?.close();
    };
  }, [site]);
  return html`<section class="panel realtime">
    <header class="panel-head">
      <h2>Live events</h2>
      <span class=${`live-status ${status}`}>${status}</span>
    </header>
    ${problem ? html`<p class="state error" role="alert">${problem}</p>` : null}
    ${events.length === 0
      ? html`<p class="state">Events appear here as they arrive.</p>`
      : html`<ol class="live-events" aria-live="polite">
          ${events.slice(0, shown).map(
            (event) => html`<li key=${event.id}>
              <span class="live-type">${event.type}</span>
              <span class="live-path">${event.path ?? event.url ?? ''}</span>
              <span class="live-meta">${[event.country, event.browser, event.device_type].filter(Boolean).join(' · ')}</span>
              <time datetime=${event.ts}>${new Date(event.ts).toISOString().slice(11, 19)}</time>
            </li>`,
          )}
        </ol>`}
  </section>`;
}

