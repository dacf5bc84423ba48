// @ts-check
// A site's consent banner (GET/PUT /v2/sites/:siteId/consent-banner/config, docs/consent-and-sourcemaps.md): the
// form, a live preview of the unsaved draft (rendered as text, never markup: the theme's colours are set through the
// CSSOM, which the Content-Security-Policy allows), and the stale-version conflict explained: someone saved since
// this page read the banner, so theirs is shown and the user either loads it or saves their own draft over it.
// The admin token must name the site's workspace (X-Workspace-Id, its slug here); a key's own workspace is implied,
// and naming it is accepted too. Shown in a site's settings (the admin token) and on the dashboard (an admin key,
// which cannot read the settings).
import { useEffect, useState } from 'preact/hooks';
import { html, onChecked, onValue } from './html.js';
import { ApiFailure, api, messageOf, schemaKey } from './api.js';
/** @import { BannerCategory, BannerConfig, ConsentAnswer, WorkspaceRef } from './types.js' */

/** @param {string} site */
const configPath = (site) => `/v1/v2/sites/${encodeURIComponent(site)}/consent-banner/config`;
/** @type {['title' | 'accept_label' | 'reject_label' | 'settings_label', string, number][]} the field, its label, its maxlength */
const labels = [
  ['title', 'Title', 120],
  ['accept_label', 'Accept button', 40],
  ['reject_label', 'Reject button', 40],
  ['settings_label', 'Settings button', 40],
];
const positions = /** @type {const} */ (['bottom', 'top', 'center']);
const themeColours = /** @type {const} */ (['background', 'text', 'accent']);
/** @param {ConsentAnswer} answer */
const savedAt = (answer) => (answer.updated_at ? `${answer.updated_at.slice(0, 19).replace('T', ' ')} UTC` : 'never saved');

/**
 * The banner as a visitor would see it, every field as text.
 * @param {{ config: BannerConfig, label: string }} props
 */
export function BannerPreview({ config, label }) {
  const theme = config.theme;
  return html`<div class=${`banner-preview position-${config.position}`} aria-label=${label} style=${{ background: theme.background, color: theme.text, borderColor: theme.accent }}>
    <p class="banner-title">${config.title}</p>
    <p class="banner-body">${config.body}</p>
    ${config.categories.length > 0
      ? html`<ul class="banner-categories">
          ${config.categories.map((category) => html`<li><span class="banner-category">${category.label}</span>${category.required ? ' (always on)' : ''}: ${category.description}</li>`)}
        </ul>`
      : null}
    <p class="banner-buttons">
      <span class="banner-button" style=${{ background: theme.accent, color: theme.background }}>${config.accept_label}</span>
      <span class="banner-button" style=${{ borderColor: theme.accent }}>${config.reject_label}</span>
      <span class="banner-button" style=${{ borderColor: theme.accent }}>${config.settings_label}</span>
    </p>
    <p class="banner-policy">Privacy policy: ${config.privacy_policy_url}</p>
  </div>`;
}

/** @param {{ category: BannerCategory, index: number, update: (category: BannerCategory) => void, remove: () => void }} props */
function CategoryFields({ category, index, update, remove }) {
  /** @param {'key' | 'label'} name @param {string} text @param {{ maxlength?: number }} [rest] */
  const field = (name, text, rest = {}) => html`<label>${text} <input name=${`category-${index}-${name}`} value=${category[name]} onInput=${onValue((value) => update({ ...category, [name]: value }))} ...${rest} /></label>`;
  return html`<li class="props-form">
    ${field('key', 'Key', { maxlength: 32 })}
    ${field('label', 'Label', { maxlength: 40 })}
    <label class="wide">Description <textarea name=${`category-${index}-description`} rows="2" value=${category.description} onInput=${onValue((description) => update({ ...category, description }))}></textarea></label>
    <label class="check"><input type="checkbox" name=${`category-${index}-required`} checked=${category.required} onChange=${onChecked((required) => update({ ...category, required }))} /> Always on</label>
    <button type="button" class="link" onClick=${remove}>Remove</button>
  </li>`;
}

/**
 * site: the site's id is all it reads.
 * @param {{ workspace: WorkspaceRef, site: { id: string } }} props
 */
