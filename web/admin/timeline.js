// @ts-check
// The per-user timeline: every event of every device (anon_id) bound to a user id on the site, newest first, older
// pages by `before`.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { ApiFailure, api, messageOf, schemaKey } from './api.js';
/** @import { TimelineEvent } from './types.js' */

const pageSize = 50;

/**
 * A user's timeline as read so far: `next` the cursor of the older page (null: none); `error` stays until a page
 * is read.
 * @typedef {{ user: string, status: 'loading' | 'ready' | 'error', events: TimelineEvent[], next: string | null, error?: string }} Timeline
 */

/** @param {{ site: string }} props */
export function TimelinePanel({ site }) {
  const [userId, setUserId] = useState('');
  const [timeline, setTimeline] = useState(/** @type {Timeline | null} */ (null));
  /** @param {string} user @param {{ events: TimelineEvent[], next: string | null }} previous */
  const load = async (user, previous) => {
    setTimeline({ ...previous, user, status: 'loading' });
    const query = new URLSearchParams({ limit: String(pageSize), ...(previous.next ? { before: previous.next } : {}) });
    try {
      const answer = await api(`/v1/sites/${encodeURIComponent(site)}/users/${encodeURIComponent(user)}/timeline?${query}`, {
        schema: schemaKey('GET', '/sites/{siteId}/users/{userId}/timeline'),
      });
      setTimeline({ user, status: 'ready', events: [...previous.events, ...answer.events], next: answer.next_before });
    } catch (failure) {
      const message = failure instanceof ApiFailure && failure.code === 'user_not_found' ? `No user ${user} on this site.` : messageOf(failure);
      setTimeline({ ...previous, user, status: 'error', error: message });
    }
  };
  /** @param {Event} event */
  const submit = (event) => {
    event.preventDefault();
    if (userId.trim()) load(userId.trim(), { events: [], next: null });
  };
  return html`<section class="panel timeline">
    <header class="panel-head"><h2>User timeline</h2></header>
    <form class="props-form" onSubmit=${submit}>
      <label>User id <input name="timeline-user" value=${userId} onInput=${onValue(setUserId)} maxlength="128" /></label>
      <button type="submit">Show</button>
    </form>
    ${timeline === null ? html`<p class="state">A user id (as sent in user_id) shows that user's events across their devices.</p>` : null}
    ${timeline?.status === 'ready' && timeline.events.length === 0 ? html`<p class="state">No events.</p>` : null}
    ${timeline && timeline.events.length > 0
      ? html`<ol class="live-events">
          ${timeline.events.map(
            (event) => html`<li key=${event.id}>
              <span class="live-type">${event.type}</span>
              <span class="live-path">${event.url ?? ''}</span>
              <span class="live-meta">${[event.anon_id, event.country, event.browser, event.device_type].filter(Boolean).join(' · ')}</span>
              <time datetime=${event.ts}>${event.ts.slice(0, 19).replace('T', ' ')}</time>
            </li>`,
          )}
        </ol>`
      : null}
    ${timeline?.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${timeline?.status === 'error' ? html`<p class="state error" role="alert">${timeline.error}</p>` : null}
    ${timeline?.status === 'ready' && timeline.next ? html`<button type="button" class="more" onClick=${() => load(timeline.user, timeline)}>Older</button>` : null}
  </section>`;
}
