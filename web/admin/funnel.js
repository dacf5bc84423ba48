// @ts-check
// The funnel builder: 2-12 steps (an event type and an optional path, `/docs*` a prefix) within a window, over the
// dashboard's range and filters; each step's people and conversions, and for any transition the correlation
// (factors of those who went on or dropped) and explanation (time to convert, what the dropped did next) panels,
// computed on the execution the funnel returned.
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, messageOf, schemaKey } from './api.js';
import { formatNumber, formatPercent } from './table.js';
import { FactorSentences, StepOptions, unknownStep, useStepOptions } from './funnel-insights.js';
/** @import { CorrelationAnswer, ExplanationAnswer, FunnelAnswer, WorkspaceRef } from './types.js' */
/** @import { Range } from './view-state.js' */

const maxSteps = 12;
const units = ['minutes', 'hours', 'days'];
const breakdowns = ['device', 'browser', 'os', 'country', 'source', 'utm_campaign'];
const listFilters = /** @type {const} */ (['device', 'browser', 'os', 'country', 'region', 'city', 'path']);

/** @typedef {{ type: string, path: string }} StepInput a step as typed in the builder */
/**
 * The funnel query (the body of POST …/analysis/funnels-v2); the list filters are arrays.
 * @typedef {{ site_id: string, from: string, to: string, steps: { type: string, path?: string }[],
 *   window: { value: number, unit: string }, date_mode: string, breakdown?: string, source?: string }
 *   & Partial<Record<(typeof listFilters)[number], string[]>>} FunnelQuery
 */
/** @typedef {{ status: 'ready', query: FunnelQuery, executionId: string, answer: FunnelAnswer }} FunnelRun */

/** @param {number | null} value */
const secondsText = (value) => (value === null ? '–' : value >= 3600 ? `${(value / 3600).toFixed(1)} h` : value >= 60 ? `${(value / 60).toFixed(1)} min` : `${value.toFixed(0)} s`);

/**
 * The funnel query of the builder's state, with the dashboard's range and filters (lists as arrays).
 * @param {string} site
 * @param {Range} range
 * @param {Record<string, string>} filters
 * @param {StepInput[]} steps
 * @param {{ value: string, unit: string }} within
 * @param {{ dateMode: string, breakdown: string }} options
 */
function funnelQuery(site, range, filters, steps, within, options) {
  /** @type {FunnelQuery} */
  const query = {
    site_id: site,
    from: range.from,
    to: range.to,
    steps: steps.map((step) => ({ type: step.type.trim(), ...(step.path.trim() ? { path: step.path.trim() } : {}) })),
    window: { value: Number(within.value), unit: within.unit },
    date_mode: options.dateMode,
    ...(options.breakdown ? { breakdown: options.breakdown } : {}),
  };
  if (filters.source) query.source = filters.source;
  for (const name of listFilters) {
    const value = filters[name];
    if (value) query[name] = value.split(',');
  }
  return query;
}

/**
 * @typedef {{ status: 'loading' } | { status: 'error', error: string }
 *   | { status: 'ready', correlation: CorrelationAnswer, explanation: ExplanationAnswer }} TransitionPanels
 */