export function ConsentPanel({ workspace, site }) {
  const headers = { 'x-workspace-id': workspace.slug };
  const [loaded, setLoaded] = useState(
    /** @type {{ status: 'loading' } | { status: 'error', error: string } | { status: 'ready', answer: ConsentAnswer }} */ ({ status: 'loading' }),
  );
  const [draft, setDraft] = useState(/** @type {BannerConfig | null} */ (null));
  const [reconsent, setReconsent] = useState(false);
  // The banner someone else saved since this page read it (a stale-version refusal).
  const [conflict, setConflict] = useState(/** @type {ConsentAnswer | null} */ (null));
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const read = () => api(configPath(site.id), { headers, schema: schemaKey('GET', '/v2/sites/{siteId}/consent-banner/config') });
  /** @param {ConsentAnswer} answer */
  const take = (answer) => {
    setLoaded({ status: 'ready', answer });
    setDraft(answer.config);
    setConflict(null);
  };
  useEffect(() => {
    read().then(take, (failure) => setLoaded({ status: 'error', error: messageOf(failure) }));
  }, [site.id]);

  /** @param {number} version the config_version the draft replaces */
  const save = async (version) => {
    setError('');
    setDone('');
    try {
      const body = { config_version: version, idempotency_key: crypto.randomUUID(), request_reconsent: reconsent, config: draft };
      const answer = await api(configPath(site.id), { method: 'PUT', body, headers, schema: schemaKey('PUT', '/v2/sites/{siteId}/consent-banner/config') });
      setLoaded({ status: 'ready', answer });
      setConflict(null);
      setReconsent(false);
      setDone(`Saved as version ${answer.config_version} (consent revision ${answer.consent_revision}).`);
    } catch (failure) {
      if (!(failure instanceof ApiFailure && failure.code === 'stale_config_version')) return setError(messageOf(failure));
      try {
        setConflict(await read());
      } catch (again) {
        setError(messageOf(again));
      }
    }
  };
  /** @param {Event} event */
  const submit = (event) => {
    event.preventDefault();
    if (loaded.status === 'ready') save(loaded.answer.config_version);
  };

  /**
   * @template {keyof BannerConfig} Name
   * @param {Name} name
   * @param {BannerConfig[Name]} value
   */
  const set = (name, value) => setDraft(draft && { ...draft, [name]: value });
  /** @param {number} index @param {BannerCategory} category */
  const setCategory = (index, category) => draft && set('categories', draft.categories.map((item, at) => (at === index ? category : item)));
  return html`<div class="consent">
    <h3>Consent banner</h3>
    ${loaded.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${loaded.status === 'error' ? html`<p class="state error" role="alert">${loaded.error}</p>` : null}
    ${draft && loaded.status === 'ready'
      ? html`<p class="hint">Version ${loaded.answer.config_version}, consent revision ${loaded.answer.consent_revision}, ${savedAt(loaded.answer)}.</p>
        <div class="consent-grid">
          <form class="consent-form" onSubmit=${submit} aria-label="Consent banner" novalidate>
            ${labels.map(([name, text, max]) => html`<label>${text} <input name=${`banner-${name}`} value=${draft[name]} maxlength=${max} onInput=${onValue((value) => set(name, value))} /></label>`)}
            <label>Text <textarea name="banner-body" rows="4" value=${draft.body} onInput=${onValue((body) => set('body', body))}></textarea></label>
            <label>Privacy policy (https) <input name="banner-privacy_policy_url" value=${draft.privacy_policy_url} onInput=${onValue((url) => set('privacy_policy_url', url))} /></label>
            <div class="props-form">
              <label>Position <select name="banner-position" value=${draft.position} onChange=${onValue((value) => set('position', positions.find((position) => position === value) ?? draft.position))}>
                ${positions.map((position) => html`<option value=${position}>${position}</option>`)}
              </select></label>
              ${themeColours.map((name) => html`<label>${name} <input type="color" name=${`banner-theme-${name}`} value=${draft.theme[name].toLowerCase()} onInput=${onValue((colour) => set('theme', { ...draft.theme, [name]: colour }))} /></label>`)}
            </div>
            <fieldset><legend>Categories (${draft.categories.length} of 10)</legend>
              <ul class="categories">${draft.categories.map((category, index) => html`<${CategoryFields} key=${index} index=${index} category=${category} update=${(/** @type {BannerCategory} */ value) => setCategory(index, value)} remove=${() => set('categories', draft.categories.filter((_, at) => at !== index))} />`)}</ul>
              ${draft.categories.length < 10 ? html`<button type="button" class="link" onClick=${() => set('categories', [...draft.categories, { key: '', label: '', description: '', required: false }])}>Add a category</button>` : null}
            </fieldset>
            <label class="check"><input type="checkbox" name="banner-reconsent" checked=${reconsent} onChange=${onChecked(setReconsent)} /> Ask every visitor again (a new consent revision)</label>
            <button type="submit" disabled=${conflict !== null}>Save banner</button>
            ${done ? html`<p class="state" role="status">${done}</p>` : null}
            ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
          </form>
          <div><p class="hint">Preview of the draft</p><${BannerPreview} config=${draft} label="Preview of the draft" /></div>
        </div>`
      : null}
    ${conflict && loaded.status === 'ready'
      ? html`<div class="conflict" role="alert">
          <p><strong>Not saved: someone else saved this banner meanwhile.</strong> You edited version ${loaded.answer.config_version}; version
            ${' '}<span class="their-version">${conflict.config_version}</span> was saved ${savedAt(conflict)}. Your draft is still in the form.</p>
          <${BannerPreview} config=${conflict.config} label="Their banner" />
          <p>
            <button type="button" onClick=${() => { take(conflict); setDone(`Version ${conflict.config_version} loaded: your draft was dropped.`); }}>Load their version</button>
            ${' '}<button type="button" onClick=${() => save(conflict.config_version)}>Save my draft over theirs</button>
          </p>
        </div>`
      : null}
  </div>`;
}
