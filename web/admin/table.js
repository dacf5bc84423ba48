// @ts-check
// A ranked table panel: loading, error and empty states, rows that filter the dashboard when clicked (or with Enter),
// and a CSV export. Every value is rendered as text.
import { html } from './html.js';
import { downloadCsv } from './csv.js';
import { useAnswer } from './use-answer.js';
/** @import { Answers, Column, SchemaKey } from './types.js' */

/** @param {number} value */
export const formatNumber = (value) => new Intl.NumberFormat('en').format(value);
/** @param {number} value a ratio (0.5: 50.0%) */
export const formatPercent = (value) => `${(value * 100).toFixed(1)}%`;

/**
 * A column of TablePanel or DataTable: its label, the value of a row (what the CSV export writes) and, optionally, how
 * that value is shown.
 * @template Row, Value
 * @param {string} label
 * @param {(row: Row) => Value} value
 * @param {(value: Value) => string} [format]
 * @returns {Column<Row>}
 */
export function column(label, value, format) {
  return format ? { label, value, text: (row) => format(value(row)) } : { label, value };
}

/** A cell's text when its column has no format: null and '' as (none). @param {unknown} value */
const rankedText = (value) => (value === null || value === '' ? '(none)' : String(value));

/**
 * columns: the first is the row's label; rowsOf: the rows of the answer;
 * filter: the dashboard filter a click sets to the first column's value (absent: rows are not clickable);
 * rowAction: a small button in a last cell of each row (a click on it does not filter).
 * @template {SchemaKey} Key
 * @template Row
 * @param {{ title: string, path: string, schema: Key, columns: Column<Row>[], rowsOf: (answer: Answers[Key]) => Row[],
 *   filter?: string, onFilter?: (name: string, value: string) => void,
 *   rowAction?: { label: string, describe: (row: Row) => string, act: (row: Row) => void }, details?: import('preact').ComponentChildren }} props
 *   details: a control beside the CSV export (the panel's Details drill-down)
 */
export function TablePanel({ title, path, schema, columns, filter, onFilter, rowsOf, rowAction, details }) {
  const answer = useAnswer(path, schema);
  const rows = answer.status === 'ready' ? rowsOf(answer.data) : [];
  // A bar behind each row, as long as its second column's share of the largest (reading comfort). The table scrolls
  // within its panel when its columns are wider than a phone (Pages: its measures and the Flow cell).
  const measure = columns[1];
  const top = Math.max(1, ...rows.map((row) => Number(measure?.value(row)) || 0));
  const exportCsv = () => downloadCsv(`${title.toLowerCase().replaceAll(/\W+/g, '-')}.csv`, columns.map((column) => column.label), rows.map((row) => columns.map((column) => column.value(row))));
  return html`<section class="panel" aria-busy=${answer.status === 'loading'}>
    <header class="panel-head">
      <h2>${title}</h2>
      ${answer.status === 'ready' && rows.length > 0 ? html`<span class="panel-actions">${details ?? null}<button type="button" class="link" onClick=${exportCsv}>CSV</button></span>` : null}
    </header>
    ${answer.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${answer.status === 'error' ? html`<p class="state error" role="alert">${answer.error}</p>` : null}
    ${answer.status === 'ready' && rows.length === 0 ? html`<p class="state">No data for this period.</p>` : null}
    ${answer.status === 'ready' && rows.length > 0
      ? html`<div class="scroll"><table>
          <thead><tr>${columns.map((column, index) => html`<th class=${index ? 'number' : ''} scope="col">${column.label}</th>`)}${rowAction ? html`<th scope="col"><span class="visually-hidden">${rowAction.label}</span></th>` : null}</tr></thead>
          <tbody>
            ${rows.map((row) => {
              const label = columns[0]?.value(row);
              const clickable = filter && label !== null && label !== '';
              const choose = () => filter && onFilter?.(filter, String(label));
              return html`<tr
                class=${clickable ? 'clickable bar-row' : 'bar-row'}
                style=${{ '--bar': `${((Number(measure?.value(row)) || 0) / top) * 100}%` }}
                tabindex=${clickable ? 0 : undefined}
                title=${clickable ? `Filter by ${filter}` : undefined}
                onClick=${clickable ? choose : undefined}
                onKeyDown=${clickable ? (/** @type {KeyboardEvent} */ event) => event.key === 'Enter' && choose() : undefined}
              >
                ${columns.map((column, index) => {
                  const text = column.render ? column.render(row) : column.text ? column.text(row) : rankedText(column.value(row));
                  return index ? html`<td class="number">${text}</td>` : html`<th scope="row" class="label">${text}</th>`;
                })}
                ${rowAction
                  ? html`<td class="row-action"><button type="button" class="link" aria-label=${rowAction.describe(row)} onClick=${(/** @type {MouseEvent} */ event) => {
                      event.stopPropagation();
                      rowAction.act(row);
                    }} onKeyDown=${(/** @type {KeyboardEvent} */ event) => event.key === 'Enter' && event.stopPropagation()}>${rowAction.label}</button></td>`
                  : null}
              </tr>`;
            })}
          </tbody>
        </table></div>`
      : null}
  </section>`;
}

/**
 * A plain table of rows (lists of events, entries): columns [{ label, value: (row) => unknown, className?, render? }],
 * the first column the row's header; values shown as text, null as nothing; render(row): the cell's controls instead.
 * @template {{ id: string }} Row
 * @param {{ columns: Column<Row>[], rows: Row[] }} props
 */
export function DataTable({ columns, rows }) {
  return html`<div class="scroll"><table>
    <thead><tr>${columns.map((column) => html`<th scope="col" class=${column.className ?? ''}>${column.label}</th>`)}</tr></thead>
    <tbody>
      ${rows.map(
        (row) => html`<tr key=${row.id}>
          ${columns.map((column, index) => {
            const value = column.value(row);
            // render: controls of the row (buttons), which are never built from its values' markup.
            const text = column.render ? column.render(row) : value === null || value === undefined ? '' : String(value);
            return index === 0 ? html`<th scope="row" class=${column.className ?? ''}>${text}</th>` : html`<td class=${column.className ?? ''}>${text}</td>`;
          })}
        </tr>`,
      )}
    </tbody>
  </table></div>`;
}