/** @param {{ base: string, run: FunnelRun, from: number }} props base: the funnels-v2 path */
function Transition({ base, run, from }) {
  const [panels, setPanels] = useState(/** @type {TransitionPanels} */ ({ status: 'loading' }));
  const load = async () => {
    const body = { query: run.query, transition: { from_step: from, to_step: from + 1 }, execution_id: run.executionId };
    try {
      const [correlation, explanation] = await Promise.all([
        api(`${base}/correlation`, { method: 'POST', body, schema: schemaKey('POST', '/workspaces/{slug}/analysis/funnels-v2/correlation') }),
        api(`${base}/explanation`, { method: 'POST', body, schema: schemaKey('POST', '/workspaces/{slug}/analysis/funnels-v2/explanation') }),
      ]);
      setPanels({ status: 'ready', correlation, explanation });
    } catch (failure) {
      setPanels({ status: 'error', error: messageOf(failure) });
    }
  };
  useEffect(() => {
    load();
  }, []);
  if (panels.status === 'loading') return html`<p class="state">Loading…</p>`;
  if (panels.status === 'error') return html`<p class="state error" role="alert">${panels.error}</p>`;
  const { converted, dropped, time_to_convert, next_events_of_dropped } = panels.explanation.data;
  const { factors } = panels.correlation.data;
  // Both answers may carry the same warning: printed once.
  const warnings = [...new Set([...panels.correlation.meta.warnings, ...panels.explanation.meta.warnings])];
  return html`<div class="transition">
    <h3>Step ${from} → ${from + 1}</h3>
    <p class="explanation"><strong data-testid="converted">${formatNumber(converted)}</strong> went on, <strong data-testid="dropped">${formatNumber(dropped)}</strong> dropped; time to convert: median ${secondsText(time_to_convert.p50)}, 90th percentile ${secondsText(time_to_convert.p90)}.</p>
    ${warnings.length > 0 ? html`<ul class="warnings">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : null}
    ${next_events_of_dropped.length > 0
      ? html`<table class="next-events"><caption>What the dropped did next</caption>
          <thead><tr><th scope="col">Event</th><th scope="col">Path</th><th scope="col" class="number">People</th></tr></thead>
          <tbody>${next_events_of_dropped.map((row) => html`<tr><th scope="row" class="label">${row.type}</th><td>${row.path ?? ''}</td><td class="number">${formatNumber(row.count)}</td></tr>`)}</tbody>
        </table>`
      : null}
    ${factors.length > 0
      ? html`<${FactorSentences} factors=${factors} converted=${converted} dropped=${dropped} />`
      : html`<p class="state">No factor has the 10 people a comparison needs.</p>`}
  </div>`;
}

/** @param {{ site: string, workspace: WorkspaceRef, range: Range, filters: Record<string, string> }} props */
export function FunnelPanel({ site, workspace, range, filters }) {
  const [steps, setSteps] = useState(/** @type {StepInput[]} */ ([{ type: 'pageview', path: '' }, { type: 'signup', path: '' }]));
  const [within, setWithin] = useState({ value: '1', unit: 'days' });
  const [options, setOptions] = useState({ dateMode: 'first_step', breakdown: '' });
  const [run, setRun] = useState(/** @type {null | { status: 'loading' } | { status: 'error', error: string } | FunnelRun} */ (null));
  // The step a transition's panels are shown for (k: k → k+1).
  const [transition, setTransition] = useState(/** @type {number | null} */ (null));
  const base = `/v1/workspaces/${encodeURIComponent(workspace.slug)}/analysis/funnels-v2`;
  const stepOptions = useStepOptions(site, range);
  const problems = steps.map((step) => unknownStep(step, stepOptions));
  /** @param {number} index @param {Partial<StepInput>} change */
  const setStep = (index, change) => setSteps(steps.map((step, at) => (at === index ? { ...step, ...change } : step)));
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    const query = funnelQuery(site, range, filters, steps, within, options);
    setRun({ status: 'loading' });
    setTransition(null);
    try {
      const answer = await api(base, { method: 'POST', body: query, schema: schemaKey('POST', '/workspaces/{slug}/analysis/funnels-v2') });
      setRun({ status: 'ready', query, executionId: answer.data.execution_id, answer });
    } catch (failure) {
      setRun({ status: 'error', error: messageOf(failure) });
    }
  };
  const rows = run?.status === 'ready' ? run.answer.data.steps : [];
  return html`<section class="panel funnel">
    <header class="panel-head"><h2>Funnel</h2><span class="hint">over the period and filters above</span></header>
    <form class="funnel-form" onSubmit=${submit}>
      <${StepOptions} types=${stepOptions.types} paths=${stepOptions.paths} />
      <ol class="funnel-steps">
        ${steps.map(
          (step, index) => html`<li key=${index}>
            <label>Event <input name=${`step-type-${index + 1}`} list="funnel-types" value=${step.type} onInput=${onValue((type) => setStep(index, { type }))} required maxlength="64" /></label>
            <label>Path <input name=${`step-path-${index + 1}`} list="funnel-paths" value=${step.path} placeholder="any, or /docs*" onInput=${onValue((path) => setStep(index, { path }))} /></label>
            ${problems[index] ? html`<span class="hint warning step-problem" role="status">${problems[index]}</span>` : null}
            ${steps.length > 2 ? html`<button type="button" class="link" aria-label=${`Remove step ${index + 1}`} onClick=${() => setSteps(steps.filter((_, at) => at !== index))}>×</button>` : null}
          </li>`,
        )}
      </ol>
      <div class="props-form">
        ${steps.length < maxSteps ? html`<button type="button" class="link" onClick=${() => setSteps([...steps, { type: 'pageview', path: '' }])}>Add a step</button>` : null}
        <label>Within <input name="window-value" type="number" min="1" value=${within.value} onInput=${onValue((value) => setWithin({ ...within, value }))} /></label>
        <select name="window-unit" aria-label="Window unit" value=${within.unit} onChange=${onValue((unit) => setWithin({ ...within, unit }))}>
          ${units.map((unit) => html`<option value=${unit}>${unit}</option>`)}
        </select>
        <label>Dates <select name="date-mode" value=${options.dateMode} onChange=${onValue((dateMode) => setOptions({ ...options, dateMode }))}>
          <option value="first_step">first step in the period</option>
          <option value="all_steps">every step in the period</option>
        </select></label>
        <label>Breakdown <select name="breakdown" value=${options.breakdown} onChange=${onValue((breakdown) => setOptions({ ...options, breakdown }))}>
          <option value="">none</option>
          ${breakdowns.map((name) => html`<option value=${name}>${name.replace('_', ' ')}</option>`)}
        </select></label>
        <button type="submit">Run</button>
      </div>
    </form>
    ${run?.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${run?.status === 'error' ? html`<p class="state error" role="alert">${run.error}</p>` : null}
    ${rows.length > 0
      ? html`<table class="funnel-result">
          <thead><tr><th scope="col">Step</th><th scope="col" class="number">People</th><th scope="col" class="number">From start</th><th scope="col" class="number">From previous</th><th scope="col" class="number">Median time</th><th scope="col"></th></tr></thead>
          <tbody>
            ${rows.map(
              (row) => html`<tr key=${row.index}>
                <th scope="row" class="label">${row.index}. ${row.label}<span class="bar" style=${{ width: `${(row.conversion_from_start * 100).toFixed(1)}%` }}></span></th>
                <td class="number">${formatNumber(row.count)}</td>
                <td class="number">${formatPercent(row.conversion_from_start)}</td>
                <td class="number">${row.index === 1 ? '' : formatPercent(row.conversion_from_previous)}</td>
                <td class="number">${secondsText(row.median_seconds_from_previous)}</td>
                <td>${row.index < rows.length ? html`<button type="button" class="link" onClick=${() => setTransition(row.index)}>Why ${row.index} → ${row.index + 1}?</button>` : null}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : null}
    ${run?.status === 'ready' && run.answer.data.breakdown
      ? html`<table class="funnel-breakdown"><caption>People at each step by ${(run.query.breakdown ?? '').replace('_', ' ')}</caption>
          <thead><tr><th scope="col">Value</th>${rows.map((row) => html`<th scope="col" class="number">${row.index}</th>`)}<th scope="col" class="number">Converted</th></tr></thead>
          <tbody>
            ${run.answer.data.breakdown.map(
              (group) => html`<tr key=${group.value}>
                <th scope="row" class="label">${group.value}</th>
                ${group.steps.map((step) => html`<td class="number">${formatNumber(step.count)}</td>`)}
                <td class="number">${formatPercent(group.steps[group.steps.length - 1]?.conversion_from_start ?? 0)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : null}
    ${transition !== null && run?.status === 'ready' ? html`<${Transition} key=${`${run.executionId}-${transition}`} base=${base} run=${run} from=${transition} />` : null}
  </section>`;
}
