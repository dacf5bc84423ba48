// @ts-check
// Attribution and ROI of a workspace: a model switch and a range; the credited conversions and revenue per
// (source, medium, campaign), ROI per currency against the previous period of the same length (never summed
// across currencies), and each conversion's journey (its touchpoints and their credits), 20 at a time.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { schemaKey } from './api.js';
import { column, TablePanel } from './table.js';
import { useAnswer } from './use-answer.js';
import { PageState, usePages } from './use-pages.js';
import { isoDay } from './view-state.js';
import { MoneyLines, formatRatio, formatRoi } from './format.js';
/** @import { AttributionAnswer, Column, Loaded, Money, RoiCompareAnswer, WorkspaceRef } from './types.js' */

export const attributionModels = ['last_touch', 'first_touch', 'last_non_direct', 'linear', 'position_based', 'time_decay'];
const dayMs = 86_400_000;
/** @param {string | null} value */
const label = (value) => value ?? '–';
/** @param {Money[]} list */
const moneyText = (list) => list.map((money) => `${money.amount} ${money.currency}`).join(', ') || '–';
/** ROAS as "3.4×", in the visitor's locale. @param {number | null | undefined} value */
const ratioText = (value) => (value === null || value === undefined ? '–' : formatRatio(value));
/** ROI (a fraction: 19.7778) as a percentage, "1,977.8%". @param {number | null | undefined} value */
const roiText = (value) => (value === null || value === undefined ? '–' : formatRoi(value));
/** @param {string} text a decimal */
const signed = (text) => (text.startsWith('-') ? text : `+${text}`);

/** @type {Column<AttributionAnswer['totals'][number]>[]} */
const totalColumns = [
  column('Source', (row) => row.source, label),
  column('Medium', (row) => row.medium, label),
  column('Campaign', (row) => row.campaign, label),
  column('Conversions', (row) => row.conversions, (value) => String(Number(value.toFixed(6)))),
  // One line per currency, never one wrapped list.
  { label: 'Revenue', value: (row) => moneyText(row.revenue), render: (row) => html`<${MoneyLines} list=${row.revenue} />` },
];

/** @param {{ answer: Loaded<RoiCompareAnswer> }} props */
function RoiTable({ answer }) {
  if (answer.status === 'loading') return html`<p class="state">Loading…</p>`;
  if (answer.status === 'error') return html`<p class="state error" role="alert">${answer.error}</p>`;
  const { current, change } = answer.data;
  if (current.currencies.length === 0) return html`<p class="state">No spend or revenue in this range.</p>`;
  /** @param {string} currency */
  const changeOf = (currency) => change.currencies.find((row) => row.currency === currency);
  return html`<table class="roi">
    <thead><tr><th scope="col">Currency</th><th scope="col" class="number">Spend</th><th scope="col" class="number">Revenue</th><th scope="col" class="number">Conversions</th><th scope="col" class="number">ROAS</th><th scope="col" class="number">ROI</th></tr></thead>
    <tbody>
      ${current.currencies.map((row) => {
        const delta = changeOf(row.currency);
        return html`<tr key=${row.currency}>
          <th scope="row">${row.currency}</th>
          <td class="number">${row.spend}<div class="delta flat">${delta ? signed(delta.spend) : ''}</div></td>
          <td class="number">${row.revenue}<div class="delta flat">${delta ? signed(delta.revenue) : ''}</div></td>
          <td class="number">${row.conversions}</td>
          <td class="number">${ratioText(row.roas)}</td>
          <td class="number">${roiText(row.roi)}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/** @param {string} iso */
const when = (iso) => iso.slice(0, 16).replace('T', ' ');

/** @param {{ base: string, query: Record<string, string> }} props base: the workspace's path */
function Journeys({ base, query }) {
  /** @param {string} [cursor] */
  const pathOf = (cursor) => `${base}/attribution/results?${new URLSearchParams({ ...query, limit: '20', ...(cursor ? { cursor } : {}) })}`;
  const page = usePages(pathOf(), pathOf, { schema: schemaKey('GET', '/workspaces/{slug}/attribution/results'), itemsOf: (answer) => answer.results, nextOf: (answer) => answer.next_cursor });
  return html`<div class="journeys">
    <h3>Journeys <span class="hint">(each conversion, oldest first, with its touchpoints and credits)</span></h3>
    ${page.status === 'ready' && page.items.length === 0 ? html`<p class="state">No conversions in this range.</p>` : null}
    <ol class="journey-list">
      ${page.items.map(
        (result) => html`<li key=${result.conversion_id}>
          <p class="dlq-head"><time>${when(result.ts)}</time> <span class="journey-person">${result.person}</span> <code>${result.site_id}</code>
            <span class="journey-revenue">${result.revenue ? `${result.revenue.amount} ${result.revenue.currency}` : 'no revenue'}</span></p>
          ${result.touchpoints.length === 0
            ? html`<p class="hint">No touchpoint in the 30 days before.</p>`
            : html`<ol class="touchpoints">
                ${result.touchpoints.map((touch) => html`<li><time>${when(touch.ts)}</time> <span class="touch-source">${[touch.source, touch.medium, touch.campaign].map(label).join(' / ')}</span> <span class="touch-credit">${String(touch.credit)}</span></li>`)}
              </ol>`}
        </li>`,
      )}
    </ol>
    <${PageState} pages=${page} label="More conversions" />
  </div>`;
}

/** @param {{ workspace: WorkspaceRef }} props */
export function AttributionPanel({ workspace }) {
  const [model, setModel] = useState('last_touch');
  const [range, setRange] = useState({ from: isoDay(Date.now() - 29 * dayMs), to: isoDay(Date.now()) });
  const days = Math.round((Date.parse(range.to) - Date.parse(range.from)) / dayMs) + 1;
  const previous = { compare_from: isoDay(Date.parse(range.from) - days * dayMs), compare_to: isoDay(Date.parse(range.from) - dayMs) };
  const base = `/v1/workspaces/${encodeURIComponent(workspace.slug)}`;
  const roi = useAnswer(`${base}/roi/compare?${new URLSearchParams({ ...range, ...previous, model })}`, schemaKey('GET', '/workspaces/{slug}/roi/compare'));
  return html`<section class="panel attribution">
    <header class="panel-head"><h2>Attribution and ROI of ${workspace.name}</h2></header>
    <div class="props-form">
      <label>Model <select name="attribution-model" value=${model} onChange=${onValue(setModel)}>
        ${attributionModels.map((name) => html`<option value=${name}>${name.replaceAll('_', ' ')}</option>`)}
      </select></label>
      <label>From <input type="date" value=${range.from} onChange=${onValue((from) => setRange({ ...range, from }))} /></label>
      <label>To <input type="date" value=${range.to} onChange=${onValue((to) => setRange({ ...range, to }))} /></label>
    </div>
    <h3>ROI per currency <span class="hint">(change from ${previous.compare_from} – ${previous.compare_to})</span></h3>
    <${RoiTable} answer=${roi} />
    <${TablePanel}
      title="Credited conversions"
      path=${`${base}/attribution/results?${new URLSearchParams({ ...range, model, limit: '1' })}`}
      schema=${schemaKey('GET', '/workspaces/{slug}/attribution/results')}
      rowsOf=${(/** @type {AttributionAnswer} */ answer) => answer.totals}
      columns=${totalColumns}
    />
    <${Journeys} key=${`${model} ${range.from} ${range.to}`} base=${base} query=${{ ...range, model }} />
  </section>`;
}
