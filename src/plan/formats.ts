// The string formats a plan's schemas may assert. Any other format name is refused at load (strict mode).
import { isIPv6 } from 'node:net';
import type { Format } from 'ajv/dist/2020.js';

const daysInMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const isLeap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && !isLeap ? 28 : daysInMonth[month - 1]!);
}

/** RFC 3339 full-time: seconds and an offset are required; a leap second is allowed. */
function isTime(text: string): boolean {
  const match = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:z|([+-])(\d{2}):(\d{2}))$/i.exec(text);
  if (!match) return false;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (match[4] && (Number(match[5]) > 23 || Number(match[6]) > 59)) return false;
  return true;
}

function isDateTime(text: string): boolean {
  const parts = text.split(/t|\s/i);
  return parts.length === 2 && isDate(parts[0]!) && isTime(parts[1]!);
}

function isUri(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text);
}

function isUriReference(text: string): boolean {
  return !/\s/.test(text) && URL.canParse(text, 'http://base.invalid/');
}

/** Patterns are compiled with the `u` flag (ajv's default), so that is how they are checked. */
function isRegex(text: string): boolean {
  try {
    new RegExp(text, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * The supported formats (ajv ships none; these follow RFC 3339, 5321, 1123, 4291, 3986 and 4122 closely enough
 * for analytics properties).
 * @example new Ajv2020({ formats: planFormats });
 */
export const planFormats: Record<string, Format> = {
  date: isDate,
  time: isTime,
  'date-time': isDateTime,
  email: /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i,
  hostname: /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i,
  ipv4: /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  ipv6: (text: string) => isIPv6(text),
  uri: isUri,
  'uri-reference': isUriReference,
  uuid: /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i,
  regex: isRegex,
};
