// @ts-check
// Journeys: the most common paths of pages within the period's visits (journeys-v2), from the entry page, from a
// page or up to a page (picked among the period's top pages), 2-6 steps; drawn as a Sankey-style SVG by this module
// (columns are steps, bands are visits) and listed in a table with the exact figures. A click on a node (or Enter)
// filters the dashboard by that page. Colours are SVG presentation attributes (the strict CSP allows them).
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { schemaKey } from './api.js';
import { formatNumber } from './table.js';
import { useAnswer } from './use-answer.js';
import { reportQuery, updateView } from './view-state.js';
/** @import { Answers } from './types.js' */
/** @import { Range } from './view-state.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/reports/journeys-v2']['data']['paths'][number]} JourneyPath */

const journeysSchema = schemaKey('GET', '/sites/{siteId}/reports/journeys-v2');
const pagesSchema = schemaKey('GET', '/sites/{siteId}/reports/pages-v2');
const stepChoices = [2, 3, 4, 5, 6];
const modes = [
  { id: 'entry', label: 'From the entry page' },
  { id: 'start', label: 'From a page' },
  { id: 'end', label: 'Up to a page' },
];

const width = 760;
const nodeWidth = 10;
const labelRoom = 150;
const gap = 10;
const chartHeight = 300;

/**
 * @typedef {{ column: number, path: string, visits: number, y: number, height: number, outUsed: number, inUsed: number }} SankeyNode
 * @typedef {{ from: SankeyNode, to: SankeyNode, visits: number }} SankeyLink
 */

/**
 * Nodes are (step, page) with the visits of the journeys through them; links add up the journeys between two nodes.
 * Heights share one scale, so a band's thickness is its visits whatever the column.
 * @param {JourneyPath[]} paths
 */
export function sankeyLayout(paths) {
  const columns = Math.max(0, ...paths.map((path) => path.steps.length));
  /** @type {Map<string, SankeyNode>[]} */
  const nodesByColumn = Array.from({ length: columns }, () => new Map());
  /** @type {Map<string, SankeyLink>} */
  const links = new Map();
  for (const path of paths) {
    path.steps.forEach((step, column) => {
      const nodes = /** @type {Map<string, SankeyNode>} */ (nodesByColumn[column]);
      const node = nodes.get(step) ?? { column, path: step, visits: 0, y: 0, height: 0, outUsed: 0, inUsed: 0 };
      node.visits += path.visits;
      nodes.set(step, node);
    });
  }
  for (const path of paths) {
    for (let column = 0; column + 1 < path.steps.length; column++) {
      const from = /** @type {SankeyNode} */ (nodesByColumn[column]?.get(/** @type {string} */ (path.steps[column])));
      const to = /** @type {SankeyNode} */ (nodesByColumn[column + 1]?.get(/** @type {string} */ (path.steps[column + 1])));
      const key = `${column}\u0000${from.path}\u0000${to.path}`;
      const link = links.get(key) ?? { from, to, visits: 0 };
      link.visits += path.visits;
      links.set(key, link);
    }
  }
  const ordered = nodesByColumn.map((nodes) => [...nodes.values()].sort((a, b) => b.visits - a.visits || (a.path < b.path ? -1 : 1)));
  const busiest = Math.max(1, ...ordered.map((nodes) => nodes.reduce((sum, node) => sum + node.visits, 0)));
  const mostNodes = Math.max(1, ...ordered.map((nodes) => nodes.length));
  const scale = (chartHeight - gap * (mostNodes - 1)) / busiest;
  for (const nodes of ordered) {
    let y = 0;
    for (const node of nodes) {
      node.y = y;
      node.height = Math.max(2, node.visits * scale);
      y += node.height + gap;
    }
  }
  const step = columns > 1 ? (width - labelRoom - nodeWidth) / (columns - 1) : 0;
  return { columns, nodes: ordered.flat(), links: [...links.values()].sort((a, b) => b.visits - a.visits), scale, xOf: (/** @type {number} */ column) => column * step };
}

