// @ts-check
// The Journeys page: the period picker and the most common paths through the site (journeys.js: journeys-v2 drawn
// as a Sankey-style picture; a node's click filters the dashboard by its page).
import { html } from './html.js';
import { FilterChips, PeriodPicker, usePeriodKeys } from './dashboard.js';
import { JourneysPanel } from './journeys.js';
import { rangeOf } from './view-state.js';
/** @import { View } from './view-state.js' */

/** @param {{ state: View }} props */
export function JourneysPage({ state }) {
  const range = rangeOf(state);
  usePeriodKeys();
  return html`<div class="journeys-page">
    <${PeriodPicker} state=${state} range=${range} />
    <${FilterChips} filters=${state.filters} />
    <${JourneysPanel} site=${state.site} range=${range} filters=${state.filters} />
  </div>`;
}
