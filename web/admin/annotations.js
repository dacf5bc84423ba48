// @ts-check
// Annotations on the chart (CONTRACT section 10): one mark per annotated day of summary-v2's meta.annotations, on a
// strip aligned with the chart's days, and a day clicked (or chosen) opens a one-line form that adds one.
import { useState } from 'preact/hooks';
import { api, hasScope, messageOf } from './api.js';
import { html, onValue } from './html.js';
/** @import { Answers } from './types.js' */

/** @typedef {Answers['GET /v1/sites/{siteId}/reports/summary-v2']['meta']['annotations'][number]} Annotation */

/**
 * @param {{ site: string, days: string[], annotations: Annotation[], onAdded: () => void }} props
 *   days: the chart's days, oldest first
 */
export function AnnotationStrip({ site, days, annotations, onAdded }) {
  const [day, setDay] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const canAdd = hasScope('query:read') || hasScope('admin');
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setError('');
    try {
      await api(`/v1/sites/${encodeURIComponent(site)}/annotations`, { method: 'POST', body: { date: day, text } });
      setText('');
      setDay('');
      onAdded();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  /** @param {string} date */
  const notesOf = (date) => annotations.filter((annotation) => annotation.date === date);
  return html`<div class="annotations">
    <ol class="annotation-strip" aria-label="Annotations by day">
      ${days.map((date) => {
        const notes = notesOf(date);
        return html`<li class=${notes.length > 0 ? 'annotated' : ''}>
          <button type="button" class="day-mark" data-date=${date} disabled=${!canAdd && notes.length === 0}
            title=${notes.length > 0 ? `${date}: ${notes.map((note) => note.text).join(' · ')}` : `Annotate ${date}`}
            aria-label=${notes.length > 0 ? `${date}: ${notes.map((note) => note.text).join(' · ')}` : `Annotate ${date}`}
            onClick=${() => canAdd && setDay(date)}>${notes.length > 0 ? '◆' : ''}</button>
        </li>`;
      })}
    </ol>
    ${annotations.length > 0
      ? html`<ul class="annotation-list">${annotations.map((annotation) => html`<li><time>${annotation.date}</time> ${annotation.text}</li>`)}</ul>`
      : null}
    ${day
      ? html`<form class="annotation-form" onSubmit=${submit}>
          <label>Note for ${day} <input name="annotation-text" value=${text} onInput=${onValue(setText)} maxlength="280" required /></label>
          <button type="submit">Add note</button>
          <button type="button" class="link" onClick=${() => setDay('')}>Cancel</button>
        </form>`
      : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </div>`;
}
