// @ts-check
// The signed-in member's own e-mail reports of one site (/v1/sites/:siteId/email-reports, docs/email.md): a toggle
// per frequency (weekly on Monday, monthly on the 1st, UTC) and "Send a test now" for each subscription. The server
// answers 409 without SMTP and 403 for the admin token or an API key (no inbox): its message is shown as it comes.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api, reporting, schemaKey, session } from './api.js';
import { useList } from './use-answer.js';

/** @param {string} siteId */
const reportsPath = (siteId) => `/v1/sites/${encodeURIComponent(siteId)}/email-reports`;
const frequencies = /** @type {const} */ (['weekly', 'monthly']);
const labels = { weekly: 'Weekly report (Mondays)', monthly: 'Monthly report (the 1st)' };

/**
 * Shown only to a person signed in with their account: the admin token and API keys have no inbox (the API would
 * answer 403), so for them the panel says so instead of asking.
 * @param {{ siteId: string }} props
 */
export function EmailReports({ siteId }) {
  const kind = /** @type {{ kind: string } | null | undefined} */ (session.value)?.kind;
  if (kind !== 'user') return html`<p class="hint">E-mail reports go to a person's inbox: sign in with your account to subscribe (the admin token and API keys have none).</p>`;
  return html`<${Subscriptions} siteId=${siteId} />`;
}

/** @param {{ siteId: string }} props */
function Subscriptions({ siteId }) {
  const list = useList(reportsPath(siteId), schemaKey('GET', '/sites/{siteId}/email-reports'), (answer) => answer.email_reports);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  /** @param {'weekly' | 'monthly'} frequency */
  const toggle = (frequency) =>
    reporting(setError, async () => {
      setDone('');
      const existing = list.rows.find((row) => row.frequency === frequency);
      if (existing) await api(`${reportsPath(siteId)}/${encodeURIComponent(existing.id)}`, { method: 'DELETE' });
      else await api(reportsPath(siteId), { method: 'POST', body: { frequency }, schema: schemaKey('POST', '/sites/{siteId}/email-reports') });
      await list.load();
    });
  /** @param {string} id */
  const sendTest = (id) =>
    reporting(setError, async () => {
      const sent = await api(`${reportsPath(siteId)}/${encodeURIComponent(id)}/test`, { method: 'POST', schema: schemaKey('POST', '/sites/{siteId}/email-reports/{id}/test') });
      setDone(sent.status === 'sent' ? `Test sent to ${sent.to}.` : sent.status === 'pending' ? `The mail server refused for now; retrying for ${sent.to}.` : `The mail server refused the test to ${sent.to}.`);
    });
  return html`<div class="email-reports" aria-label="E-mail reports">
    ${list.status === 'error' ? html`<p class="state error" role="alert">${list.error}</p>` : null}
    ${list.status === 'ready'
      ? html`<ul class="plain-list">
          ${frequencies.map((frequency) => {
            const subscription = list.rows.find((row) => row.frequency === frequency);
            return html`<li key=${frequency}>
              <label class="check"><input type="checkbox" name=${`email-report-${frequency}`} checked=${Boolean(subscription)} onChange=${toggle(frequency)} /> ${labels[frequency]}</label>
              ${subscription ? html` <button type="button" class="link" onClick=${sendTest(subscription.id)}>Send a test now</button>` : null}
            </li>`;
          })}
        </ul>`
      : null}
    ${done ? html`<p class="state" role="status">${done}</p>` : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </div>`;
}
