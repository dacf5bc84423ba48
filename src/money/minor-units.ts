// Money is kept exactly, as integer minor units of an ISO-4217 currency (never a float).

const knownCurrencies = new Set(Intl.supportedValuesOf('currency'));
const exponentCache = new Map<string, number>();

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && knownCurrencies.has(code);
}

/**
 * Digits after the decimal point of a currency (JPY 0, EUR 2, BHD 3), from the platform's ISO 4217 data. Only for
 * a code isCurrencyCode accepts: Intl throws a RangeError on a malformed one ("EURO").
 */
export function currencyExponent(code: string): number {
  let exponent = exponentCache.get(code);
  if (exponent === undefined) {
    exponent = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    exponentCache.set(code, exponent);
  }
  return exponent;
}

const decimalPattern = /^(-?)(\d{1,15})(?:\.(\d+))?$/;

/**
 * Parses a decimal amount ("19.99", 19.99, "5") into minor units of `currency`; undefined when it is not an exact
 * amount of that currency (too many decimals, not a number, out of the safe range) or `currency` is no ISO 4217
 * code: callers validate fields one by one, so the currency's own refusal may not have stopped them.
 * @example toMinorUnits('19.99', 'EUR') === 1999; toMinorUnits('1.5', 'JPY') === undefined; toMinorUnits('1', 'EURO') === undefined
 */
export function toMinorUnits(amount: string | number, currency: string): number | undefined {
  if (!isCurrencyCode(currency)) return undefined;
  const text = typeof amount === 'number' ? (Number.isFinite(amount) ? String(amount) : '') : amount.trim();
  const match = decimalPattern.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  const exponent = currencyExponent(currency);
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > exponent) return undefined;
  const minor = Number(whole! + significant.padEnd(exponent, '0'));
  if (!Number.isSafeInteger(minor)) return undefined;
  return sign === '-' ? -minor : minor;
}

/**
 * Formats minor units back to a decimal string ("1999", "EUR" → "19.99"). A bigint is formatted exactly, however
 * large (sums of many amounts pass 2^53).
 */
export function fromMinorUnits(minor: number | bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  const value = BigInt(minor);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(exponent + 1, '0');
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return negative ? `-${text}` : text;
}

/**
 * Parses a decimal string of any size that fromMinorUnits wrote back into exact minor units; undefined otherwise.
 * @example decimalToMinorUnits('-99079191802150901.00', 'USD') === -9907919180215090100n
 */
export function decimalToMinorUnits(text: string, currency: string): bigint | undefined {
  if (!isCurrencyCode(currency)) return undefined;
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  const exponent = currencyExponent(currency);
  if (!match || (match[3] ?? '').length > exponent) return undefined;
  const minor = BigInt(match[2]! + (match[3] ?? '').padEnd(exponent, '0'));
  return match[1] === '-' ? -minor : minor;
}
