// @ts-check
// Page flow (page-flow-v2) of one page, offered from every row of the Pages table: the pages viewed just before and
// just after it in the period's visits, and the visits that left from it, in a small popover (Escape closes it).
import { useEffect } from 'preact/hooks';
import { html } from './html.js';
import { schemaKey } from './api.js';
import { formatNumber } from './table.js';
import { useAnswer } from './use-answer.js';
import { reportQuery } from './view-state.js';
/** @import { Range } from './view-state.js' */

const flowSchema = schemaKey('GET', '/sites/{siteId}/reports/page-flow-v2');

/** @param {{ title: string, rows: { path: string, visits: number }[] }} props */
function FlowList({ title, rows }) {
  return html`<div class="flow-side">
    <h3>${title}</h3>
    ${rows.length === 0
      ? html`<p class="state">None.</p>`
      : html`<ol>${rows.map((row) => html`<li><span class="flow-path">${row.path}</span> <span class="number">${formatNumber(row.visits)}</span></li>`)}</ol>`}
  </div>`;
}

/**
 * The dashboard's path filter is left out: here `path` names the page.
 * @param {{ site: string, range: Range, filters: Record<string, string>, path: string, onClose: () => void }} props
 */
export function PageFlowPopover({ site, range, filters, path, onClose }) {
  const { path: _pathFilter, ...rest } = filters;
  const flow = useAnswer(`/v1/sites/${encodeURIComponent(site)}/reports/page-flow-v2?${reportQuery(range, rest, { path, limit: 10 })}`, flowSchema);
  useEffect(() => {
    /** @param {KeyboardEvent} event */
    const onKey = (event) => event.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onClose]);
  return html`<div class="page-flow" role="dialog" aria-label=${`Flow of ${path}`}>
    <header class="panel-head">
      <h3>Flow of <span class="flow-path">${path}</span></h3>
      <button type="button" class="link" onClick=${onClose} aria-label="Close the page flow">×</button>
    </header>
    ${flow.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${flow.status === 'error' ? html`<p class="state error" role="alert">${flow.error}</p>` : null}
    ${flow.status === 'ready'
      ? html`<div class="flow-sides">
            <${FlowList} title="Before" rows=${flow.data.data.previous} />
            <${FlowList} title="After" rows=${flow.data.data.next} />
          </div>
          <p>Exits: <strong data-testid="flow-exits">${formatNumber(flow.data.data.exits)}</strong></p>`
      : null}
  </div>`;
}
