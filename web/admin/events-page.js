// @ts-check
// The Events page: the period picker and the events explorer (events.js): types, the last hour by path, the list
// (newest first) and a user's timeline.
import { html } from './html.js';
import { FilterChips, PeriodPicker, usePeriodKeys } from './dashboard.js';
import { EventsSection } from './events.js';
import { rangeOf } from './view-state.js';
/** @import { View } from './view-state.js' */

/** @param {{ state: View }} props */
export function EventsPage({ state }) {
  const range = rangeOf(state);
  usePeriodKeys();
  // The events endpoints refuse goal= (a V2 report's filter): they get the other filters, and the page says so.
  const { goal, ...eventFilters } = state.filters;
  return html`<div class="events-page">
    <${PeriodPicker} state=${state} range=${range} />
    <${FilterChips} filters=${state.filters} />
    ${goal ? html`<p class="hint">The events below are not filtered by the goal (the events endpoints do not take it yet).</p>` : null}
    <${EventsSection} site=${state.site} range=${range} filters=${eventFilters} />
  </div>`;
}
