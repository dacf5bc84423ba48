// @ts-check
// Goals (CONTRACT section 10): the Goals panel of the dashboard (goals-v2: unique conversions, conversions, the
// conversion rate and revenue per currency; a row filters the dashboard to the visits that converted), the goal
// settings (create from a path or an event type offered from the site's own data, delete), and "make this a goal"
// for a custom event's row.
import { useState } from 'preact/hooks';
import { api, hasScope, messageOf, schemaKey } from './api.js';
import { MoneyLines, formatCount, formatShare, moneyText } from './format.js';
import { html, onValue } from './html.js';
import { useAnswer, useList } from './use-answer.js';
import { reportQuery, windowOf } from './view-state.js';
/** @import { Answers } from './types.js' */
/** @import { Range } from './view-state.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/reports/goals-v2']['data']['rows'][number]} GoalRow */
/** @typedef {Answers['GET /v1/sites/{siteId}/goals']['goals'][number]} Goal */

const goalsPath = (/** @type {string} */ site) => `/v1/sites/${encodeURIComponent(site)}/goals`;
const goalsSchema = schemaKey('GET', '/sites/{siteId}/goals');

/** Whether the session may create goals (analysts and up: the API refuses viewers). */
export const canEditGoals = () => hasScope('query:read') || hasScope('admin');

/**
 * @param {{ site: string, range: Range, filters: Record<string, string>, onFilter: (name: string, value: string) => void, version?: number }} props
 */
