// @ts-check
// "Details" for a ranked panel: the whole list (every page of the report, not the 10 rows shown), with a search box,
// paging and a CSV export of everything it holds.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from './api.js';
import { downloadCsv } from './csv.js';
import { html, onValue } from './html.js';
/** @import { Answers, Column, SchemaKey } from './types.js' */

const pageSize = 25;
/** Reports answer at most this many rows at once; a longer list is read in pages by its cursor. */
const readLimit = 200;

/**
 * @template {SchemaKey} Key
 * @template Row
 * @param {{ title: string, path: string, schema: Key, columns: Column<Row>[], rowsOf: (answer: Answers[Key]) => Row[] }} props
 *   path: the report's path and query without limit (the whole list is read with limit=200, then by its cursor)
 */
export function DetailsButton({ title, path, schema, columns, rowsOf }) {
  const [open, setOpen] = useState(false);
  return html`<button type="button" class="link" onClick=${() => setOpen(true)}>Details</button>
    ${open ? html`<${DetailsDialog} title=${title} path=${path} schema=${schema} columns=${columns} rowsOf=${rowsOf} onClose=${() => setOpen(false)} />` : null}`;
}

/**
 * @template {SchemaKey} Key
 * @template Row
 * @param {{ title: string, path: string, schema: Key, columns: Column<Row>[], rowsOf: (answer: Answers[Key]) => Row[], onClose: () => void }} props
 */
function DetailsDialog({ title, path, schema, columns, rowsOf, onClose }) {
  const [rows, setRows] = useState(/** @type {Row[] | null} */ (null));
  const [error, setError] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  useEffect(() => {
    let current = true;
    (async () => {
      /** @type {Row[]} */
      const all = [];
      let cursor = '';
      // Every page of the report: a cursor when it has one (pages-v2), else the one answer of up to 200 rows.
      for (let round = 0; round < 50; round++) {
        const answer = await api(`${path}&limit=${readLimit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { schema });
        all.push(...rowsOf(answer));
        const next = /** @type {{ meta?: { cursor?: { next: string | null } } }} */ (answer).meta?.cursor?.next;
        if (!next) break;
        cursor = next;
      }
      if (current) setRows(all);
    })().catch((failure) => current && setError(messageOf(failure)));
    return () => {
      current = false;
    };
  }, [path]);
  const text = (/** @type {Row} */ row, /** @type {Column<Row>} */ column) => {
    if (column.text) return column.text(row);
    const value = column.value(row);
    return value === null || value === '' ? '(none)' : String(value);
  };
  const needle = search.trim().toLowerCase();
  const shown = (rows ?? []).filter((row) => !needle || columns.some((column) => text(row, column).toLowerCase().includes(needle)));
  const pages = Math.max(1, Math.ceil(shown.length / pageSize));
  const at = Math.min(page, pages - 1);
  const exportCsv = () =>
    downloadCsv(`${title.toLowerCase().replaceAll(/\W+/g, '-')}-all.csv`, columns.map((column) => column.label), (rows ?? []).map((row) => columns.map((column) => column.value(row))));
  return html`<div class="details" role="dialog" aria-modal="true" aria-label=${`${title}: details`}>
    <div class="details-box">
      <header class="panel-head">
        <h2>${title}</h2>
        <span class="panel-actions">
          ${rows ? html`<button type="button" class="link" onClick=${exportCsv}>CSV (all ${rows.length})</button>` : null}
          <button type="button" class="link" onClick=${onClose} aria-label="Close details">Close</button>
        </span>
      </header>
      <label>Search <input type="search" name="details-search" value=${search} onInput=${onValue((value) => { setSearch(value); setPage(0); })} /></label>
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
      ${rows === null && !error ? html`<p class="state">Loading the whole list…</p>` : null}
      ${rows
        ? html`<table>
            <thead><tr>${columns.map((column, index) => html`<th class=${index ? 'number' : ''} scope="col">${column.label}</th>`)}</tr></thead>
            <tbody>
              ${shown.slice(at * pageSize, (at + 1) * pageSize).map(
                (row) => html`<tr>${columns.map((column, index) => (index ? html`<td class="number">${text(row, column)}</td>` : html`<th scope="row" class="label">${text(row, column)}</th>`))}</tr>`,
              )}
            </tbody>
          </table>
          <nav class="pager" aria-label="Pages">
            <button type="button" class="link" disabled=${at === 0} onClick=${() => setPage(at - 1)}>Previous</button>
            <span>${shown.length === 0 ? 'No row matches' : `${at * pageSize + 1}–${Math.min(shown.length, (at + 1) * pageSize)} of ${shown.length}`}</span>
            <button type="button" class="link" disabled=${at >= pages - 1} onClick=${() => setPage(at + 1)}>Next</button>
          </nav>`
        : null}
    </div>
  </div>`;
}
