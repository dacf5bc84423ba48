// @ts-check
// The Retention page: weekly or monthly cohorts of people up to the period's end (retention.js: the triangle).
import { html } from './html.js';
import { PeriodPicker, usePeriodKeys } from './dashboard.js';
import { RetentionPanel } from './retention.js';
import { rangeOf } from './view-state.js';
/** @import { View } from './view-state.js' */

/** @param {{ state: View }} props */
export function RetentionPage({ state }) {
  const range = rangeOf(state);
  usePeriodKeys();
  return html`<div class="retention-page">
    <${PeriodPicker} state=${state} range=${range} />
    <${RetentionPanel} site=${state.site} range=${range} />
  </div>`;
}