export function GoalsPanel({ site, range, filters, onFilter, version = 0 }) {
  const answer = useAnswer(`/v1/sites/${encodeURIComponent(site)}/reports/goals-v2?${reportQuery(range, filters, { v: version, ...windowOf(range) })}`, schemaKey('GET', '/sites/{siteId}/reports/goals-v2'));
  const rows = answer.status === 'ready' ? answer.data.data.rows : [];
  const top = Math.max(1, ...rows.map((row) => row.visitors));
  return html`<section class="panel goals" aria-busy=${answer.status === 'loading'}>
    <header class="panel-head"><h2>Goals</h2></header>
    ${answer.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${answer.status === 'error' ? html`<p class="state error" role="alert">${answer.error}</p>` : null}
    ${answer.status === 'ready' && rows.length === 0 ? html`<p class="state">No goal yet: add one below, or from a custom event.</p>` : null}
    ${rows.length > 0
      ? html`<table>
          <thead><tr><th scope="col">Goal</th><th class="number" scope="col">Uniques</th><th class="number" scope="col">Conversions</th><th class="number" scope="col">Rate</th><th class="number" scope="col">Revenue</th></tr></thead>
          <tbody>
            ${rows.map(
              (row) => html`<tr class="clickable bar-row" tabindex="0" title="Show the visits that converted" data-goal=${row.goal_id}
                style=${{ '--bar': `${(row.visitors / top) * 100}%` }}
                onClick=${() => onFilter('goal', row.goal_id)}
                onKeyDown=${(/** @type {KeyboardEvent} */ event) => event.key === 'Enter' && onFilter('goal', row.goal_id)}>
                <th scope="row" class="label">${row.name}</th>
                <td class="number">${formatCount(row.visitors)}</td>
                <td class="number">${formatCount(row.conversions)}</td>
                <td class="number conversion-rate" data-rate=${String(row.conversion_rate)}>${formatShare(row.conversion_rate)}</td>
                <td class="number" title=${moneyText(row.revenue)}><${MoneyLines} list=${row.revenue} /></td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : null}
  </section>`;
}

/**
 * The form that creates a goal: a pageview of a path (offered from the site's pages) or an event type (offered
 * from its events), so a typo is seen before saving. `initial`: prefilled (make this a goal).
 * @param {{ site: string, paths: string[], types: string[], initial?: { kind: 'pageview' | 'event', value: string }, onSaved: () => void }} props
 */
export function GoalForm({ site, paths, types, initial, onSaved }) {
  const [kind, setKind] = useState(initial?.kind ?? 'pageview');
  const [value, setValue] = useState(initial?.value ?? '');
  const [name, setName] = useState(initial ? initial.value : '');
  const [error, setError] = useState('');
  const known = kind === 'pageview' ? paths.includes(value) || value.endsWith('*') : types.includes(value);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setError('');
    try {
      await api(goalsPath(site), { method: 'POST', body: kind === 'pageview' ? { name: name || value, kind, path: value } : { name: name || value, kind, event_type: value } });
      setValue('');
      setName('');
      onSaved();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return html`<form class="goal-form" onSubmit=${submit}>
    <label>Goal
      <select value=${kind} onChange=${onValue((next) => setKind(next === 'event' ? 'event' : 'pageview'))}>
        <option value="pageview">Page visited</option>
        <option value="event">Event sent</option>
      </select>
    </label>
    <label>${kind === 'pageview' ? 'Path (end with * for a section)' : 'Event type'}
      <input name="goal-target" list=${`goal-${kind}-options`} value=${value} onInput=${onValue(setValue)} required maxlength="512" />
    </label>
    <datalist id="goal-pageview-options">${paths.map((path) => html`<option value=${path} />`)}</datalist>
    <datalist id="goal-event-options">${types.map((type) => html`<option value=${type} />`)}</datalist>
    <label>Name <input name="goal-name" value=${name} onInput=${onValue(setName)} maxlength="128" placeholder=${value || 'Signed up'} /></label>
    <button type="submit">Add goal</button>
    ${value && !known ? html`<p class="hint warning" role="status">No ${kind === 'pageview' ? 'page' : 'event'} “${value}” in this period: check the spelling.</p>` : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </form>`;
}

/**
 * The goal settings: the site's goals with a delete button, and the form (paths and event types from the site's
 * reports of the range).
 * @param {{ site: string, range: Range, onChanged: () => void }} props
 */
export function GoalSettings({ site, range, onChanged }) {
  const goals = useList(goalsPath(site), goalsSchema, (answer) => answer.goals);
  const pages = useAnswer(`/v1/sites/${encodeURIComponent(site)}/reports/pages-v2?${reportQuery(range, {}, { limit: 200 })}`, schemaKey('GET', '/sites/{siteId}/reports/pages-v2'));
  const types = useAnswer(`/v1/sites/${encodeURIComponent(site)}/events/overview-v2?${reportQuery(range, {})}`, schemaKey('GET', '/sites/{siteId}/events/overview-v2'));
  const [error, setError] = useState('');
  const changed = () => {
    goals.load();
    onChanged();
  };
  /** @param {Goal} goal */
  const remove = async (goal) => {
    try {
      await api(`${goalsPath(site)}/${encodeURIComponent(goal.id)}`, { method: 'DELETE' });
      changed();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const editable = canEditGoals();
  // The site's own event types but pageviews and the tracker's engagement measurements.
  const customTypes = types.status === 'ready' ? types.data.data.types.filter((row) => row.type !== 'pageview' && row.type !== 'engagement') : [];
  return html`<section class="panel goal-settings">
    <header class="panel-head"><h2>Goal settings</h2></header>
    ${goals.rows.length > 0
      ? html`<ul class="goal-list">
          ${goals.rows.map(
            (goal) => html`<li>
              <span>${goal.name}</span> <span class="hint">${goal.kind === 'pageview' ? goal.path : goal.event_type}</span>
              ${editable ? html`<button type="button" class="link" aria-label=${`Delete goal ${goal.name}`} onClick=${() => remove(goal)}>Delete</button>` : null}
            </li>`,
          )}
        </ul>`
      : null}
    ${customTypes.length > 0
      ? html`<table class="custom-events">
          <thead><tr><th scope="col">Custom event</th><th class="number" scope="col">Events</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
          <tbody>
            ${customTypes.map(
              (row) => html`<tr><th scope="row" class="label">${row.type}</th><td class="number">${formatCount(row.count)}</td><td>${goals.rows.some((goal) => goal.kind === 'event' && goal.event_type === row.type) ? html`<span class="hint">a goal</span>` : html`<${MakeGoalButton} site=${site} type=${row.type} onSaved=${changed} />`}</td></tr>`,
            )}
          </tbody>
        </table>`
      : null}
    ${editable
      ? html`<${GoalForm}
          site=${site}
          paths=${pages.status === 'ready' ? pages.data.data.rows.map((row) => row.path) : []}
          types=${customTypes.map((row) => row.type)}
          onSaved=${changed}
        />`
      : html`<p class="hint">Viewers read goals; an analyst or an admin adds them.</p>`}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </section>`;
}

/**
 * "Make this a goal" beside a custom event's row: one click saves an event goal of that type.
 * @param {{ site: string, type: string, onSaved: () => void }} props
 */
export function MakeGoalButton({ site, type, onSaved }) {
  const [state, setState] = useState(/** @type {'idle' | 'saved' | string} */ ('idle'));
  if (!canEditGoals() || type === 'pageview' || type === 'engagement') return null;
  const save = async () => {
    try {
      await api(goalsPath(site), { method: 'POST', body: { name: type, kind: 'event', event_type: type } });
      setState('saved');
      onSaved();
    } catch (failure) {
      setState(messageOf(failure));
    }
  };
  if (state === 'saved') return html`<span class="hint">Goal added</span>`;
  return html`<button type="button" class="link" onClick=${save} title=${state === 'idle' ? 'Count this event as a goal' : state}>Make this a goal</button>`;
}
