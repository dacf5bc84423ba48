// @ts-check
// A site's imports and export, in its settings (CONTRACT section 11, docs/import-export.md): upload a file of Umami,
// GoatCounter or GA4 (the browser streams the file, gzip or not), follow each import's progress (read again every
// second while one runs), its errors by line, delete one; and download the site's events as ndjson or csv.
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, messageOf, schemaKey } from './api.js';
import { useList } from './use-answer.js';
/** @import { Answers } from './types.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/imports/{importId}']} ImportStatus */

const formats = [
  ['umami-csv', 'Umami (website_event CSV, or a zip with event_data)', 'text/csv'],
  ['goatcounter-csv', 'GoatCounter (CSV export)', 'text/csv'],
  ['ga4-bigquery', 'GA4 (BigQuery NDJSON)', 'application/x-ndjson'],
  ['plausible-csv', 'Plausible (CSV export zip)', 'application/zip'],
];

/** @param {string} siteId */
const importsPath = (siteId) => `/v1/sites/${encodeURIComponent(siteId)}/imports`;

/** @param {ImportStatus} item */
function progressOf(item) {
  if (item.status === 'done' || item.status === 'failed') return item.status === 'done' ? `${item.events_imported} events imported (${item.duplicates} already there), ${item.days_imported} days` : 'failed: nothing imported unless events are counted';
  const share = item.bytes_total ? Math.floor((100 * item.bytes_read) / item.bytes_total) : 0;
  return `${item.phase === 'storing' ? 'storing' : 'checking'} ${share}% · ${item.rows_read} rows · ${item.events_imported} events`;
}

/** @param {{ item: ImportStatus, onDelete: () => void }} props */
function ImportRow({ item, onDelete }) {
  const running = item.status === 'queued' || item.status === 'running';
  return html`<li class="import-row">
    <strong>${item.format}</strong> <span>${item.created_at.slice(0, 16).replace('T', ' ')}</span> <span class=${`import-${item.status}`}>${item.status}</span>
    ${running ? html` <progress max=${item.bytes_total ?? 1} value=${item.bytes_read}></progress>` : null}
    <span> ${progressOf(item)}</span>
    ${!running ? html` <button type="button" class="link danger" aria-label=${`Delete import ${item.id}`} onClick=${onDelete}>Delete</button>` : null}
    ${item.errors.length > 0 ? html`<ul class="csv-errors">${item.errors.slice(0, 20).map((error) => html`<li>line ${error.line}: ${error.message}</li>`)}</ul>` : null}
  </li>`;
}

/** @param {{ siteId: string }} props */
export function ImportsPanel({ siteId }) {
  const list = useList(importsPath(siteId), schemaKey('GET', '/sites/{siteId}/imports'), (answer) => answer.imports);
  const [format, setFormat] = useState('umami-csv');
  const [message, setMessage] = useState('');
  const [exportRange, setExportRange] = useState({ from: '', to: new Date().toISOString().slice(0, 10), format: 'ndjson' });
  const running = list.rows.some((item) => item.status === 'queued' || item.status === 'running');
  // Progress: read again every second while an import runs.
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => void list.load(), 1000);
    return () => clearInterval(timer);
  }, [running]);
  /** @param {Event} event */
  const upload = async (event) => {
    const input = /** @type {HTMLInputElement} */ (event.currentTarget);
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const type = file.name.endsWith('.gz') ? 'application/gzip' : file.name.endsWith('.zip') ? 'application/zip' : (formats.find(([name]) => name === format)?.[2] ?? 'text/csv');
    setMessage(`Uploading ${file.name}…`);
    try {
      await api(importsPath(siteId), { method: 'POST', text: { type, body: file }, headers: { 'x-import-format': format }, schema: schemaKey('POST', '/sites/{siteId}/imports') });
      setMessage(`${file.name} uploaded: the import runs.`);
    } catch (failure) {
      setMessage(messageOf(failure));
    }
    await list.load();
  };
  /** @param {ImportStatus} item */
  const remove = async (item) => {
    try {
      const answer = await api(`${importsPath(siteId)}/${item.id}`, { method: 'DELETE', schema: schemaKey('DELETE', '/sites/{siteId}/imports/{importId}') });
      setMessage(`Import deleted: ${answer.deleted_events} events removed.`);
    } catch (failure) {
      setMessage(messageOf(failure));
    }
    await list.load();
  };
  const exportHref = exportRange.from && exportRange.to
    ? `/v1/sites/${encodeURIComponent(siteId)}/export?from=${exportRange.from}&to=${exportRange.to}&format=${exportRange.format}`
    : '';
  return html`<div class="imports">
    <form class="props-form" aria-label="Import a file" onSubmit=${(/** @type {Event} */ event) => event.preventDefault()}>
      <label>Format <select name="import-format" value=${format} onChange=${onValue(setFormat)}>
        ${formats.map(([name, label]) => html`<option value=${name}>${label}</option>`)}
      </select></label>
      <label class="upload">Import a file <input type="file" name="import-file" accept=".csv,.ndjson,.json,.gz,.zip,text/csv,application/x-ndjson,application/gzip,application/zip" onChange=${upload} /></label>
    </form>
    ${message ? html`<p class="state" role="status">${message}</p>` : null}
    ${list.status === 'error' ? html`<p class="state error" role="alert">${list.error}</p>` : null}
    ${list.rows.length > 0 ? html`<ul class="imports-list">${list.rows.map((item) => html`<${ImportRow} key=${item.id} item=${item} onDelete=${() => remove(item)} />`)}</ul>` : list.status === 'ready' ? html`<p class="state">No imports yet.</p>` : null}
    <form class="props-form" aria-label="Export events" onSubmit=${(/** @type {Event} */ event) => event.preventDefault()}>
      <label>From <input type="date" name="export-from" value=${exportRange.from} onChange=${onValue((from) => setExportRange({ ...exportRange, from }))} /></label>
      <label>To <input type="date" name="export-to" value=${exportRange.to} onChange=${onValue((to) => setExportRange({ ...exportRange, to }))} /></label>
      <label>As <select name="export-format" value=${exportRange.format} onChange=${onValue((chosen) => setExportRange({ ...exportRange, format: chosen }))}>
        <option value="ndjson">ndjson (with the raw events)</option>
        <option value="csv">csv</option>
      </select></label>
      ${exportHref ? html`<a class="button" href=${exportHref} download>Export</a>` : html`<span class="hint">Pick the first day to export.</span>`}
    </form>
  </div>`;
}