/** @param {{ paths: JourneyPath[], onNode: (path: string) => void }} props */
function Sankey({ paths, onNode }) {
  const layout = sankeyLayout(paths);
  const height = Math.max(...layout.nodes.map((node) => node.y + node.height), 40);
  const bands = layout.links.map((link) => {
    const thickness = Math.max(1, link.visits * layout.scale);
    const x0 = layout.xOf(link.from.column) + nodeWidth;
    const x1 = layout.xOf(link.to.column);
    const y0 = link.from.y + link.from.outUsed + thickness / 2;
    const y1 = link.to.y + link.to.inUsed + thickness / 2;
    link.from.outUsed += thickness;
    link.to.inUsed += thickness;
    const middle = (x0 + x1) / 2;
    return html`<path class="sankey-link" d=${`M${x0},${y0} C${middle},${y0} ${middle},${y1} ${x1},${y1}`} fill="none" stroke="#2563eb" stroke-opacity="0.3" stroke-width=${thickness}>
      <title>${`${link.from.path} → ${link.to.path}: ${formatNumber(link.visits)} visits`}</title>
    </path>`;
  });
  return html`<svg class="sankey" viewBox=${`0 0 ${width} ${height}`} role="img" aria-label="Journeys as a flow of pages, one column per step">
    ${bands}
    ${layout.nodes.map(
      (node) => html`<g
        class="sankey-node"
        data-path=${node.path}
        data-step=${node.column + 1}
        tabindex="0"
        role="button"
        aria-label=${`Filter the dashboard by ${node.path} (step ${node.column + 1}, ${node.visits} visits)`}
        onClick=${() => onNode(node.path)}
        onKeyDown=${(/** @type {KeyboardEvent} */ event) => event.key === 'Enter' && onNode(node.path)}
      >
        <rect x=${layout.xOf(node.column)} y=${node.y} width=${nodeWidth} height=${node.height} fill="#1d4ed8"><title>${`${node.path}: ${formatNumber(node.visits)} visits`}</title></rect>
        <text x=${layout.xOf(node.column) + nodeWidth + 4} y=${node.y + Math.min(node.height / 2, 14) + 4} fill="currentColor" font-size="13">${`${node.path} (${formatNumber(node.visits)})`}</text>
      </g>`,
    )}
  </svg>`;
}

/** @param {{ site: string, range: Range, filters: Record<string, string> }} props */
export function JourneysPanel({ site, range, filters }) {
  const [mode, setMode] = useState('entry');
  const [page, setPage] = useState('');
  const [steps, setSteps] = useState(3);
  const base = `/v1/sites/${encodeURIComponent(site)}/reports`;
  const pages = useAnswer(`${base}/pages-v2?${reportQuery(range, filters, { limit: 50 })}`, pagesSchema);
  const pagePaths = pages.status === 'ready' ? pages.data.data.rows.map((row) => row.path) : [];
  const anchor = mode === 'entry' ? '' : page || pagePaths[0] || '';
  /** @type {Record<string, string | number>} */
  const extra = { steps, limit: 10 };
  if (mode !== 'entry' && anchor) extra[mode === 'start' ? 'start_path' : 'end_path'] = anchor;
  const journeys = useAnswer(mode !== 'entry' && !anchor ? '' : `${base}/journeys-v2?${reportQuery(range, filters, extra)}`, journeysSchema);
  const paths = journeys.status === 'ready' ? journeys.data.data.paths : [];
  /** @param {string} path */
  const filterBy = (path) => updateView({ filters: { ...filters, path } });
  return html`<section class="panel journeys" aria-busy=${journeys.status === 'loading'}>
    <header class="panel-head"><h2>Journeys</h2></header>
    <div class="journeys-controls">
      <label>Journeys
        <select name="journey-mode" value=${mode} onChange=${onValue(setMode)}>
          ${modes.map((item) => html`<option value=${item.id}>${item.label}</option>`)}
        </select>
      </label>
      ${mode === 'entry'
        ? null
        : html`<label>Page
            <select name="journey-page" value=${anchor} onChange=${onValue(setPage)}>
              ${pagePaths.map((path) => html`<option value=${path}>${path}</option>`)}
            </select>
          </label>`}
      <label>Steps
        <select name="journey-steps" value=${String(steps)} onChange=${onValue((value) => setSteps(Number(value)))}>
          ${stepChoices.map((count) => html`<option value=${String(count)}>${count}</option>`)}
        </select>
      </label>
    </div>
    ${mode !== 'entry' && pages.status === 'ready' && pagePaths.length === 0 ? html`<p class="state">No pages in this period.</p>` : null}
    ${journeys.status === 'loading' && (mode === 'entry' || anchor) ? html`<p class="state">Loading…</p>` : null}
    ${journeys.status === 'error' ? html`<p class="state error" role="alert">${journeys.error}</p>` : null}
    ${journeys.status === 'ready' && paths.length === 0 ? html`<p class="state">No journeys in this period.</p>` : null}
    ${paths.length > 0
      ? html`<div class="scroll"><${Sankey} paths=${paths} onNode=${filterBy} /></div>
          <table class="journeys-table">
            <thead><tr><th scope="col">Journey</th><th scope="col" class="number">Visitors</th><th scope="col" class="number">Visits</th></tr></thead>
            <tbody>
              ${paths.map(
                (path) => html`<tr>
                  <th scope="row" class="label">${path.steps.join(' → ')}</th>
                  <td class="number">${formatNumber(path.visitors)}</td>
                  <td class="number">${formatNumber(path.visits)}</td>
                </tr>`,
              )}
            </tbody>
          </table>`
      : null}
  </section>`;
}
