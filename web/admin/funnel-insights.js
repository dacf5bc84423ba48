// @ts-check
// What makes the funnel builder hard to get wrong and its answers easy to read: the event types and paths of the
// site's own reports offered to each step (a typo is flagged before the funnel runs), and the correlation's factors
// as sentences ("3.4× more likely to go on"), strongest first, with how much to trust each, the rest behind "more".
import { schemaKey } from './api.js';
import { formatCount, formatRatio } from './format.js';
import { html } from './html.js';
import { useAnswer } from './use-answer.js';
import { reportQuery } from './view-state.js';
/** @import { CorrelationAnswer } from './types.js' */
/** @import { Range } from './view-state.js' */

/** Factors shown before "more". */
const topFactors = 5;

/**
 * The site's event types and pages of the range, for the steps' suggestions.
 * @param {string} site @param {Range} range
 * @returns {{ types: string[], paths: string[], ready: boolean }}
 */
export function useStepOptions(site, range) {
  const types = useAnswer(`/v1/sites/${encodeURIComponent(site)}/events/overview-v2?${reportQuery(range, {})}`, schemaKey('GET', '/sites/{siteId}/events/overview-v2'));
  const pages = useAnswer(`/v1/sites/${encodeURIComponent(site)}/reports/pages-v2?${reportQuery(range, {}, { limit: 200 })}`, schemaKey('GET', '/sites/{siteId}/reports/pages-v2'));
  return {
    types: types.status === 'ready' ? types.data.data.types.map((row) => row.type).filter((type) => type !== 'engagement') : [],
    paths: pages.status === 'ready' ? pages.data.data.rows.map((row) => row.path) : [],
    ready: types.status === 'ready' && pages.status === 'ready',
  };
}

/** The datalists the steps' inputs name (list="funnel-types", list="funnel-paths"). @param {{ types: string[], paths: string[] }} props */
export function StepOptions({ types, paths }) {
  return html`<datalist id="funnel-types">${types.map((type) => html`<option value=${type} />`)}</datalist>
    <datalist id="funnel-paths">${paths.map((path) => html`<option value=${path} />`)}</datalist>`;
}

/**
 * Why a step would match nothing in the period ('' when it may match): an event type or a path the site's reports
 * do not have (a path ending in * matches when a page starts with it).
 * @param {{ type: string, path: string }} step @param {{ types: string[], paths: string[], ready: boolean }} options
 */
export function unknownStep(step, options) {
  if (!options.ready) return '';
  const type = step.type.trim();
  const path = step.path.trim();
  if (type && !options.types.includes(type)) return `No “${type}” event in this period`;
  if (path && !(path.endsWith('*') ? options.paths.some((page) => page.startsWith(path.slice(0, -1))) : options.paths.includes(path))) return `No page “${path}” in this period`;
  return '';
}

/** How far a factor's figure can be trusted, from how many people it rests on. @param {number} people */
function confidenceOf(people) {
  if (people >= 100) return 'high confidence';
  if (people >= 30) return 'medium confidence';
  return 'low confidence: few people';
}

/**
 * The factors as sentences: each factor's success rate against the transition's, strongest effect first.
 * @param {{ factors: CorrelationAnswer['data']['factors'], converted: number, dropped: number }} props
 */
export function FactorSentences({ factors, converted, dropped }) {
  const overall = converted + dropped === 0 ? 0 : converted / (converted + dropped);
  const ranked = factors
    .map((factor) => {
      const lift = overall === 0 ? 0 : factor.success_rate / overall;
      return { factor, lift, strength: lift === 0 ? Infinity : Math.abs(Math.log(lift)) };
    })
    .sort((a, b) => b.strength - a.strength);
  /** @param {(typeof ranked)[number]} entry */
  const sentence = ({ factor, lift }) => {
    const people = factor.converted + factor.dropped;
    const effect = lift >= 1 ? `${formatRatio(lift)} more likely` : lift === 0 ? 'never seen' : `${formatRatio(1 / lift)} less likely`;
    return html`<li class="factor">
      People with <strong>${factor.dimension} ${factor.value}</strong> were <strong>${effect}</strong> to go on
      <span class="hint">(${formatCount(factor.converted)} of ${formatCount(people)}; ${confidenceOf(people)})</span>
    </li>`;
  };
  return html`<div class="factor-sentences">
    <ul>${ranked.slice(0, topFactors).map(sentence)}</ul>
    ${ranked.length > topFactors
      ? html`<details><summary>${ranked.length - topFactors} more</summary><ul>${ranked.slice(topFactors).map(sentence)}</ul></details>`
      : null}
  </div>`;
}
