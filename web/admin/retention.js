// @ts-check
// Retention (retention-v2): cohorts of people by the week or month of their first visit, or of their first
// conversion on a goal of the site (goal=<id>), the last 12 periods up to the dashboard's last day, as the classic
// triangle: each cell the share of the cohort seen again that many periods later, its colour as intense as the share.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { schemaKey } from './api.js';
import { formatNumber, formatPercent } from './table.js';
import { useAnswer } from './use-answer.js';
import { isoDay } from './view-state.js';
/** @import { Range } from './view-state.js' */

const retentionSchema = schemaKey('GET', '/sites/{siteId}/reports/retention-v2');
const goalsSchema = schemaKey('GET', '/sites/{siteId}/goals');
const dayMs = 86_400_000;
const periodsShown = 12;

/**
 * The first day of the 12th period before the one holding `to` (ISO weeks start on Monday, UTC).
 * @param {string} to @param {'week' | 'month'} period
 */
export function retentionFrom(to, period) {
  const last = new Date(`${to}T00:00:00Z`);
  if (period === 'month') return isoDay(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() - (periodsShown - 1), 1));
  const monday = last.getTime() - ((last.getUTCDay() + 6) % 7) * dayMs;
  return isoDay(monday - (periodsShown - 1) * 7 * dayMs);
}

/** @param {{ site: string, range: Range }} props */
export function RetentionPanel({ site, range }) {
  const [period, setPeriod] = useState(/** @type {'week' | 'month'} */ ('week'));
  // '' starts on the first visit; a goal's id, on the first conversion on it.
  const [goal, setGoal] = useState('');
  const goals = useAnswer(`/v1/sites/${encodeURIComponent(site)}/goals`, goalsSchema);
  const goalRows = goals.status === 'ready' ? goals.data.goals : [];
  const query = new URLSearchParams({ from: retentionFrom(range.to, period), to: range.to, period, ...(goal ? { goal } : {}) });
  const answer = useAnswer(`/v1/sites/${encodeURIComponent(site)}/reports/retention-v2?${query}`, retentionSchema);
  const cohorts = answer.status === 'ready' ? answer.data.data.cohorts : [];
  const later = Math.max(0, ...cohorts.map((cohort) => cohort.returning.length));
  return html`<section class="panel retention" aria-busy=${answer.status === 'loading'}>
    <header class="panel-head">
      <h2>Retention</h2>
      <label>By
        <select name="retention-period" value=${period} onChange=${onValue((value) => setPeriod(value === 'month' ? 'month' : 'week'))}>
          <option value="week">week</option>
          <option value="month">month</option>
        </select>
      </label>
      <label>Starting on
        <select name="retention-goal" value=${goal} onChange=${onValue(setGoal)}>
          <option value="">the first visit</option>
          ${goalRows.map((row) => html`<option value=${row.id}>${`the first conversion on ${row.name}`}</option>`)}
        </select>
      </label>
    </header>
    ${answer.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${answer.status === 'error' ? html`<p class="state error" role="alert">${answer.error}</p>` : null}
    ${answer.status === 'ready'
      ? html`<div class="scroll"><table class="retention-table">
          <thead>
            <tr>
              <th scope="col">Cohort</th>
              <th scope="col" class="number">People</th>
              ${Array.from({ length: later }, (_, index) => html`<th scope="col" class="number">${`+${index + 1}`}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${cohorts.map(
              (cohort) => html`<tr>
                <th scope="row" class="cohort-start" style=${{ whiteSpace: 'nowrap' }}>${cohort.start}</th>
                <td class="number" data-testid="cohort-size">${formatNumber(cohort.size)}</td>
                ${cohort.returning.map((count) => {
                  const share = cohort.size === 0 ? 0 : count / cohort.size;
                  return html`<td
                    class="number retention-cell"
                    data-count=${count}
                    title=${`${formatNumber(count)} of ${formatNumber(cohort.size)}`}
                    style=${{ backgroundColor: cohort.size === 0 ? '' : `rgba(37, 99, 235, ${(0.08 + share * 0.8).toFixed(2)})`, color: share > 0.5 ? '#fff' : '' }}
                  >${cohort.size === 0 ? '–' : formatPercent(share)}</td>`;
                })}
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : null}
  </section>`;
}
