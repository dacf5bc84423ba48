// @ts-check
// A workspace's marketing spend: the entries of a range, one entry at a time, or a CSV file (all or nothing, every
// bad line listed with its number and why); an entry edited (PATCH …/spend/:id), and the entries of the range
// deleted after a confirmation, optionally only one source's or campaign's (the API deletes by range, not by id).
// Amounts are decimal strings in the currency's exponent.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { ApiFailure, api, messageOf, schemaKey } from './api.js';
import { DataTable } from './table.js';
import { PageState, usePages } from './use-pages.js';
import { isoDay } from './view-state.js';
/** @import { Column, RowProblem, SpendEntry, WorkspaceRef } from './types.js' */

const entryFields = /** @type {const} */ (['date', 'source', 'medium', 'campaign', 'amount', 'currency']);
/** @typedef {(typeof entryFields)[number]} EntryField */
/** @typedef {Record<EntryField, string>} EntryInput an entry as typed in a form ('' for an empty medium or campaign) */
/**
 * Runs a change and shows what it says it did (the list is read again), or its failure.
 * @typedef {(action: () => Promise<string>) => Promise<void>} Run
 */

/** @param {string} slug */
const spendPath = (slug) => `/v1/workspaces/${encodeURIComponent(slug)}/spend`;
/** @type {EntryInput} */
const emptyEntry = { date: isoDay(Date.now()), source: '', medium: '', campaign: '', amount: '', currency: 'EUR' };

/**
 * @param {{ label: string, name: EntryField, entry: EntryInput, setEntry: (entry: EntryInput) => void,
 *   type?: string, required?: boolean, maxlength?: string, inputmode?: string, placeholder?: string }} props
 *   type, required, …: the input's attributes
 */
function Input({ label, name, entry, setEntry, ...rest }) {
  return html`<label>${label} <input name=${`spend-${name}`} value=${entry[name]} onInput=${onValue((value) => setEntry({ ...entry, [name]: value }))} ...${rest} /></label>`;
}

/**
 * @param {SpendEntry} original
 * @returns {EntryInput}
 */
const inputOf = (original) => ({
  date: original.date,
  source: original.source,
  medium: original.medium ?? '',
  campaign: original.campaign ?? '',
  amount: original.amount,
  currency: original.currency,
});

/** @param {{ workspace: WorkspaceRef, entry: SpendEntry, run: Run, onDone: () => void }} props */
function EditEntry({ workspace, entry: original, run, onDone }) {
  const [entry, setEntry] = useState(inputOf(original));
  /** @param {Event} event */
  const save = (event) => {
    event.preventDefault();
    run(async () => {
      // Only what changed; a currency change carries the amount too (the API's rule).
      const changed = Object.fromEntries(entryFields.filter((name) => entry[name] !== (original[name] ?? '')).map((name) => [name, entry[name] === '' && (name === 'medium' || name === 'campaign') ? null : entry[name]]));
      if ('currency' in changed) changed.amount = entry.amount;
      await api(`${spendPath(workspace.slug)}/${encodeURIComponent(original.id)}`, { method: 'PATCH', body: changed, schema: schemaKey('PATCH', '/workspaces/{slug}/spend/{id}') });
      onDone();
      return 'Entry saved.';
    });
  };
  return html`<form class="props-form edit-entry" onSubmit=${save} aria-label="Edit the spend entry" novalidate>
    ${entryFields.map((name) => html`<label>${name} <input name=${`edit-spend-${name}`} value=${entry[name]} onInput=${onValue((value) => setEntry({ ...entry, [name]: value }))} type=${name === 'date' ? 'date' : 'text'} /></label>`)}
    <button type="submit">Save entry</button>
    <button type="button" class="link" onClick=${onDone}>Cancel</button>
  </form>`;
}

/** @param {{ workspace: WorkspaceRef, range: { from: string, to: string }, run: Run }} props */
function DeleteRange({ workspace, range, run }) {
  const [only, setOnly] = useState({ source: '', campaign: '' });
  const [asking, setAsking] = useState(false);
  const filters = Object.fromEntries(Object.entries(only).filter(([, value]) => value !== ''));
  const remove = () =>
    run(async () => {
      const answer = await api(`${spendPath(workspace.slug)}?${new URLSearchParams({ ...range, ...filters })}`, { method: 'DELETE', schema: schemaKey('DELETE', '/workspaces/{slug}/spend') });
      setAsking(false);
      return `${answer.deleted} ${answer.deleted === 1 ? 'entry' : 'entries'} deleted.`;
    });
  return html`<div class="props-form delete-range">
    <label>Only source <input name="delete-spend-source" value=${only.source} onInput=${onValue((source) => setOnly({ ...only, source }))} maxlength="256" /></label>
    <label>Only campaign <input name="delete-spend-campaign" value=${only.campaign} onInput=${onValue((campaign) => setOnly({ ...only, campaign }))} maxlength="256" /></label>
    ${asking
      ? html`<div class="confirm" role="alertdialog" aria-label="Confirm the deletion">
          <p>Delete every entry from ${range.from} to ${range.to}${filters.source ? html` of source <strong>${filters.source}</strong>` : ''}${filters.campaign ? html` of campaign <strong>${filters.campaign}</strong>` : ''}? This cannot be undone.</p>
          <button type="button" class="danger" onClick=${remove}>Delete these entries</button>
          <button type="button" class="link" onClick=${() => setAsking(false)}>Cancel</button>
        </div>`
      : html`<button type="button" class="danger" onClick=${() => setAsking(true)}>Delete entries of this range…</button>`}
  </div>`;
}

