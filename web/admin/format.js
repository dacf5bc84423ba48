// @ts-check
// Numbers, money, percentages, durations and ratios in the visitor's own locale (Intl), written once: 1,234 or
// 1 234, "502.00 EUR" one currency a line, "1m 48s", "1,877.8%" for an ROI and "3.4×" for a ratio.
import { html } from './html.js';

/** The visitor's locale (the browser's first), or undefined for the runtime's default. */
const locale = typeof navigator === 'undefined' ? undefined : navigator.languages?.[0] ?? navigator.language;

const integer = new Intl.NumberFormat(locale);
const percent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
const oneDecimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });

/** @param {number} value */
export const formatCount = (value) => integer.format(value);

/** @param {number} value a fraction (0.5 → 50.0 %) */
export const formatShare = (value) => percent.format(value);

/** An ROI given as a fraction (17.7778 → 1,777.8 %). @param {number} value */
export const formatRoi = (value) => percent.format(value);

/** A ratio such as ROAS (3.39 → 3.4×). @param {number} value */
export const formatRatio = (value) => `${oneDecimal.format(value)}×`;

/** Seconds as "1h 2m", "1m 48s" or "12s" (under 10 s, one decimal). @param {number} seconds */
export function formatDuration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  if (seconds < 10) return `${oneDecimal.format(seconds)}s`;
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours > 0) return `${hours}h ${minutes}m`;
  return minutes > 0 ? `${minutes}m ${rest}s` : `${rest}s`;
}

/** One amount in its currency, in the visitor's locale ("€502.00", "502,00 €"). @param {{ amount: string, currency: string }} money */
export function formatMoney({ amount, currency }) {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(Number(amount));
  } catch {
    return `${amount} ${currency}`;
  }
}

/** Amounts in several currencies as text, one per currency, for a CSV or a title. @param {{ amount: string, currency: string }[]} list */
export const moneyText = (list) => list.map(formatMoney).join('; ') || '–';

/** Amounts in several currencies, one line each, never wrapped inside a line. @param {{ list: { amount: string, currency: string }[] }} props */
export function MoneyLines({ list }) {
  if (list.length === 0) return html`<span class="muted">–</span>`;
  return html`<span class="money-lines">${list.map((money) => html`<span class="money">${formatMoney(money)}</span>`)}</span>`;
}

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(locale ? [locale] : undefined, { type: 'region' });
  } catch {
    return undefined;
  }
})();

/** A country's name in the visitor's language from its ISO 3166 code ("DE" → "Germany"); the code when unknown. @param {string | null} code */
export function countryName(code) {
  if (!code) return '(unknown)';
  try {
    return regionNames?.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** The emoji flag of a two-letter code (regional indicator symbols), '' for anything else. @param {string | null} code */
export function flagOf(code) {
  if (!code || !/^[A-Za-z]{2}$/.test(code)) return '';
  return String.fromCodePoint(...[...code.toUpperCase()].map((letter) => 0x1f1e6 + letter.charCodeAt(0) - 65));
}

/** A country cell: its flag and its name, the code kept for the filter and the title. @param {{ code: string | null }} props */
export function CountryLabel({ code }) {
  return html`<span class="country" title=${code ?? ''}><span class="flag" aria-hidden="true">${flagOf(code)}</span> ${countryName(code)}</span>`;
}
