// @ts-check
// The Goals page: the period picker, the goals' conversions (goals-v2; a row's click filters every report by the
// goal) and their definitions (goals.js), which re-read the conversions after a change.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { hasScope } from './api.js';
import { FilterChips, PeriodPicker, usePeriodKeys } from './dashboard.js';
import { GoalSettings, GoalsPanel } from './goals.js';
import { rangeOf, updateView } from './view-state.js';
/** @import { View } from './view-state.js' */

/** @param {{ state: View }} props */
export function GoalsPage({ state }) {
  const range = rangeOf(state);
  usePeriodKeys();
  const [version, setVersion] = useState(0);
  /** @param {string} name @param {string} value */
  const onFilter = (name, value) => updateView({ page: 'dashboard', filters: { ...state.filters, [name]: value } });
  return html`<div class="goals-page">
    <${PeriodPicker} state=${state} range=${range} />
    <${FilterChips} filters=${state.filters} />
    <div class="grid"><${GoalsPanel} site=${state.site} range=${range} filters=${state.filters} onFilter=${onFilter} version=${version} /></div>
    ${hasScope('query:read') ? html`<${GoalSettings} site=${state.site} range=${range} onChanged=${() => setVersion(version + 1)} />` : null}
  </div>`;
}