/** @param {{ workspace: WorkspaceRef, canWrite: boolean }} props */
export function SpendPanel({ workspace, canWrite }) {
  const [range, setRange] = useState({ from: isoDay(Date.now() - 29 * 86_400_000), to: isoDay(Date.now()) });
  const [version, setVersion] = useState(0);
  const [entry, setEntry] = useState(emptyEntry);
  const [problem, setProblem] = useState(/** @type {{ message: string, rows: RowProblem[] } | null} */ (null));
  const [done, setDone] = useState('');
  const [editing, setEditing] = useState(/** @type {SpendEntry | null} */ (null));
  /** @param {string} [cursor] */
  const pathOf = (cursor) => `${spendPath(workspace.slug)}?${new URLSearchParams({ ...range, limit: '100', ...(cursor ? { cursor } : {}) })}`;
  const entries = usePages(`${pathOf()}#${version}`, pathOf, { schema: schemaKey('GET', '/workspaces/{slug}/spend'), itemsOf: (answer) => answer.entries, nextOf: (answer) => answer.next_cursor });
  /** @type {Run} */
  const run = async (action) => {
    setProblem(null);
    setDone('');
    try {
      setDone(await action());
      setVersion((value) => value + 1);
    } catch (failure) {
      setProblem({ message: messageOf(failure), rows: failure instanceof ApiFailure ? failure.rows : [] });
    }
  };
  /** @param {Event} event */
  const add = (event) => {
    event.preventDefault();
    run(async () => {
      const body = { ...entry, medium: entry.medium || null, campaign: entry.campaign || null };
      await api(spendPath(workspace.slug), { method: 'POST', body, schema: schemaKey('POST', '/workspaces/{slug}/spend') });
      setEntry({ ...emptyEntry, date: entry.date, currency: entry.currency });
      return 'Entry added.';
    });
  };
  /** @param {Event} event */
  const upload = (event) => {
    const input = /** @type {HTMLInputElement} */ (event.currentTarget);
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    run(async () => {
      const answer = await api(`${spendPath(workspace.slug)}/csv`, { method: 'POST', text: { type: 'text/csv', body: await file.text() }, schema: schemaKey('POST', '/workspaces/{slug}/spend/csv') });
      return `${answer.imported} ${answer.imported === 1 ? 'entry' : 'entries'} imported from ${file.name}.`;
    });
  };
  /** @type {Column<SpendEntry>[]} */
  const columns = [
    { label: 'Date', value: (item) => item.date },
    { label: 'Source', value: (item) => item.source },
    { label: 'Medium', value: (item) => item.medium },
    { label: 'Campaign', value: (item) => item.campaign },
    { label: 'Amount', value: (item) => `${item.amount} ${item.currency}`, className: 'number' },
    ...(canWrite ? [{ label: '', value: () => null, render: (/** @type {SpendEntry} */ item) => html`<button type="button" class="link" onClick=${() => setEditing(item)}>Edit</button>` }] : []),
  ];
  return html`<section class="panel spend">
    <header class="panel-head"><h2>Spend of ${workspace.name}</h2></header>
    <div class="props-form">
      <label>From <input type="date" name="spend-from" value=${range.from} onChange=${onValue((from) => setRange({ ...range, from }))} /></label>
      <label>To <input type="date" name="spend-to" value=${range.to} onChange=${onValue((to) => setRange({ ...range, to }))} /></label>
    </div>
    ${canWrite
      ? html`<form class="props-form" onSubmit=${add} aria-label="Add a spend entry">
          <${Input} label="Date" name="date" type="date" entry=${entry} setEntry=${setEntry} required />
          <${Input} label="Source" name="source" entry=${entry} setEntry=${setEntry} required maxlength="256" />
          <${Input} label="Medium" name="medium" entry=${entry} setEntry=${setEntry} maxlength="256" />
          <${Input} label="Campaign" name="campaign" entry=${entry} setEntry=${setEntry} maxlength="256" />
          <${Input} label="Amount" name="amount" entry=${entry} setEntry=${setEntry} required inputmode="decimal" placeholder="12.50" />
          <${Input} label="Currency" name="currency" entry=${entry} setEntry=${setEntry} required maxlength="3" />
          <button type="submit">Add</button>
          <label class="upload">Import CSV <input type="file" name="spend-csv" accept=".csv,text/csv" onChange=${upload} /></label>
        </form>`
      : null}
    ${done ? html`<p class="state" role="status">${done}</p>` : null}
    ${problem
      ? html`<div class="state error" role="alert">
          <p>${problem.message}</p>
          ${problem.rows.length > 0 ? html`<ul class="csv-errors">${problem.rows.map((row) => html`<li>line ${row.line}: ${row.message}</li>`)}</ul>` : null}
        </div>`
      : null}
    ${entries.status === 'ready' && entries.items.length === 0 ? html`<p class="state">No spend in this range.</p>` : null}
    ${entries.items.length > 0
      ? html`<${DataTable}
          rows=${entries.items}
          columns=${columns}
        />`
      : null}
    ${editing ? html`<${EditEntry} key=${editing.id} workspace=${workspace} entry=${editing} run=${run} onDone=${() => setEditing(null)} />` : null}
    ${canWrite && entries.items.length > 0 ? html`<${DeleteRange} workspace=${workspace} range=${range} run=${run} />` : null}
    <${PageState} pages=${entries} label="More" />
  </section>`;
}
