// @ts-check
// What the UI shows, kept in the URL so a view can be bookmarked and the back button works:
// ?site=&page=&tab=&period=&from=&to=&compare=&f.<name>=&embed= (docs/admin-ui.md, "Pages"), and the people pages
// (?page=account, ?page=members/<workspace slug>), which belong to no site.
import { signal } from '@preact/signals';

/**
 * What the UI shows: the site (none: the sites overview), its page and the settings' tab (ids of `pages` and
 * `settingsTabs`; or a people page: 'account', 'members/<slug>'), the period and comparison (ids of `periods` and
 * `compareModes`), the filters, and the share link whose embedding layout is shown (embed: its id; '' when not embedded).
 * @typedef {{ site: string, page: string, tab: string, period: string, from: string, to: string, compare: string,
 *   filters: Record<string, string>, embed: string }} View
 */
/**
 * The UTC days of a period, inclusive, and of its comparison; `since`: the first hour of a rolling window (the last
 * 24 hours: yesterday and today since the hour 23 hours before this one), which summary-v2 counts from.
 * @typedef {{ from: string, to: string, days: number, previous: { from: string, to: string }, since?: string }} Range
 */

export const filterNames = ['source', 'path', 'country', 'region', 'city', 'device', 'browser', 'os', 'goal'];
/**
 * A site's pages, in the navigation's order; `shared`: a share link's reader sees it; `scope`: what the session needs
 * beyond the dashboards (a viewer reads the reports only: no stream, events, funnels or attribution; Settings needs
 * query:read, and offers its sections as the scopes allow: a read-only key sees tracking and spend).
 * @type {{ id: string, label: string, shared: boolean, scope?: string }[]}
 */
export const pages = [
  { id: 'dashboard', label: 'Dashboard', shared: true },
  { id: 'realtime', label: 'Realtime', shared: false, scope: 'query:read' },
  { id: 'goals', label: 'Goals', shared: false },
  { id: 'funnels', label: 'Funnels', shared: false, scope: 'query:read' },
  { id: 'journeys', label: 'Journeys', shared: false },
  { id: 'retention', label: 'Retention', shared: false },
  { id: 'attribution', label: 'Attribution and ROI', shared: false, scope: 'query:read' },
  { id: 'events', label: 'Events', shared: false, scope: 'query:read' },
  { id: 'settings', label: 'Settings', shared: false, scope: 'query:read' },
];
/** The settings' sections. */
export const settingsTabs = [
  { id: 'site', label: 'Tracking and privacy' },
  { id: 'sharing', label: 'Share links' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'keys', label: 'API keys' },
  { id: 'spend', label: 'Spend' },
  { id: 'dlq', label: 'Dead letters' },
  { id: 'audit', label: 'Audit log' },
];
export const periods = [
  { id: 'today', label: 'Today', key: 't' },
  { id: '24h', label: 'Last 24 hours', key: 'h' },
  { id: '7d', label: 'Last 7 days', key: 'w' },
  { id: '30d', label: 'Last 30 days', key: 'd' },
  { id: 'month', label: 'Month to date', key: 'm' },
  { id: 'year', label: 'Year to date', key: 'y' },
  { id: 'custom', label: 'Custom', key: 'c' },
];
/** What the period is compared with: the same number of days just before, the same weekdays 52 weeks earlier, or nothing. */
export const compareModes = [
  { id: 'previous', label: 'Previous period' },
  { id: 'year', label: 'Same weekdays a year earlier' },
  { id: 'off', label: 'No comparison' },
];
const dayMs = 86_400_000;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/** A page of a person's own (account) or of a workspace's members: it belongs to no site. @param {string} page */
export const isPeoplePage = (page) => /^(account|members\/[a-z0-9-]{1,64})$/.test(page);

/** @returns {View} */
function readUrl() {
  const query = new URLSearchParams(location.search);
  /** @type {Record<string, string>} */
  const filters = {};
  for (const name of filterNames) {
    const value = query.get(`f.${name}`);
    if (value) filters[name] = value;
  }
  /** @param {string} name */
  const read = (name) => query.get(name) ?? '';
  return {
    site: read('site'),
    page: pages.some((item) => item.id === read('page')) || isPeoplePage(read('page')) ? read('page') : 'dashboard',
    tab: settingsTabs.some((item) => item.id === read('tab')) ? read('tab') : 'site',
    embed: /^[\w-]{1,64}$/.test(read('embed')) ? read('embed') : '',
    period: periods.some((item) => item.id === read('period')) ? read('period') : '7d',
    from: datePattern.test(read('from')) ? read('from') : '',
    to: datePattern.test(read('to')) ? read('to') : '',
    compare: compareModes.some((mode) => mode.id === read('compare')) ? read('compare') : 'previous',
    filters,
  };
}

