// @ts-check
// A site's traffic alerts (/v1/sites/:siteId/alerts, docs/email.md "Alerts"; owners and admins): the rules with their
// last firing, a form to add one (a spike: visitors in the last hour reaching the threshold; a drop: the percent
// below the same hour last week), recipients as member ids and an optional webhook endpoint id, and deleting a rule.
// The API's refusals (which recipient is not a member, 409 without SMTP) are shown as they come.
import { useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, hasScope, reporting, schemaKey } from './api.js';
import { useList } from './use-answer.js';

/** @param {string} siteId */
const alertsPath = (siteId) => `/v1/sites/${encodeURIComponent(siteId)}/alerts`;
/** @param {string} kind @param {number} threshold */
const ruleText = (kind, threshold) => (kind === 'traffic_spike' ? `Spike: ${threshold}+ visitors in an hour` : `Drop: ${threshold}% below the same hour last week`);

/** @param {{ siteId: string }} props */
export function Alerts({ siteId }) {
  if (!hasScope('admin')) return html`<p class="hint">Alerts are set by owners and admins (the admin scope).</p>`;
  return html`<${AlertRules} siteId=${siteId} />`;
}

/** @param {{ siteId: string }} props */
function AlertRules({ siteId }) {
  const list = useList(alertsPath(siteId), schemaKey('GET', '/sites/{siteId}/alerts'), (answer) => answer.alerts);
  const [kind, setKind] = useState('traffic_spike');
  const [threshold, setThreshold] = useState('100');
  const [recipients, setRecipients] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const [error, setError] = useState('');
  const add = reporting(setError, async () => {
    const body = {
      kind,
      // Sent as typed when not a number: the API's refusal names the field and its bounds.
      threshold: Number.isNaN(Number(threshold)) ? threshold : Number(threshold),
      recipients: recipients.split(',').map((item) => item.trim()).filter(Boolean),
      endpoint_id: endpoint.trim() === '' ? null : endpoint.trim(),
    };
    await api(alertsPath(siteId), { method: 'POST', body, schema: schemaKey('POST', '/sites/{siteId}/alerts') });
    setRecipients('');
    setEndpoint('');
    await list.load();
  });
  /** @param {string} id */
  const remove = (id) =>
    reporting(setError, async () => {
      await api(`${alertsPath(siteId)}/${encodeURIComponent(id)}`, { method: 'DELETE' });
      await list.load();
    });
  return html`<div class="alerts" aria-label="Traffic alerts">
    ${list.status === 'error' ? html`<p class="state error" role="alert">${list.error}</p>` : null}
    ${list.status === 'ready' && list.rows.length === 0 ? html`<p class="state">No alerts yet.</p>` : null}
    <ul class="plain-list">
      ${list.rows.map(
        (alert) => html`<li key=${alert.id}>
          ${ruleText(alert.kind, alert.threshold)}; ${alert.recipients.length} recipient(s)${alert.endpoint_id ? ', and a webhook' : ''};
          ${alert.last_fired_at ? ` last fired ${alert.last_fired_at.slice(0, 16).replace('T', ' ')} UTC` : ' never fired'}
          <button type="button" class="link danger" onClick=${remove(alert.id)}>Delete</button>
        </li>`,
      )}
    </ul>
    <form class="props-form" onSubmit=${add} aria-label="Add an alert" novalidate>
      <label>Kind
        <select name="alert-kind" value=${kind} onChange=${onValue(setKind)}>
          <option value="traffic_spike">Traffic spike (visitors in the last hour)</option>
          <option value="traffic_drop">Traffic drop (percent below last week)</option>
        </select>
      </label>
      <label>Threshold <input name="alert-threshold" inputmode="numeric" value=${threshold} onInput=${onValue(setThreshold)} size="8" /></label>
      <label>Recipients (member ids, comma-separated) <input name="alert-recipients" value=${recipients} onInput=${onValue(setRecipients)} size="40" /></label>
      <label>Webhook endpoint id (optional) <input name="alert-endpoint" value=${endpoint} onInput=${onValue(setEndpoint)} size="36" /></label>
      <button type="submit">Add alert</button>
    </form>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </div>`;
}