export const view = signal(readUrl());

/** @param {View} state */
function writeUrl(state) {
  const query = new URLSearchParams();
  if (state.site) query.set('site', state.site);
  if ((state.site && state.page !== 'dashboard') || isPeoplePage(state.page)) query.set('page', state.page);
  if (state.site && state.page === 'settings' && state.tab !== 'site') query.set('tab', state.tab);
  if (state.embed) query.set('embed', state.embed);
  if (state.period !== '7d') query.set('period', state.period);
  if (state.period === 'custom') {
    if (state.from) query.set('from', state.from);
    if (state.to) query.set('to', state.to);
  }
  if (state.compare !== 'previous') query.set('compare', state.compare);
  for (const [name, value] of Object.entries(state.filters)) query.set(`f.${name}`, value);
  const text = query.toString();
  // The fragment (a share link's token) stays: it is never sent to the server.
  return `${text ? `?${text}` : location.pathname}${location.hash}`;
}

/**
 * Changes the view and records it in the browser's history.
 * @param {Partial<View>} change
 */
export function updateView(change) {
  const next = { ...view.value, ...change };
  view.value = next;
  history.pushState(null, '', writeUrl(next));
}

addEventListener('popstate', () => {
  view.value = readUrl();
});

/** @param {number} ms */
export const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);
/** @param {string} text */
const dayOf = (text) => Date.parse(`${text}T00:00:00Z`);

/**
 * The UTC days of a period: { from, to } inclusive, and the comparison's (`previous`): the same number of days just
 * before, or with compare=year the same days 364 days earlier (52 weeks: the same weekdays).
 * @param {View} state
 * @returns {Range}
 */
export function rangeOf(state, now = Date.now()) {
  const today = dayOf(isoDay(now));
  const date = new Date(today);
  let from = today;
  let to = today;
  const hourMs = 3_600_000;
  // The current hour and the 23 before it: 24 hourly points.
  const since = state.period === '24h' ? Math.floor(now / hourMs) * hourMs - 23 * hourMs : undefined;
  if (since !== undefined) from = dayOf(isoDay(since));
  else if (state.period === '7d') from = today - 6 * dayMs;
  else if (state.period === '30d') from = today - 29 * dayMs;
  else if (state.period === 'month') from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  else if (state.period === 'year') from = Date.UTC(date.getUTCFullYear(), 0, 1);
  else if (state.period === 'custom' && state.from && state.to && state.from <= state.to) {
    from = dayOf(state.from);
    to = dayOf(state.to);
  }
  const days = Math.round((to - from) / dayMs) + 1;
  return {
    from: isoDay(from),
    to: isoDay(to),
    days,
    previous:
      state.compare === 'year'
        ? { from: isoDay(from - 364 * dayMs), to: isoDay(to - 364 * dayMs) }
        : { from: isoDay(from - days * dayMs), to: isoDay(from - dayMs) },
    ...(since !== undefined && { since: `${new Date(since).toISOString().slice(0, 13)}:00:00Z` }),
  };
}

/**
 * The query string of a report: the range and the view's filters.
 * @param {{ from: string, to: string }} range
 * @param {Record<string, string>} filters
 * @param {Record<string, string | number>} [extra]
 */
export function reportQuery(range, filters, extra = {}) {
  const query = new URLSearchParams({ from: range.from, to: range.to });
  for (const [name, value] of Object.entries(filters)) query.set(name, value);
  for (const [name, value] of Object.entries(extra)) query.set(name, String(value));
  return query.toString();
}

/**
 * The rolling window a report counts (the last 24 hours: every panel counts from the same hour), as a query part.
 * @param {Range} range
 * @returns {Record<string, string>}
 */
export const windowOf = (range) => (range.since ? { since: range.since } : {});

/**
 * The address of the view changed by `change`, for a link's href (a click goes through updateView; a middle click
 * opens the same view in a new tab).
 * @param {Partial<View>} change
 */
export function hrefOf(change) {
  return writeUrl({ ...view.value, ...change });
}

/**
 * A link's click handler: a plain click changes the view in place; with a modifier the browser opens the href.
 * @param {Partial<View>} change
 */
export const navigate = (change) => (/** @type {MouseEvent} */ event) => {
  if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  updateView(change);
};
